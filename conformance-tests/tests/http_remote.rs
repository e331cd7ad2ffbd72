//! The HTTP suite against a Lore that is already running: set `LORE_CONFORMANCE_URL`
//! (the base URL with the base path, e.g. `http://127.0.0.1:11480/MM/rest/v1`),
//! `LORE_CONFORMANCE_USER` and `LORE_CONFORMANCE_PASSWORD`. Without them every case says
//! so and passes; cases that need a server of their own always skip here.

fn main() -> std::process::ExitCode {
    lore_conformance::http_suite_remote()
}
