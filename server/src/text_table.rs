//! Plain text tables for the command line (`lore query`, `lore user`, `lore group`):
//! columns padded to their widest cell, a rule under the header.

use std::fmt::Write as _;

/// Cells longer than this many characters are cut, ending in `…`.
pub(crate) const MAX_CELL: usize = 60;

/// The header and rows as lines of aligned columns, two spaces apart, without trailing
/// spaces; a row shorter than the header leaves its last columns empty.
pub(crate) fn render(header: &[String], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, c) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(c.chars().count());
            }
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let width = widths.get(i).copied().unwrap_or(0);
                format!("{c}{}", " ".repeat(width.saturating_sub(c.chars().count())))
            })
            .collect();
        let _ = writeln!(out, "{}", padded.join("  ").trim_end());
    };
    line(&mut out, header);
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    line(&mut out, &rule);
    for row in rows {
        line(&mut out, row);
    }
    out
}

/// Text as one table cell: [`clean`], and cut when longer than [`MAX_CELL`]
/// characters.
pub(crate) fn cell(text: &str) -> String {
    let text = clean(text);
    if text.chars().count() > MAX_CELL {
        let cut: String = text.chars().take(MAX_CELL - 1).collect();
        format!("{cut}…")
    } else {
        text
    }
}

/// Text with its control characters (line breaks, tabs, terminal escapes) replaced by
/// spaces, so a stored value can neither break the layout nor drive the terminal.
pub(crate) fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_aligned_and_cells_cleaned() {
        let header = vec!["Name".to_owned(), "Enabled".to_owned()];
        let rows = vec![
            vec!["Administrator".to_owned(), "yes".to_owned()],
            vec!["al".to_owned()],
        ];
        assert_eq!(
            render(&header, &rows),
            "Name           Enabled\n-------------  -------\nAdministrator  yes\nal\n"
        );
        assert_eq!(cell("a\nb\tc\u{1b}[31m"), "a b c [31m");
        assert!(cell(&"a".repeat(100)).ends_with('…'));
        assert_eq!(cell(&"a".repeat(100)).chars().count(), MAX_CELL);
    }
}
