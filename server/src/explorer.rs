//! The OpenAPI document and the API explorer: Swagger UI (vendored, no network) behind a
//! login form that adds the key header to every later call.

use axum::Router;
use axum::response::{Html, Redirect};
use axum::routing::get;
use serde_json::{Value, json};
use utoipa_swagger_ui::SwaggerUi;

use crate::AppState;

pub fn router(base: &str, mut openapi: Value) -> Router<AppState> {
    openapi["servers"] = json!([{"url": base}]);
    let spec_url = format!("{base}/openapi.json");
    let page = EXPLORER_PAGE
        .replace("{{SPEC_URL}}", &spec_url)
        .replace("{{BASE}}", base);
    Router::new()
        .merge(SwaggerUi::new("/swagger-ui").external_url_unchecked(spec_url, openapi))
        .route("/explorer", get(move || async move { Html(page) }))
        .route("/", get(|| async { Redirect::to("/ui/") }))
}

const EXPLORER_PAGE: &str = r##"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Lore API explorer</title>
<link rel="stylesheet" href="/swagger-ui/swagger-ui.css">
<style>
  body { margin: 0; font-family: sans-serif; }
  #login { display: flex; gap: .5em; align-items: center; padding: .75em 1.5em; background: #1b1b1b; color: #fff; }
  #login input { padding: .3em; }
  #login .status { margin-left: 1em; font-size: .9em; }
</style>
</head>
<body>
<form id="login">
  <strong>Lore</strong>
  <label>User name <input id="user" name="user" autocomplete="username" value="Administrator"></label>
  <label>Password <input id="password" name="password" type="password" autocomplete="current-password"></label>
  <button id="login-button" type="submit">Login</button>
  <button id="logout-button" type="button" disabled>Logout</button>
  <span class="status" id="status">Not logged in</span>
</form>
<div id="swagger-ui"></div>
<script src="/swagger-ui/swagger-ui-bundle.js"></script>
<script>
  let key = null;
  const ui = SwaggerUIBundle({
    url: "{{SPEC_URL}}",
    dom_id: "#swagger-ui",
    requestInterceptor: (req) => { if (key) { req.headers["api-key"] = key; } return req; },
  });
  const status = document.getElementById("status");
  document.getElementById("login").addEventListener("submit", async (event) => {
    event.preventDefault();
    const response = await fetch("{{BASE}}/auth/login", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ user: document.getElementById("user").value, password: document.getElementById("password").value }),
    });
    const body = await response.json();
    if (response.ok && body.result && body.result.token) {
      key = body.result.token;
      ui.preauthorizeApiKey("api_key", key);
      status.textContent = "Logged in as " + document.getElementById("user").value;
      document.getElementById("logout-button").disabled = false;
    } else {
      status.textContent = "Login failed: " + (body.error ? body.error.message : response.status);
    }
  });
  document.getElementById("logout-button").addEventListener("click", async () => {
    if (key) { await fetch("{{BASE}}/auth/logout", { method: "POST", headers: { "api-key": key } }); }
    key = null;
    status.textContent = "Not logged in";
    document.getElementById("logout-button").disabled = true;
  });
</script>
</body>
</html>
"##;
