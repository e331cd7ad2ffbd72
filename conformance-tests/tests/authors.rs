//! Every write of the catalog names its author: the catalog writes through
//! `Catalog::write(author, ops)` and `Catalog::begin(author)` (core/src/catalog/mod.rs),
//! never through the store's `apply` or `begin` directly, so no change lands in the
//! history without the user or operation that made it.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

#[test]
fn the_catalog_writes_only_with_an_author() {
    let catalog = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .join("core/src/catalog");
    let mut files = Vec::new();
    sources(&catalog, &mut files);
    assert!(files.len() > 20, "the catalog's sources are found");
    let mut found = Vec::new();
    for file in files {
        if file.ends_with("catalog/mod.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("a source file");
        // `self.store` and the call may be split over lines by rustfmt.
        let joined: String = text.split_whitespace().collect::<Vec<_>>().join("");
        for call in [".store.apply(", ".store.begin("] {
            if joined.contains(call) {
                found.push(format!("{}: {call}", file.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "write through Catalog::write or Catalog::begin, which name the author: {found:#?}"
    );
}
