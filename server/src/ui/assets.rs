//! The UI's static files, embedded in the binary (`server/ui-static/`).

use std::sync::LazyLock;

use axum::extract::Path;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

/// The htmx file's name (versioned: the name changes with the file).
pub const HTMX: &str = "htmx-2.0.11.min.js";

/// Every file: name, media type, bytes.
static FILES: &[(&str, &str, &[u8])] = &[
    (
        HTMX,
        "text/javascript; charset=utf-8",
        include_bytes!("../../ui-static/htmx-2.0.11.min.js"),
    ),
    (
        "lore.css",
        "text/css; charset=utf-8",
        include_bytes!("../../ui-static/lore.css"),
    ),
    (
        "lore.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../ui-static/lore.js"),
    ),
];

/// A short hash of all the files, added to their URLs (`?v=`) so a browser may keep
/// them as long as it likes and still sees a new build's.
pub static VERSION: LazyLock<String> = LazyLock::new(|| {
    let mut hash = Sha256::new();
    for (name, _, bytes) in FILES {
        hash.update(name.as_bytes());
        hash.update(bytes);
    }
    hash.finalize()[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
});

/// `GET /ui/static/{file}`.
pub async fn file(Path(name): Path<String>) -> Response {
    match FILES.iter().find(|(n, _, _)| *n == name) {
        Some((_, media, bytes)) => (
            [
                (CONTENT_TYPE, *media),
                (CACHE_CONTROL, "public, max-age=31536000, immutable"),
            ],
            *bytes,
        )
            .into_response(),
        None => super::page::not_found_page(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vendored files are the ones `SHA256SUMS` names, byte for byte.
    #[test]
    fn vendored_files_match_their_checksums() {
        let sums = include_str!("../../ui-static/SHA256SUMS");
        let mut checked = 0;
        for line in sums.lines().filter(|l| !l.trim().is_empty()) {
            let (sum, name) = line.split_once("  ").expect("sha256sum format");
            let (_, _, bytes) = FILES
                .iter()
                .find(|(n, _, _)| *n == name)
                .unwrap_or_else(|| panic!("{name} is listed in SHA256SUMS but not embedded"));
            let actual: String = Sha256::digest(bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(actual, sum, "{name} does not match SHA256SUMS");
            checked += 1;
        }
        assert!(checked >= 1, "SHA256SUMS lists no file");
    }
}
