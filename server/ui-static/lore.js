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
