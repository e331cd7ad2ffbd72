//! A whole MQL query as one text (`SELECT ... FROM ... WHERE ... ORDER BY ...`), as the
//! search page's MQL box shows it, split into the clauses the catalog's calls take. The
//! clauses themselves are parsed by the catalog, as for `executeMQLQuery`.

use lore_core::Error;

/// The clauses of a query, owned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnedFields {
    pub select: String,
    pub from: Option<String>,
    pub context: Option<String>,
    pub filter: Option<String>,
    pub order_by: Option<String>,
}

/// An MQL text literal: single quotes, a quote inside doubled.
pub fn mql_literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Clause {
    Select,
    From,
    Context,
    Where,
    OrderBy,
}

/// Splits a query at its clause keywords: at depth 0 (outside parentheses, as in a scope
/// filter's `WHERE (...)`), outside quotes, on word boundaries, case-insensitively.
pub fn split_query(text: &str) -> Result<OwnedFields, Error> {
    let bytes = text.as_bytes();
    let mut marks: Vec<(Clause, usize, usize)> = Vec::new();
    let mut depth = 0i32;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\'' | b'"' => {
                // Skip the quoted text; a doubled quote stays inside.
                i += 1;
                while i < bytes.len() {
                    if bytes[i] == c {
                        if bytes.get(i + 1) == Some(&c) {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i += 1;
                continue;
            }
            b'(' => depth += 1,
            b')' => depth -= 1,
            _ => {}
        }
        let boundary = i == 0 || !is_word(bytes[i - 1]);
        if depth == 0
            && boundary
            && let Some((clause, len)) = keyword_at(text, i)
        {
            marks.push((clause, i, i + len));
            i += len;
            continue;
        }
        i += 1;
    }
    let Some(&(first, _, _)) = marks.first() else {
        return Err(Error::invalid(
            "the query must start with SELECT: SELECT ... [FROM ...] [WHERE ...] [ORDER BY ...]",
        ));
    };
    if first != Clause::Select || !text[..marks[0].1].trim().is_empty() {
        return Err(Error::invalid("the query must start with SELECT"));
    }
    let mut fields = OwnedFields::default();
    for (n, &(clause, _, body_start)) in marks.iter().enumerate() {
        let end = marks.get(n + 1).map_or(text.len(), |m| m.1);
        let body = text[body_start..end].trim().to_owned();
        let slot = match clause {
            Clause::Select => {
                if n != 0 {
                    return Err(Error::invalid("SELECT may appear only once, at the start"));
                }
                fields.select = body;
                continue;
            }
            Clause::From => &mut fields.from,
            Clause::Context => &mut fields.context,
            Clause::Where => &mut fields.filter,
            Clause::OrderBy => &mut fields.order_by,
        };
        if slot.is_some() {
            return Err(Error::invalid(format!(
                "{} appears twice",
                match clause {
                    Clause::From => "FROM",
                    Clause::Context => "CONTEXT",
                    Clause::Where => "WHERE",
                    _ => "ORDER BY",
                }
            )));
        }
        *slot = Some(body);
    }
    Ok(fields)
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The clause keyword at `at`, with its length, when one starts there and ends on a word
/// boundary.
fn keyword_at(text: &str, at: usize) -> Option<(Clause, usize)> {
    let rest = &text[at..];
    let word_end = |len: usize| rest.as_bytes().get(len).is_none_or(|b| !is_word(*b));
    for (word, clause) in [
        ("SELECT", Clause::Select),
        ("FROM", Clause::From),
        ("CONTEXT", Clause::Context),
        ("WHERE", Clause::Where),
    ] {
        if rest.len() >= word.len()
            && rest.is_char_boundary(word.len())
            && rest[..word.len()].eq_ignore_ascii_case(word)
            && word_end(word.len())
        {
            return Some((clause, word.len()));
        }
    }
    // ORDER BY, any space between.
    if rest.len() >= 5 && rest.is_char_boundary(5) && rest[..5].eq_ignore_ascii_case("ORDER") {
        let after = &rest[5..];
        let spaces = after.len() - after.trim_start().len();
        if spaces > 0 {
            let by = &after[spaces..];
            if by.len() >= 2
                && by.is_char_boundary(2)
                && by[..2].eq_ignore_ascii_case("BY")
                && by.as_bytes().get(2).is_none_or(|b| !is_word(*b))
            {
                return Some((Clause::OrderBy, 5 + spaces + 2));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses_split_outside_quotes_and_parentheses() {
        let q = split_query(
            "select Name, \"Where Used\" FROM '/Sales' (Model = WHERE (Name = 'a')) \
             WHERE Name = 'order by where' AND text = 'from' order  by Name desc",
        )
        .unwrap();
        assert_eq!(q.select, "Name, \"Where Used\"");
        assert_eq!(
            q.from.as_deref(),
            Some("'/Sales' (Model = WHERE (Name = 'a'))")
        );
        assert_eq!(
            q.filter.as_deref(),
            Some("Name = 'order by where' AND text = 'from'")
        );
        assert_eq!(q.order_by.as_deref(), Some("Name desc"));
        assert_eq!(q.context, None);
    }

    #[test]
    fn a_query_starts_with_select_once() {
        assert!(split_query("Name WHERE x = 1").is_err());
        assert!(split_query("").is_err());
        assert!(split_query("SELECT a WHERE b = 1 WHERE c = 2").is_err());
        assert_eq!(split_query("SELECT Fromage").unwrap().select, "Fromage");
    }

    #[test]
    fn literals_double_their_quotes() {
        assert_eq!(mql_literal("O'Brien"), "'O''Brien'");
    }
}
