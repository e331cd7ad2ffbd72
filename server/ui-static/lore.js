// Lore's web UI: the few things htmx does not do. Pages work without it.
(function () {
  "use strict";
  // "/" focuses the search box, unless the user is typing somewhere.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    var tag = target && target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable)) return;
    var box = document.getElementById("search-text");
    if (box) { event.preventDefault(); box.focus(); box.select(); }
  });
})();

// The browse tree: a node's button shows or hides the level below it (htmx loads the
// level on the first click).
document.addEventListener("click", function (event) {
  var button = event.target.closest && event.target.closest("button.toggle");
  if (!button) return;
  var level = document.getElementById(button.getAttribute("aria-controls"));
  if (!level) return;
  var open = button.getAttribute("aria-expanded") !== "true";
  button.setAttribute("aria-expanded", open ? "true" : "false");
  button.firstElementChild.textContent = open ? "▾" : "▸";
  level.hidden = !open;
});

// A partial update that failed says why where its answer would have gone.
document.addEventListener("htmx:responseError", function (event) {
  var target = event.detail.target;
  if (!target) return;
  var text = "The request failed (" + event.detail.xhr.status + ").";
  var page = new DOMParser().parseFromString(event.detail.xhr.responseText || "", "text/html");
  var message = page.getElementById("message");
  if (message && message.textContent) text = message.textContent;
  var p = document.createElement("p");
  p.className = "error";
  p.setAttribute("role", "alert");
  p.textContent = text;
  target.replaceChildren(p);
});

// The lineage graph: pan by dragging, zoom with the wheel or the buttons (the viewBox
// changes; the server laid the graph out).
(function () {
  function setup() {
    var svg = document.getElementById("lineage-graph");
    if (!svg || svg.dataset.ready) return;
    svg.dataset.ready = "1";
    var full = { x: 0, y: 0, w: +svg.dataset.width, h: +svg.dataset.height };
    // No taller than the graph (set here: the page's policy refuses style attributes).
    if (full.h > 0) svg.style.maxHeight = full.h + "px";
    var box = Object.assign({}, full);
    function show() { svg.setAttribute("viewBox", box.x + " " + box.y + " " + box.w + " " + box.h); }
    function zoom(factor, cx, cy) {
      var nw = Math.min(Math.max(box.w * factor, 50), full.w * 4);
      var nh = box.h * (nw / box.w);
      box.x = cx - (cx - box.x) * (nw / box.w);
      box.y = cy - (cy - box.y) * (nh / box.h);
      box.w = nw; box.h = nh; show();
    }
    function point(event) {
      var r = svg.getBoundingClientRect();
      return { x: box.x + (event.clientX - r.left) / r.width * box.w, y: box.y + (event.clientY - r.top) / r.height * box.h };
    }
    svg.addEventListener("wheel", function (event) {
      event.preventDefault();
      var p = point(event);
      zoom(event.deltaY > 0 ? 1.2 : 1 / 1.2, p.x, p.y);
    }, { passive: false });
    var drag = null;
    svg.addEventListener("pointerdown", function (event) {
      if (event.target.closest("a")) return;
      drag = { x: event.clientX, y: event.clientY, bx: box.x, by: box.y };
      svg.setPointerCapture(event.pointerId);
    });
    svg.addEventListener("pointermove", function (event) {
      if (!drag) return;
      var r = svg.getBoundingClientRect();
      box.x = drag.bx - (event.clientX - drag.x) / r.width * box.w;
      box.y = drag.by - (event.clientY - drag.y) / r.height * box.h;
      show();
    });
    svg.addEventListener("pointerup", function () { drag = null; });
    document.querySelectorAll("[data-zoom]").forEach(function (button) {
      button.addEventListener("click", function () {
        var what = button.getAttribute("data-zoom");
        if (what === "fit") { box = Object.assign({}, full); show(); return; }
        zoom(what === "in" ? 1 / 1.4 : 1.4, box.x + box.w / 2, box.y + box.h / 2);
      });
    });
  }
  document.addEventListener("DOMContentLoaded", setup);
  document.addEventListener("htmx:afterSettle", setup);
})();
