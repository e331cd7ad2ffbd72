//! Splitting a script into statements, parsing them, and placing them on lines.

use sqlparser::ast::Statement;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

use crate::{Dialect, Problem};

/// The most operator tokens one statement may have. sqlparser builds chains of binary
/// operators, subscripts and UNIONs iteratively, so their syntax tree can be far deeper than its
/// recursion limit; dropping such a tree recurses once per level and would exhaust a
/// 2 MiB thread stack somewhere past 20,000 levels. Statements over this bound are
/// reported instead of parsed.
pub(crate) const MAX_OPERATORS: usize = 10_000;

/// A parsed statement and where it starts.
#[derive(Debug)]
pub(crate) struct Located {
    pub statement: Statement,
    /// 1-based line.
    pub line: usize,
    /// Its first words.
    pub start: String,
}

#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub statements: Vec<Located>,
    pub problems: Vec<Problem>,
}

/// Parses a script: whole if it can, else statement by statement (split on `;` outside
/// quotes, dollar-quoted bodies and comments), so that one bad statement does not lose
/// the others.
pub(crate) fn parse_script(sql: &str, dialect: Dialect) -> Parsed {
    let pd = dialect.parser_dialect();
    let lines = LineIndex::new(sql);
    if let Ok(tokens) = Tokenizer::new(pd.as_ref(), sql).tokenize_with_location()
        && max_operators_per_statement(&tokens) <= MAX_OPERATORS
        && let Ok(stmts) = parse_tokens(pd.as_ref(), tokens)
    {
        let statements = stmts
            .into_iter()
            .map(|(line, col, statement)| {
                let offset = lines.offset(line, col).unwrap_or(0);
                Located {
                    statement,
                    line: line.max(1),
                    start: first_words(sql.get(offset..).unwrap_or("")),
                }
            })
            .collect();
        return Parsed {
            statements,
            problems: Vec::new(),
        };
    }
    let mut out = Parsed::default();
    for range in split_text(sql, dialect) {
        let chunk = &sql[range.clone()];
        let Some(code) = first_code(chunk) else {
            continue;
        };
        let begin = range.start + code;
        let text = &sql[begin..range.end];
        let (line, column) = lines.line_col(begin);
        let start = first_words(text);
        let problem = |message: String| Problem {
            line,
            start: start.clone(),
            message,
        };
        let tokens = match Tokenizer::new(pd.as_ref(), text).tokenize_with_location() {
            Ok(t) => t,
            Err(e) => {
                out.problems
                    .push(problem(shift_positions(&e.to_string(), line, column)));
                continue;
            }
        };
        let operators = max_operators_per_statement(&tokens);
        if operators > MAX_OPERATORS {
            out.problems.push(problem(format!(
                "the statement has more than {MAX_OPERATORS} operators; it is not analysed"
            )));
            continue;
        }
        match parse_tokens(pd.as_ref(), tokens) {
            Ok(stmts) => {
                for (l, c, statement) in stmts {
                    let abs_line = line + l.max(1) - 1;
                    let abs_col = if l <= 1 { column + c.max(1) - 1 } else { c };
                    let offset = lines.offset(abs_line, abs_col).unwrap_or(begin);
                    out.statements.push(Located {
                        statement,
                        line: abs_line,
                        start: first_words(sql.get(offset..).unwrap_or("")),
                    });
                }
            }
            Err(e) => {
                out.problems
                    .push(problem(shift_positions(&parser_message(&e), line, column)))
            }
        }
    }
    out
}

/// Parses statements separated by semicolons, noting where each starts (line, column).
fn parse_tokens(
    dialect: &dyn sqlparser::dialect::Dialect,
    tokens: Vec<TokenWithSpan>,
) -> Result<Vec<(usize, usize, Statement)>, ParserError> {
    let mut parser = Parser::new(dialect).with_tokens_with_locations(tokens);
    let mut out = Vec::new();
    loop {
        while parser.consume_token(&Token::SemiColon) {}
        let next = parser.peek_token();
        if next.token == Token::EOF {
            break;
        }
        let line = usize::try_from(next.span.start.line).unwrap_or(usize::MAX);
        let column = usize::try_from(next.span.start.column).unwrap_or(usize::MAX);
        let statement = parser.parse_statement()?;
        out.push((line, column, statement));
        let next = parser.peek_token();
        if !matches!(next.token, Token::SemiColon | Token::EOF) {
            return parser.expected("end of statement", next);
        }
    }
    Ok(out)
}

/// The largest number of operator tokens between two semicolons.
fn max_operators_per_statement(tokens: &[TokenWithSpan]) -> usize {
    let mut max = 0;
    let mut count = 0usize;
    for t in tokens {
        match &t.token {
            Token::SemiColon => {
                max = max.max(count);
                count = 0;
            }
            Token::Word(w) => {
                if matches!(
                    w.keyword,
                    Keyword::AND
                        | Keyword::OR
                        | Keyword::XOR
                        | Keyword::NOT
                        | Keyword::IS
                        | Keyword::LIKE
                        | Keyword::ILIKE
                        | Keyword::BETWEEN
                        | Keyword::IN
                        | Keyword::UNION
                        | Keyword::EXCEPT
                        | Keyword::INTERSECT
                        | Keyword::MINUS
                        | Keyword::COLLATE
                        | Keyword::AT
                        | Keyword::DIV
                        | Keyword::MOD
                ) {
                    count += 1;
                }
            }
            Token::EOF
            | Token::Number(..)
            | Token::Comma
            | Token::Whitespace(_)
            | Token::LParen
            | Token::RParen
            | Token::Period
            | Token::RBracket
            | Token::LBrace
            | Token::RBrace
            | Token::SingleQuotedString(_)
            | Token::DoubleQuotedString(_)
            | Token::DollarQuotedString(_)
            | Token::NationalStringLiteral(_)
            | Token::EscapedStringLiteral(_)
            | Token::HexStringLiteral(_)
            | Token::Placeholder(_) => {}
            _ => count += 1,
        }
    }
    max.max(count)
}

/// The parser's message without its "sql parser error: " prefix.
fn parser_message(e: &ParserError) -> String {
    match e {
        ParserError::TokenizerError(s) | ParserError::ParserError(s) => s.clone(),
        ParserError::RecursionLimitExceeded => {
            "the statement is nested too deeply (recursion limit exceeded)".to_string()
        }
    }
}

/// Rewrites " at Line: L, Column: C" positions of a message about a chunk that starts at
/// (`line`, `column`) of the whole text into positions in the whole text.
fn shift_positions(message: &str, line: usize, column: usize) -> String {
    const MARK: &str = " at Line: ";
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find(MARK) {
        out.push_str(&rest[..i + MARK.len()]);
        rest = &rest[i + MARK.len()..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let Ok(l) = rest[..digits].parse::<usize>() else {
            continue;
        };
        rest = &rest[digits..];
        let abs_line = line.saturating_add(l.max(1) - 1);
        out.push_str(&abs_line.to_string());
        const COL: &str = ", Column: ";
        if let Some(after) = rest.strip_prefix(COL) {
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            if let Ok(c) = after[..digits].parse::<usize>() {
                let abs_col = if l <= 1 {
                    column.saturating_add(c.max(1) - 1)
                } else {
                    c
                };
                out.push_str(COL);
                out.push_str(&abs_col.to_string());
                rest = &after[digits..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The first words of a statement, whitespace collapsed, at most 60 characters.
pub(crate) fn first_words(text: &str) -> String {
    const MAX: usize = 60;
    let text = match first_code(text) {
        Some(i) => &text[i..],
        None => text,
    };
    let mut out = String::new();
    for word in text.split_whitespace() {
        let needed = if out.is_empty() { 0 } else { 1 } + word.chars().count();
        if out.chars().count() + needed > MAX {
            if out.is_empty() {
                out.extend(word.chars().take(MAX));
            }
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Offset of the first character that is neither whitespace nor in a comment.
pub(crate) fn first_code(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            c if c.is_ascii_whitespace() => i += 1,
            b'-' if b.get(i + 1) == Some(&b'-') => {
                i = skip_line(b, i);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = skip_block_comment(b, i);
            }
            _ => {
                // Non-ASCII whitespace (e.g. a no-break space) counts as whitespace too.
                let rest = &text[i..];
                match rest.chars().next() {
                    Some(c) if c.is_whitespace() => i += c.len_utf8(),
                    _ => return Some(i),
                }
            }
        }
    }
    None
}

fn skip_line(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b'\n' {
        i += 1;
    }
    i
}

/// From `/*` at `i` to past its (possibly nested) `*/`, or to the end.
fn skip_block_comment(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            depth += 1;
            i += 2;
        } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
            depth = depth.saturating_sub(1);
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    b.len()
}

/// Splits a script on `;` outside quotes ('...', "...", `...`), dollar-quoted bodies
/// (`$$...$$`, `$tag$...$tag$`) and comments. Each range excludes its `;`.
pub(crate) fn split_text(sql: &str, dialect: Dialect) -> Vec<std::ops::Range<usize>> {
    let b = sql.as_bytes();
    let backslash = dialect.backslash_escapes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b';' => {
                out.push(start..i);
                i += 1;
                start = i;
            }
            b'-' if b.get(i + 1) == Some(&b'-') => i = skip_line(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => i = skip_block_comment(b, i),
            q @ (b'\'' | b'"' | b'`') => {
                // E'...' strings take backslash escapes in PostgreSQL too.
                let escapes = backslash
                    || (q == b'\''
                        && i > 0
                        && matches!(b[i - 1], b'e' | b'E')
                        && (i < 2 || !is_ident_byte(b[i - 2])));
                i = skip_quoted(b, i, q, escapes && q != b'`');
            }
            b'$' => match dollar_tag(b, i) {
                Some(tag_len) => {
                    let tag = &b[i..i + tag_len];
                    let body = i + tag_len;
                    i = find(b, body, tag).map_or(b.len(), |end| end + tag_len);
                }
                None => i += 1,
            },
            _ => i += 1,
        }
    }
    if start < b.len() {
        out.push(start..b.len());
    }
    out
}

/// From an opening quote at `i` to past its closing one (a doubled quote is an escaped
/// one), or to the end.
fn skip_quoted(b: &[u8], mut i: usize, quote: u8, backslash: bool) -> usize {
    i += 1;
    while i < b.len() {
        if backslash && b[i] == b'\\' {
            i += 2;
        } else if b[i] == quote {
            if b.get(i + 1) == Some(&quote) {
                i += 2;
            } else {
                return i + 1;
            }
        } else {
            i += 1;
        }
    }
    b.len()
}

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// The length of a dollar-quote tag (`$$` or `$name$`) starting at `i`, if there is one.
fn dollar_tag(b: &[u8], i: usize) -> Option<usize> {
    if i > 0 && is_ident_byte(b[i - 1]) {
        return None; // part of an identifier such as a$b
    }
    let mut j = i + 1;
    while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
        j += 1;
    }
    if j < b.len() && b[j] == b'$' && !(j > i + 1 && b[i + 1].is_ascii_digit()) {
        Some(j + 1 - i)
    } else {
        None
    }
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || from >= hay.len() {
        return None;
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Byte offsets of line starts, to turn offsets into lines and back.
struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, c)| *c == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { text, starts }
    }

    /// 1-based line and (character) column of a byte offset.
    fn line_col(&self, offset: usize) -> (usize, usize) {
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.starts.get(line).copied().unwrap_or(0);
        let column = self
            .text
            .get(start..offset)
            .map_or(1, |s| s.chars().count() + 1);
        (line + 1, column)
    }

    /// The byte offset of a 1-based line and character column.
    fn offset(&self, line: usize, column: usize) -> Option<usize> {
        let start = *self.starts.get(line.checked_sub(1)?)?;
        let rest = self.text.get(start..)?;
        let skip = column.saturating_sub(1);
        match rest.char_indices().nth(skip) {
            Some((i, _)) => Some(start + i),
            None => Some(self.text.len()),
        }
    }
}

/// A statement's kind in words, its first keywords as SQL writes them ("ALTER TABLE").
pub(crate) fn statement_kind_name(statement: &Statement) -> String {
    let text = statement.to_string();
    let words: Vec<&str> = text
        .split_whitespace()
        .take_while(|w| w.chars().all(|c| c.is_ascii_alphabetic() || c == '_'))
        .take(2)
        .collect();
    let name = words.join(" ").to_uppercase();
    // "CREATE OR" / "CREATE TEMPORARY" say little; keep the first word then.
    match words.first().map(|w| w.to_ascii_uppercase()).as_deref() {
        Some("CREATE" | "ALTER" | "DROP") => name,
        Some(first) => first.to_string(),
        None => "UNKNOWN".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_outside_quotes_comments_and_dollar_bodies() {
        let sql = "select ';' ; -- a ; comment\nselect $$ a; b $$; /* ; */ select \"x;y\"; \
                   create function f() returns int as $body$ begin; end $body$ language plpgsql;";
        let parts: Vec<&str> = split_text(sql, Dialect::Postgres)
            .into_iter()
            .map(|r| sql[r].trim())
            .collect();
        assert_eq!(parts.len(), 4, "{parts:?}");
        assert_eq!(parts[0], "select ';'");
        assert!(parts[1].ends_with("select $$ a; b $$"), "{}", parts[1]);
        assert!(parts[2].ends_with("select \"x;y\""), "{}", parts[2]);
        assert!(parts[3].ends_with("language plpgsql"), "{}", parts[3]);
    }

    #[test]
    fn first_words_are_bounded() {
        assert_eq!(
            first_words("  -- c\n SELECT   a,\n b FROM t"),
            "SELECT a, b FROM t"
        );
        let long = "x".repeat(100);
        assert_eq!(first_words(&long).len(), 60);
        let many = "word ".repeat(40);
        assert!(first_words(&many).len() <= 60);
    }

    #[test]
    fn positions_are_shifted() {
        assert_eq!(
            shift_positions("Expected: x, found: y at Line: 1, Column: 5", 10, 3),
            "Expected: x, found: y at Line: 10, Column: 7"
        );
        assert_eq!(
            shift_positions("bad at Line: 2, Column: 5", 10, 3),
            "bad at Line: 11, Column: 5"
        );
    }

    #[test]
    fn unterminated_things_do_not_panic() {
        for sql in [
            "'abc",
            "$$ abc",
            "/* abc",
            "\"abc",
            "$a$ x $b$",
            "é'",
            "$",
            ";;;",
        ] {
            let _ = split_text(sql, Dialect::Postgres);
            let _ = parse_script(sql, Dialect::Postgres);
        }
    }
}
