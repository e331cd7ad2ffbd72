//! The sight lint's exceptions are one list: every `#[allow(clippy::disallowed_methods)]`
//! in the workspace is a row of the table in docs/security.md (section 4), with its
//! reason, and every row is in the code. A new raw read of an object by id, stable id or
//! name cannot slip in unlisted, and a removed one does not linger in the list.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const ALLOW: &str = "allow(clippy::disallowed_methods)";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

/// Every `.rs` file under `dir`, leaving out build output and dependencies.
fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if path.is_dir() {
            if !matches!(name, "target" | "node_modules" | ".git") && !name.starts_with('.') {
                sources(&path, found);
            }
        } else if name.ends_with(".rs") {
            found.push(path);
        }
    }
}

#[test]
fn every_sight_lint_exception_is_listed_with_its_reason() {
    let root = workspace();
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut in_code: BTreeMap<String, usize> = BTreeMap::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a source file");
        let relative = file
            .strip_prefix(&root)
            .expect("inside the workspace")
            .to_string_lossy()
            .replace('\\', "/");
        if relative.ends_with("tests/sight_lint.rs") {
            continue;
        }
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if !line.contains(ALLOW) {
                continue;
            }
            *in_code.entry(relative.clone()).or_default() += 1;
            // The reason sits beside it: a comment or doc comment just above.
            let reason = lines[i.saturating_sub(6)..i]
                .iter()
                .any(|l| l.trim_start().starts_with("//"));
            assert!(
                reason,
                "{relative}:{}: an allow of the sight lint without its reason in a comment above",
                i + 1
            );
        }
    }

    let security = std::fs::read_to_string(root.join("docs/security.md")).expect("the page");
    let begin = security
        .find("<!-- sight-lint-exceptions: begin -->")
        .expect("the list's start");
    let end = security
        .find("<!-- sight-lint-exceptions: end -->")
        .expect("the list's end");
    let mut listed: BTreeMap<String, usize> = BTreeMap::new();
    for row in security[begin..end].lines().map(str::trim) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        // | `file` | where | why |
        if cells.len() < 5 || !cells[1].starts_with('`') {
            continue;
        }
        assert!(
            !cells[2].is_empty() && !cells[3].is_empty(),
            "a row without where or why: {row}"
        );
        *listed
            .entry(cells[1].trim_matches('`').to_owned())
            .or_default() += 1;
    }
    assert!(!in_code.is_empty(), "the search found the known exceptions");
    assert_eq!(
        in_code, listed,
        "allows of clippy::disallowed_methods in the code (left) and listed in \
         docs/security.md section 4 (right) differ"
    );
}
