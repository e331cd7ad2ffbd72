//! The MQL grammar, written with combine.
//!
//! Each clause has its own entry point because the query endpoints carry the clauses as
//! separate fields: [`parse_select`], [`parse_from`], [`parse_where`] (also for the
//! `scope` field), [`parse_order_by`]; [`parse_query`] reads a whole query written as
//! text. Keywords, operators, function names and WITHIN properties are read without
//! regard to case; names, values and from ids keep theirs. Whitespace between tokens is
//! optional wherever the tokens stay apart (`Name='x'`, `=ANY('a')`).
//!
//! A defect is a [`SyntaxError`] naming the line and column (1-based, in characters),
//! what was expected and what was found. No input makes the parser panic: the input's
//! length and its parenthesis depth are checked before the grammar runs, and nested
//! input is parsed on a short-lived thread whose stack is sized for its depth.
//! [`parse_fields`] assembles a query from the endpoints' fields, with errors that name
//! the field.

use std::fmt::{self, Display, Formatter};

use chrono::NaiveDate;
use combine::error::Format;
use combine::parser::char::{char as token, digit, string, string_cmp};
use combine::parser::choice::{choice, optional};
use combine::parser::combinator::{attempt, look_ahead, not_followed_by};
use combine::parser::function::parser as function;
use combine::parser::repeat::{many, many1, sep_by1, skip_many};
use combine::parser::sequence::between;
use combine::parser::token::{eof, satisfy};
use combine::stream::easy;
use combine::stream::position::{self, SourcePosition};
use combine::{Parser, StdParseResult};

use super::ast::{
    Direction, Expr, Filter, FromClause, Name, Notation, Op, OrderKey, Path, Query, SelectItem,
    SourceId, Subject, TimeUnit, Value, is_reserved, is_word_char,
};
use lore_model::error::Error;

/// The longest input accepted, in characters.
pub const MAX_INPUT_CHARS: usize = 100_000;

/// The deepest nesting of parentheses accepted.
pub const MAX_DEPTH: usize = 64;

/// The most parts a path may have: a related object type or profile, and a name; a
/// third part allows a profile-qualified property of a related object type.
pub const MAX_PATH_PARTS: usize = 3;

/// What the grammar reads: characters, with their line and column, and combine's
/// error type that lists what was expected.
type Input<'a> = easy::Stream<position::Stream<&'a str, SourcePosition>>;

/// The error type of a failed `and_then` check.
type CheckError<'a> = easy::Error<char, &'a str>;

/// A syntax error: where it is and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
    /// What the grammar expected there, e.g. `'='` or `a value in single quotes`.
    pub expected: Vec<String>,
    /// The text found there (a word, a quoted value or one character); empty at the end
    /// of the input.
    pub found: String,
    /// A message that replaces "expected ..., found ..." when the text has the right
    /// shape but is wrong (a date that does not exist, a query too long or too deep).
    pub message: Option<String>,
}

impl std::error::Error for SyntaxError {}

impl Display for SyntaxError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: ", self.line, self.column)?;
        if let Some(message) = &self.message {
            return f.write_str(message);
        }
        if !self.expected.is_empty() {
            write!(f, "expected {}, ", join_or(&self.expected))?;
        }
        if self.found.is_empty() {
            f.write_str("found end of input")
        } else {
            if self.found.starts_with(['\'', '"']) {
                write!(f, "found {}", self.found)?;
            } else {
                write!(f, "found '{}'", self.found)?;
            }
            if is_reserved(&self.found) {
                f.write_str(" (a reserved word: quote it to use it as a name or value)")?;
            }
            Ok(())
        }
    }
}

impl From<SyntaxError> for Error {
    fn from(error: SyntaxError) -> Self {
        Error::invalid(format!("invalid MQL: {error}"))
    }
}

/// Joins alternatives as `a, b or c`.
fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [only] => only.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Parses a SELECT list: attribute paths and `MembersOfRole(...)`, `Count(...)` calls
/// separated by commas, without the SELECT keyword.
pub fn parse_select(text: &str) -> Result<Vec<SelectItem>, SyntaxError> {
    run(text, select_list)
}

/// Parses the `from` field: a from id (a repository path, an object id or a stable id,
/// bare or quoted) and optional scope filters in parentheses after it.
pub fn parse_from(text: &str) -> Result<FromClause, SyntaxError> {
    run(text, from_clause)
}

/// Parses a WHERE clause, or scope filters, without the WHERE keyword.
pub fn parse_where(text: &str) -> Result<Expr, SyntaxError> {
    run(text, expr)
}

/// Parses an ORDER BY list without the ORDER BY keywords: `Name asc`, `Name desc`,
/// `Relevance`, `"Updated Date"`.
pub fn parse_order_by(text: &str) -> Result<Vec<OrderKey>, SyntaxError> {
    run(text, order_keys)
}

/// The clauses of a query as the query endpoints carry them, one field each, without
/// the SELECT, FROM, WHERE or ORDER BY keywords. A blank optional field counts as absent.
#[derive(Debug, Clone, Copy, Default)]
pub struct QueryFields<'a> {
    /// `select`
    pub select: &'a str,
    /// `from`: the from id, with optional scope filters in parentheses.
    pub from: Option<&'a str>,
    /// `scope`: scope filters.
    pub scope: Option<&'a str>,
    /// `context`
    pub context: Option<&'a str>,
    /// `where`
    pub filter: Option<&'a str>,
    /// `orderby`
    pub order_by: Option<&'a str>,
}

/// Parses the fields of a query. An error is INVALID_PARAMETER naming the field and the
/// place in it (`invalid MQL in 'where': line 1, column 8: ...`), or
/// REQUIRED_PARAMETER_NOT_SPECIFIED for a blank `select`. Scope filters in both `from`
/// and `scope` must both hold; `scope` without `from` is an error.
pub fn parse_fields(fields: &QueryFields<'_>) -> Result<Query, Error> {
    if fields.select.trim().is_empty() {
        return Err(Error::missing("select"));
    }
    let select = field("select", Some(fields.select), parse_select)?.unwrap_or_default();
    let mut from = field("from", fields.from, parse_from)?;
    if let Some(scope) = field("scope", fields.scope, parse_where)? {
        let Some(from) = from.as_mut() else {
            return Err(Error::invalid("invalid MQL: 'scope' needs 'from'"));
        };
        from.scope = Some(match from.scope.take() {
            Some(inline) => Expr::And(vec![inline, scope]),
            None => scope,
        });
    }
    Ok(Query {
        select,
        from,
        context: field("context", fields.context, parse_context)?,
        filter: field("where", fields.filter, parse_where)?,
        order_by: field("orderby", fields.order_by, parse_order_by)?.unwrap_or_default(),
    })
}

/// Parses one field when it is present and not blank.
fn field<T>(
    name: &str,
    text: Option<&str>,
    parse: fn(&str) -> Result<T, SyntaxError>,
) -> Result<Option<T>, Error> {
    match text {
        Some(text) if !text.trim().is_empty() => parse(text)
            .map(Some)
            .map_err(|error| Error::invalid(format!("invalid MQL in '{name}': {error}"))),
        _ => Ok(None),
    }
}

/// Parses the from id or path of the CONTEXT clause (the `context` parameter).
pub fn parse_context(text: &str) -> Result<SourceId, SyntaxError> {
    run(text, source_id)
}

/// Parses a whole query written as text:
/// `SELECT ... FROM ... [CONTEXT ...] [WHERE ...] [ORDER BY ...]`.
pub fn parse_query(text: &str) -> Result<Query, SyntaxError> {
    run(text, || query(true))
}

/// Parses a whole query written as text whose FROM clause may be absent, as the query
/// endpoints take it: `SELECT ... [FROM ...] [CONTEXT ...] [WHERE ...] [ORDER BY ...]`
/// (the web UI's MQL box, saved worksheets written as one text).
pub fn parse_text(text: &str) -> Result<Query, SyntaxError> {
    run(text, || query(false))
}

/// A whole query; FROM required or not.
fn query<'a>(from_required: bool) -> impl Parser<Input<'a>, Output = Query> {
    let from = keyword("FROM").with(from_clause());
    let from = if from_required {
        from.map(Some).left()
    } else {
        optional(from).right()
    };
    (
        keyword("SELECT"),
        select_list(),
        from,
        optional(keyword("CONTEXT").with(source_id())),
        optional(keyword("WHERE").with(expr())),
        optional((keyword("ORDER"), keyword("BY")).with(order_keys())),
    )
        .map(|(_, select, from, context, filter, order_by)| Query {
            select,
            from,
            context,
            filter,
            order_by: order_by.unwrap_or_default(),
        })
}

/// Nesting up to this depth is parsed on the calling thread.
const INLINE_DEPTH: usize = 2;

/// The stack a parse needs besides its nesting, and per level of nesting, with a wide
/// margin: combine's parsers are deep, and a debug build measured about 240 KiB for a
/// parse plus about 100 KiB per level of scope filters (`Model = WHERE (...)`).
const STACK_BASE: usize = 1024 * 1024;
const STACK_PER_LEVEL: usize = 256 * 1024;

/// Checks the limits, then runs the parser `make` builds over the whole of `text`.
///
/// Each level of parentheses costs the grammar's recursion a lot of stack, so deeply
/// nested input is parsed on a short-lived thread whose stack is sized for its depth.
fn run<'a, P, F>(text: &'a str, make: F) -> Result<P::Output, SyntaxError>
where
    F: FnOnce() -> P + Send,
    P: Parser<Input<'a>>,
    P::Output: Send,
{
    let depth = check_limits(text)?;
    if depth <= INLINE_DEPTH {
        return parse_all(text, make());
    }
    let stack = STACK_BASE + depth * STACK_PER_LEVEL;
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("mql-parse".to_owned())
            .stack_size(stack)
            .spawn_scoped(scope, move || parse_all(text, make()))
            .ok()
            .and_then(|worker| worker.join().ok())
            .unwrap_or_else(|| {
                Err(SyntaxError {
                    line: 1,
                    column: 1,
                    expected: Vec::new(),
                    found: String::new(),
                    message: Some("the query could not be parsed".to_owned()),
                })
            })
    })
}

/// Runs `parser` over the whole of `text`.
fn parse_all<'a, P>(text: &'a str, parser: P) -> Result<P::Output, SyntaxError>
where
    P: Parser<Input<'a>>,
{
    let mut whole = (whitespace(), parser, eof()).map(|(_, output, _)| output);
    let input = easy::Stream(position::Stream::new(text));
    match whole.parse(input) {
        Ok((output, _)) => Ok(output),
        Err(errors) => Err(syntax_error(text, errors)),
    }
}

/// Rejects input longer than [`MAX_INPUT_CHARS`] or nested deeper than [`MAX_DEPTH`],
/// so that the grammar's recursion cannot exhaust the stack; the deepest nesting found.
fn check_limits(text: &str) -> Result<usize, SyntaxError> {
    let (mut line, mut column) = (1, 1);
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut quote: Option<char> = None;
    for (index, c) in text.chars().enumerate() {
        let fail = |message: String| SyntaxError {
            line,
            column,
            expected: Vec::new(),
            found: String::new(),
            message: Some(message),
        };
        if index >= MAX_INPUT_CHARS {
            return Err(fail(format!(
                "the input is longer than {MAX_INPUT_CHARS} characters"
            )));
        }
        match (quote, c) {
            (Some(open), c) if c == open => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') => {
                depth += 1;
                deepest = deepest.max(depth);
                if depth > MAX_DEPTH {
                    return Err(fail(format!(
                        "parentheses are nested deeper than {MAX_DEPTH} levels"
                    )));
                }
            }
            (None, ')') => depth = depth.saturating_sub(1),
            (None, _) => {}
        }
        if c == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    Ok(deepest)
}

/// Turns combine's error into a [`SyntaxError`].
fn syntax_error(text: &str, errors: easy::Errors<char, &str, SourcePosition>) -> SyntaxError {
    let line = usize::try_from(errors.position.line).unwrap_or(1);
    let column = usize::try_from(errors.position.column).unwrap_or(1);
    let mut expected: Vec<String> = Vec::new();
    let mut message = None;
    for error in &errors.errors {
        match error {
            easy::Error::Expected(info) => {
                let info = info_text(info);
                if !info.starts_with("whitespace") && !expected.contains(&info) {
                    expected.push(info);
                }
            }
            easy::Error::Message(info) => {
                message.get_or_insert_with(|| info_text(info));
            }
            easy::Error::Other(other) => {
                message.get_or_insert_with(|| other.to_string());
            }
            easy::Error::Unexpected(_) => {}
        }
    }
    tidy_expected(&mut expected);
    SyntaxError {
        line,
        column,
        expected,
        found: found_at(text, line, column),
        message,
    }
}

/// Drops what the grammar's own labels already say: combine also reports the raw
/// tokens its matchers tried (unquoted, e.g. `)` or `WHERE`), and the alternatives
/// that a descriptive label such as "an operator" stands for.
fn tidy_expected(expected: &mut Vec<String>) {
    expected.retain(|e| e.starts_with('\'') || e.starts_with(char::is_lowercase));
    let covered: Vec<&str> = COVERS
        .iter()
        .filter(|(label, _)| expected.iter().any(|e| e == label))
        .flat_map(|(_, words)| words.iter().copied())
        .collect();
    expected.retain(|e| !covered.contains(&e.as_str()));
    // After a condition only AND, OR or what ends it may follow, never another one;
    // combine also lists the start of the condition it would read after AND or OR.
    let after_condition = ["'AND'", "'OR'"]
        .iter()
        .all(|word| expected.iter().any(|e| e == word));
    if after_condition {
        expected.retain(|e| e != "'('" && e != FILTER);
    }
}

/// Labels and the expected items each stands for.
const COVERS: &[(&str, &[&str])] = &[
    (
        VALUE,
        &[
            "'ME'",
            "'TODAY'",
            "'YESTERDAY'",
            "'LAST'",
            "'WHERE'",
            "'ANY'",
            "'ALL'",
        ],
    ),
    (
        OPERATOR,
        &[
            "'.'",
            "'!='",
            "'<>'",
            "'<='",
            "'>='",
            "'<'",
            "'>'",
            "'='",
            "'EXISTS'",
            "'NOT'",
            "'STARTS'",
            "'ENDS'",
            "'CONTAINS'",
            "'BEFORE'",
            "'AFTER'",
            "'BETWEEN'",
        ],
    ),
    (
        FILTER,
        &[
            "'COUNT'",
            "'TEXT'",
            "'SEMANTIC_SEARCH_TEXT'",
            "'CATEGORY'",
            "'CONTENT'",
            "'EXPANDEDMEMBERSOFROLE'",
            NAME,
        ],
    ),
    (SELECT_ITEM, &["'COUNT'", "'MEMBERSOFROLE'", NAME]),
    (ORDER_KEY, &["'RELEVANCE'", NAME]),
    (
        TIME_UNIT,
        &[
            "'DAYS'",
            "'DAY'",
            "'HOURS'",
            "'HOUR'",
            "'MINUTES'",
            "'MINUTE'",
        ],
    ),
];

/// The labels of the grammar's alternatives.
const OPERATOR: &str = "an operator";
const FILTER: &str = "a filter (an attribute name, text, category, content or a function)";
const NAME: &str = "an attribute name";
const SELECT_ITEM: &str = "an attribute name or a function";
const ORDER_KEY: &str = "an attribute name or Relevance";
const TIME_UNIT: &str = "a time unit (DAYS, HOURS or MINUTES)";

/// The text of one piece of combine's error information.
fn info_text(info: &easy::Info<char, &str>) -> String {
    match info {
        easy::Info::Token(c) => format!("'{c}'"),
        easy::Info::Range(range) => format!("'{range}'"),
        easy::Info::Owned(text) => text.clone(),
        easy::Info::Static(text) => (*text).to_owned(),
    }
}

/// The longest text [`found_at`] reports.
const FOUND_CHARS: usize = 40;

/// What stands at `line`, `column` of `text`: a word, a quoted value or one character;
/// empty at the end of the input.
fn found_at(text: &str, line: usize, column: usize) -> String {
    let Some(line_text) = text.split('\n').nth(line.saturating_sub(1)) else {
        return String::new();
    };
    let mut rest = line_text.chars().skip(column.saturating_sub(1)).peekable();
    let Some(&first) = rest.peek() else {
        // At the end of a line that is not the last, the newline itself is found.
        let last_line = text.split('\n').count() == line;
        return if last_line {
            String::new()
        } else {
            "\\n".to_owned()
        };
    };
    let found: String = if is_word_char(first) {
        rest.take_while(|&c| is_word_char(c)).collect()
    } else if first == '\'' || first == '"' {
        let mut quoted = String::from(first);
        quoted.extend(rest.skip(1).take_while(|&c| c != first));
        quoted.push(first);
        quoted
    } else {
        first.to_string()
    };
    if found.chars().count() > FOUND_CHARS {
        let mut cut: String = found.chars().take(FOUND_CHARS).collect();
        cut.push_str("...");
        cut
    } else {
        found
    }
}

/// Skips whitespace, silently: "whitespace" is never what a query is missing.
fn whitespace<'a>() -> impl Parser<Input<'a>, Output = ()> {
    skip_many(satisfy(|c: char| c.is_whitespace())).silent()
}

/// A symbol such as `!=` or `(`, with the whitespace after it.
fn symbol<'a>(text: &'static str) -> impl Parser<Input<'a>, Output = ()> {
    attempt(string(text))
        .map(|_| ())
        .skip(whitespace())
        .expected(Format(format!("'{text}'")))
}

/// A keyword in any case, not followed by a letter, digit or underscore, with the
/// whitespace after it. `word` is written in upper case.
fn keyword<'a>(word: &'static str) -> impl Parser<Input<'a>, Output = ()> {
    attempt(
        string_cmp(word, |a: char, b: char| a.eq_ignore_ascii_case(&b))
            .skip(not_followed_by(satisfy(is_word_char))),
    )
    .map(|_| ())
    .skip(whitespace())
    .expected(Format(format!("'{word}'")))
}

/// A word: a letter or underscore, then letters, digits and underscores.
fn word<'a>() -> impl Parser<Input<'a>, Output = String> {
    (
        satisfy(|c: char| c.is_alphabetic() || c == '_'),
        many::<String, _, _>(satisfy(is_word_char)),
    )
        .map(|(first, rest)| {
            let mut word = String::with_capacity(rest.len() + 1);
            word.push(first);
            word.push_str(&rest);
            word
        })
}

/// A word that is not a reserved word.
fn unreserved_word<'a>() -> impl Parser<Input<'a>, Output = String> {
    attempt(word().and_then(|word| {
        if is_reserved(&word) {
            Err(CheckError::Unexpected(easy::Info::Static(
                "a reserved word",
            )))
        } else {
            Ok(word)
        }
    }))
}

/// Text between `quote` characters, a doubled `quote` standing for one.
fn quoted<'a>(quote: char, closing: &'static str) -> impl Parser<Input<'a>, Output = String> {
    let inside = choice((
        satisfy(move |c: char| c != quote),
        attempt((token(quote), token(quote))).map(move |_| quote),
    ))
    .silent();
    (
        token(quote),
        many::<String, _, _>(inside),
        token(quote).expected(closing),
    )
        .map(|(_, text, _)| text)
}

/// A name in one of the deprecated notation marks, e.g. `#Object Type#`.
fn marked<'a>(
    open: char,
    close: char,
    notation: Notation,
) -> impl Parser<Input<'a>, Output = Name> {
    (
        token(open),
        many1::<String, _, _>(satisfy(move |c: char| c != close && c != '\n')),
        token(close),
    )
        .map(move |(_, text, _)| Name {
            text,
            quoted: false,
            marks: Some(notation),
        })
}

/// One part of a path: a quoted name, a marked name or an unreserved word.
fn name<'a>() -> impl Parser<Input<'a>, Output = Name> {
    choice((
        quoted('"', "a closing double quote").map(Name::quoted),
        marked('#', '#', Notation::System),
        marked('[', ']', Notation::Profile),
        marked('{', '}', Notation::Custom),
        marked('<', '>', Notation::Udp),
        unreserved_word().map(Name::plain),
    ))
    .skip(whitespace())
    .expected(NAME)
}

/// A path: names joined by dots.
fn path<'a>() -> impl Parser<Input<'a>, Output = Path> {
    sep_by1(name(), symbol(".")).and_then(|names: Vec<Name>| {
        if names.len() > MAX_PATH_PARTS {
            Err(CheckError::Message(easy::Info::Static(
                "a path has at most three parts",
            )))
        } else {
            Ok(Path(names))
        }
    })
}

/// The argument of a function call: `('<text>')`; a double-quoted or bare word is
/// accepted too.
fn call_argument<'a>() -> impl Parser<Input<'a>, Output = String> {
    let argument = choice((
        quoted('\'', "a closing single quote"),
        quoted('"', "a closing double quote"),
        word(),
    ))
    .skip(whitespace())
    .expected("a name in single quotes");
    between(symbol("("), symbol(")"), argument)
}

/// A function name that is not a reserved word (`Count`): a function only when `(`
/// follows, otherwise it is an attribute name.
fn function_name<'a>(word: &'static str) -> impl Parser<Input<'a>, Output = ()> {
    attempt(keyword(word).skip(look_ahead(token('('))))
}

/// The SELECT list.
fn select_list<'a>() -> impl Parser<Input<'a>, Output = Vec<SelectItem>> {
    let item = choice((
        keyword("MEMBERSOFROLE")
            .with(call_argument())
            .map(SelectItem::MembersOfRole),
        function_name("COUNT")
            .with(call_argument())
            .map(SelectItem::Count),
        path().map(SelectItem::Attribute),
    ))
    .expected(SELECT_ITEM);
    sep_by1(item, symbol(","))
}

/// A from id or context: quoted text, or a run of characters up to whitespace, a
/// parenthesis or a comma.
fn source_id<'a>() -> impl Parser<Input<'a>, Output = SourceId> {
    let bare = many1::<String, _, _>(satisfy(|c: char| {
        !c.is_whitespace() && !matches!(c, '(' | ')' | ',' | '\'' | '"')
    }));
    choice((
        quoted('\'', "a closing single quote").map(|text| SourceId { text, quoted: true }),
        quoted('"', "a closing double quote").map(|text| SourceId { text, quoted: true }),
        bare.map(SourceId::plain),
    ))
    .skip(whitespace())
    .expected("a repository path or an object id")
}

/// The FROM clause: a from id, then optional scope filters in parentheses.
fn from_clause<'a>() -> impl Parser<Input<'a>, Output = FromClause> {
    (
        source_id(),
        optional(between(symbol("("), symbol(")"), nested_expr())),
    )
        .map(|(id, scope)| FromClause { id, scope })
}

/// The ORDER BY list.
fn order_keys<'a>() -> impl Parser<Input<'a>, Output = Vec<OrderKey>> {
    let direction = choice((
        keyword("ASC").map(|_| Direction::Asc),
        keyword("DESC").map(|_| Direction::Desc),
    ));
    let key = choice((
        attempt(keyword("RELEVANCE").skip(not_followed_by(token('.'))))
            .map(|_| OrderKey::Relevance),
        (path(), optional(direction))
            .map(|(path, direction)| OrderKey::Attribute { path, direction }),
    ))
    .expected(ORDER_KEY);
    sep_by1(key, symbol(","))
}

/// A condition: filters and parenthesised conditions joined by AND and OR; AND binds
/// before OR.
fn expr<'a>() -> impl Parser<Input<'a>, Output = Expr> {
    let connective = choice((
        keyword("AND").map(|_| Connective::And),
        keyword("OR").map(|_| Connective::Or),
    ));
    (primary(), many::<Vec<_>, _, _>((connective, primary())))
        .map(|(first, rest)| precedence(first, rest))
}

/// A word joining two conditions.
enum Connective {
    And,
    Or,
}

/// Groups a run of conditions: the runs joined by AND, then those joined by OR.
fn precedence(first: Expr, rest: Vec<(Connective, Expr)>) -> Expr {
    let mut alternatives = Vec::new();
    let mut conjunction = vec![first];
    for (connective, operand) in rest {
        if let Connective::Or = connective {
            alternatives.push(join(std::mem::take(&mut conjunction), Expr::And));
        }
        conjunction.push(operand);
    }
    alternatives.push(join(conjunction, Expr::And));
    join(alternatives, Expr::Or)
}

/// A filter or a condition in parentheses.
fn primary<'a>() -> impl Parser<Input<'a>, Output = Expr> {
    choice((
        between(symbol("("), symbol(")"), nested_expr()),
        filter().map(Expr::Filter),
    ))
}

/// [`expr`] behind a function, which breaks the recursion of the parser's type.
fn nested_expr<'a>() -> impl Parser<Input<'a>, Output = Expr> {
    function(expr_stream)
}

/// Runs [`expr`] on the input; see [`nested_expr`].
fn expr_stream<'a>(input: &mut Input<'a>) -> StdParseResult<Expr, Input<'a>> {
    expr().parse_stream(input).into_result()
}

/// The one condition of `parts`, or `group` of all of them.
fn join(parts: Vec<Expr>, group: fn(Vec<Expr>) -> Expr) -> Expr {
    match <[Expr; 1]>::try_from(parts) {
        Ok([only]) => only,
        Err(parts) => group(parts),
    }
}

/// A filter: a subject, an operator with its values, and WITHIN after a text filter.
fn filter<'a>() -> impl Parser<Input<'a>, Output = Filter> {
    let within = keyword("WITHIN").with(between(
        symbol("("),
        symbol(")"),
        sep_by1(within_property(), symbol(",")),
    ));
    (subject(), operator(), optional(within)).and_then(|(subject, op, within)| {
        match (subject, within) {
            (subject, None) => Ok(Filter { subject, op }),
            (Subject::Text { semantic, .. }, Some(within)) => Ok(Filter {
                subject: Subject::Text { semantic, within },
                op,
            }),
            (_, Some(_)) => Err(CheckError::Message(easy::Info::Static(
                "WITHIN follows only a text or semantic_search_text filter",
            ))),
        }
    })
}

/// A WITHIN property: `Name`, `'Physical Name'` or `"Physical Name"`.
fn within_property<'a>() -> impl Parser<Input<'a>, Output = String> {
    choice((
        quoted('\'', "a closing single quote"),
        quoted('"', "a closing double quote"),
        word(),
    ))
    .skip(whitespace())
    .expected("a search property")
}

/// What a filter tests.
fn subject<'a>() -> impl Parser<Input<'a>, Output = Subject> {
    choice((
        keyword("TEXT").map(|_| Subject::Text {
            semantic: false,
            within: Vec::new(),
        }),
        keyword("SEMANTIC_SEARCH_TEXT").map(|_| Subject::Text {
            semantic: true,
            within: Vec::new(),
        }),
        keyword("CATEGORY").map(|_| Subject::Category),
        keyword("CONTENT").map(|_| Subject::Content),
        keyword("EXPANDEDMEMBERSOFROLE")
            .with(call_argument())
            .map(Subject::ExpandedMembersOfRole),
        function_name("COUNT")
            .with(call_argument())
            .map(Subject::Count),
        path().map(Subject::Attribute),
    ))
    .expected(FILTER)
}

/// The label for a missing value.
const VALUE: &str = "a value in single quotes, a number or a date";

/// An operator and its values.
fn operator<'a>() -> impl Parser<Input<'a>, Output = Op> {
    let not_equals = choice((symbol("!="), symbol("<>"))).with(not_equals_operand());
    let comparison = choice((
        symbol("<=").with(value()).map(Op::Le),
        symbol(">=").with(value()).map(Op::Ge),
        symbol("<").with(value()).map(Op::Lt),
        symbol(">").with(value()).map(Op::Gt),
    ));
    let words = choice((
        keyword("EXISTS").map(|_| Op::Exists),
        keyword("NOT").with(negated()),
        keyword("STARTS")
            .with(keyword("WITH"))
            .with(value())
            .map(|value| Op::StartsWith { not: false, value }),
        keyword("ENDS")
            .with(keyword("WITH"))
            .with(value())
            .map(|value| Op::EndsWith { not: false, value }),
        keyword("CONTAINS")
            .with(value())
            .map(|value| Op::Contains { not: false, value }),
        keyword("BEFORE").with(value()).map(Op::Before),
        keyword("AFTER").with(value()).map(Op::After),
        keyword("BETWEEN")
            .with((value(), keyword("AND"), value()))
            .map(|(low, _, high)| Op::Between(low, high)),
    ));
    choice((
        not_equals,
        comparison,
        symbol("=").with(equals_operand()),
        words,
    ))
    .expected(OPERATOR)
}

/// What follows `=`: ANY or ALL with a list, WHERE with scope filters, or a value.
fn equals_operand<'a>() -> impl Parser<Input<'a>, Output = Op> {
    choice((
        keyword("ANY").with(values()).map(Op::EqAny),
        keyword("ALL").with(values()).map(Op::EqAll),
        attempt(keyword("WHERE").skip(look_ahead(token('('))))
            .with(between(symbol("("), symbol(")"), nested_expr()))
            .map(|scope| Op::EqWhere(Box::new(scope))),
        value().map(Op::Eq),
    ))
    .expected(VALUE)
}

/// What follows `!=` or `<>`: ANY or ALL with a list, or a value.
fn not_equals_operand<'a>() -> impl Parser<Input<'a>, Output = Op> {
    choice((
        keyword("ANY").with(values()).map(Op::NeAny),
        keyword("ALL").with(values()).map(Op::NeAll),
        value().map(Op::Ne),
    ))
    .expected(VALUE)
}

/// What follows NOT.
fn negated<'a>() -> impl Parser<Input<'a>, Output = Op> {
    choice((
        keyword("EXISTS").map(|_| Op::NotExists),
        keyword("STARTS")
            .with(keyword("WITH"))
            .with(value())
            .map(|value| Op::StartsWith { not: true, value }),
        keyword("ENDS")
            .with(keyword("WITH"))
            .with(value())
            .map(|value| Op::EndsWith { not: true, value }),
        keyword("CONTAINS")
            .with(value())
            .map(|value| Op::Contains { not: true, value }),
        keyword("BETWEEN")
            .with((value(), keyword("AND"), value()))
            .map(|(low, _, high)| Op::NotBetween(low, high)),
    ))
}

/// A parenthesised list of values.
fn values<'a>() -> impl Parser<Input<'a>, Output = Vec<Value>> {
    between(symbol("("), symbol(")"), sep_by1(value(), symbol(",")))
}

/// A value: quoted text (in single quotes, or in double quotes as the vendor's pages
/// write it), ME, TODAY, YESTERDAY, LAST n unit, or an unquoted literal (a date, a
/// number or a word).
fn value<'a>() -> impl Parser<Input<'a>, Output = Value> {
    let last = keyword("LAST")
        .with((
            many1::<String, _, _>(digit())
                .skip(whitespace())
                .expected("a number"),
            time_unit(),
        ))
        .and_then(|(n, unit)| match n.parse::<u32>() {
            Ok(n) => Ok(Value::Last { n, unit }),
            Err(_) => Err(CheckError::Message(easy::Info::Owned(format!(
                "LAST {n}: the number is too large"
            )))),
        });
    choice((
        quoted('\'', "a closing single quote").map(Value::Text),
        quoted('"', "a closing double quote").map(Value::DoubleQuoted),
        keyword("ME").map(|_| Value::Me),
        keyword("TODAY").map(|_| Value::Today),
        keyword("YESTERDAY").map(|_| Value::Yesterday),
        last,
        attempt(literal().and_then(classify)),
    ))
    .skip(whitespace())
    .expected(VALUE)
}

/// DAYS, HOURS or MINUTES (or the singular).
fn time_unit<'a>() -> impl Parser<Input<'a>, Output = TimeUnit> {
    choice((
        keyword("DAYS").map(|_| TimeUnit::Days),
        keyword("DAY").map(|_| TimeUnit::Days),
        keyword("HOURS").map(|_| TimeUnit::Hours),
        keyword("HOUR").map(|_| TimeUnit::Hours),
        keyword("MINUTES").map(|_| TimeUnit::Minutes),
        keyword("MINUTE").map(|_| TimeUnit::Minutes),
    ))
    .expected(TIME_UNIT)
}

/// The characters of an unquoted value.
fn literal<'a>() -> impl Parser<Input<'a>, Output = String> {
    many1(satisfy(|c: char| {
        is_word_char(c) || matches!(c, '-' | '+' | '.')
    }))
}

/// Reads an unquoted value as a date, a number or a word.
fn classify<'a>(text: String) -> Result<Value, CheckError<'a>> {
    if is_date_shape(&text) {
        return date(&text).map(Value::Date).ok_or_else(|| {
            CheckError::Message(easy::Info::Owned(format!("{text} is not a valid date")))
        });
    }
    if is_number_shape(&text) {
        return match text.parse::<f64>() {
            Ok(value) => Ok(Value::Number { text, value }),
            Err(_) => Err(CheckError::Message(easy::Info::Owned(format!(
                "{text} is not a valid number"
            )))),
        };
    }
    let is_word =
        text.starts_with(|c: char| c.is_alphabetic() || c == '_') && text.chars().all(is_word_char);
    if !is_word {
        Err(CheckError::Message(easy::Info::Owned(format!(
            "{text} is not a number, a date or a word: quote a text value in single quotes"
        ))))
    } else if is_reserved(&text) {
        Err(CheckError::Unexpected(easy::Info::Static(
            "a reserved word",
        )))
    } else {
        Ok(Value::Bare(text))
    }
}

/// Whether `text` is `dddd-dd-dd`.
fn is_date_shape(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 10
        && bytes.iter().enumerate().all(|(i, b)| match i {
            4 | 7 => *b == b'-',
            _ => b.is_ascii_digit(),
        })
}

/// The date `dddd-dd-dd` names, if it exists.
fn date(text: &str) -> Option<NaiveDate> {
    let year = text.get(0..4)?.parse().ok()?;
    let month = text.get(5..7)?.parse().ok()?;
    let day = text.get(8..10)?.parse().ok()?;
    NaiveDate::from_ymd_opt(year, month, day)
}

/// Whether `text` is a decimal number: an optional sign, digits with an optional
/// fraction, and an optional exponent (`-200`, `1.5`, `3.123456E30`).
fn is_number_shape(text: &str) -> bool {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, Some(exponent)),
        None => (unsigned, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some((whole, fraction)) => (whole.is_empty() || digits(whole)) && digits(fraction),
        None => digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)));
    mantissa_ok && exponent_ok
}
