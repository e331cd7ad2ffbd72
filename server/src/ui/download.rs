//! The UI's CSV downloads (`search.csv`, `lineage.csv`): every cell, the header row's
//! included, passes one guard on its way into the file, so a spreadsheet that opens it
//! runs no value as a formula.

use std::borrow::Cow;

use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use lore_core::Error;

/// The characters a spreadsheet may read as the start of a formula (or, tab and
/// carriage return, skip before one): OWASP's list, and the full-width forms some
/// spreadsheets take alike.
const FORMULA_STARTS: &[char] = &[
    '=', '+', '-', '@', '\t', '\r', '\u{FF1D}', '\u{FF0B}', '\u{FF0D}', '\u{FF20}',
];

/// A cell as written: text that starts like a formula gets a leading quote mark, which
/// spreadsheets show as text.
pub fn guarded(text: &str) -> Cow<'_, str> {
    if text.starts_with(FORMULA_STARTS) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// A CSV file being written; its only way in is [`Csv::row`], which guards each cell.
#[derive(Debug)]
pub struct Csv {
    out: csv::Writer<Vec<u8>>,
    file_name: &'static str,
}

impl Csv {
    /// A file the browser saves as `file_name`.
    pub fn new(file_name: &'static str) -> Self {
        Self {
            out: csv::Writer::from_writer(Vec::new()),
            file_name,
        }
    }

    /// Writes one row, each cell through [`guarded`].
    pub fn row<I, S>(&mut self, cells: I) -> Result<(), Error>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let cells: Vec<String> = cells
            .into_iter()
            .map(|c| guarded(c.as_ref()).into_owned())
            .collect();
        self.out
            .write_record(&cells)
            .map_err(|e| Error::internal(format!("cannot write CSV: {e}")))
    }

    /// The download: the file as an attachment.
    pub fn into_response(self) -> Result<Response, Error> {
        let bytes = self
            .out
            .into_inner()
            .map_err(|e| Error::internal(format!("cannot write CSV: {e}")))?;
        Ok((
            [
                (CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
                (
                    CONTENT_DISPOSITION,
                    format!("attachment; filename=\"{}\"", self.file_name),
                ),
            ],
            bytes,
        )
            .into_response())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_formula_start_is_quoted() {
        for start in ["=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠"] {
            let text = format!("{start}HYPERLINK(\"https://e.example\")");
            assert_eq!(guarded(&text), format!("'{text}"), "{start:?}");
        }
        for plain in ["orders", "", " =1", "1-2", "a@b", "'quoted"] {
            assert_eq!(guarded(plain), plain);
        }
    }

    #[tokio::test]
    async fn header_rows_and_every_cell_are_guarded() {
        let mut file = Csv::new("x.csv");
        file.row(["=name", "@type", "+id", "kind"]).unwrap();
        file.row(["-1", "\tcmd", "\r=2", "plain"]).unwrap();
        let response = file.into_response().unwrap();
        assert_eq!(
            response.headers()[CONTENT_DISPOSITION],
            "attachment; filename=\"x.csv\""
        );
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(&body[..]);
        let rows: Vec<Vec<String>> = reader
            .records()
            .map(|r| r.unwrap().iter().map(str::to_owned).collect())
            .collect();
        assert_eq!(
            rows,
            [
                vec!["'=name", "'@type", "'+id", "kind"],
                vec!["'-1", "'\tcmd", "'\r=2", "plain"],
            ]
        );
    }
}
