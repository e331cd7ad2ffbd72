//! The search text of `text = '...'` (spec section 2.12): words, "exact phrases",
//! `+required` and `-excluded` terms, trailing `*` wildcards, `parent.child` names and
//! `=exact` names (`="sales_order"`, or `.“sales_order”` as the vendor's pages write it).
//!
//! Words and phrases match across word breakers ([`crate::plan::WORD_BREAKERS`]:
//! the space and `_ : . [ ] ( )`): `customer id` finds `2023_CUSTOMER_ID`. An exact name
//! is the whole name, breakers and all.
//!
//! Search text is typed by people, so it is read leniently and never fails: the
//! typographic quotes and dashes that word processors put in (“ ” ‘ ’ – —) count as
//! their plain forms, an unclosed phrase runs to the end, and a lone sign or wildcard is
//! dropped.

/// What a search term matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchKind {
    /// A word.
    Word(String),
    /// An exact phrase, written in double quotes.
    Phrase(String),
    /// Words starting with the text, written with a trailing `*`.
    Prefix(String),
    /// A child named `child` of a parent named `parent`, written `parent.child`; either
    /// part may be a quoted phrase.
    ParentChild { parent: String, child: String },
    /// An object whose whole name is the text (compared folded, word breakers as they
    /// are), written `=name`, `="exact name"` or `."exact name"`.
    ExactName(String),
}

/// Whether a term must, may or must not match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Presence {
    /// No sign: the term may match.
    Optional,
    /// `+term`: the term must match.
    Required,
    /// `-term`: the term must not match.
    Excluded,
}

/// One term of a search text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchTerm {
    /// What the term matches.
    pub kind: SearchKind,
    /// Whether it must, may or must not match.
    pub presence: Presence,
}

/// Splits search text into its terms. An empty or blank text has none (the spec
/// ignores an empty text filter).
pub fn parse_search_text(text: &str) -> Vec<SearchTerm> {
    let chars: Vec<char> = text.chars().map(plain_form).collect();
    let mut scanner = Scanner {
        chars: &chars,
        at: 0,
    };
    let mut terms = Vec::new();
    while scanner.skip_whitespace() {
        if let Some(term) = scanner.term() {
            terms.push(term);
        }
    }
    terms
}

/// Whether `text` (a name, physical name or description) holds a term the search may
/// match (not an excluded one), compared as every store compares a search
/// ([`crate::plan::search_form`], ASCII folding): what a result says it matched on.
pub fn mentions(terms: &[SearchTerm], text: &str) -> bool {
    use crate::plan::{fold, search_form, search_term};
    let form = search_form(text);
    let holds = |term: &str| {
        let term = search_term(term);
        !term.is_empty() && form.contains(&term)
    };
    terms
        .iter()
        .filter(|t| t.presence != Presence::Excluded)
        .any(|t| match &t.kind {
            SearchKind::Word(w) | SearchKind::Phrase(w) | SearchKind::Prefix(w) => holds(w),
            SearchKind::ParentChild { child, .. } => holds(child),
            SearchKind::ExactName(name) => fold(text) == fold(name),
        })
}

/// The plain character for a typographic quote or dash.
fn plain_form(c: char) -> char {
    match c {
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' => '"',
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => '\'',
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2212}' => '-',
        c => c,
    }
}

/// A cursor over the characters of a search text.
struct Scanner<'a> {
    chars: &'a [char],
    at: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    /// Skips whitespace; whether any text is left.
    fn skip_whitespace(&mut self) -> bool {
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
        self.at < self.chars.len()
    }

    /// Reads one term at the cursor, which is on a non-blank character; `None` when the
    /// text there is only a sign, a wildcard or an empty phrase.
    fn term(&mut self) -> Option<SearchTerm> {
        let presence = match self.peek() {
            Some('+') => Presence::Required,
            Some('-') => Presence::Excluded,
            _ => Presence::Optional,
        };
        if presence != Presence::Optional {
            self.at += 1;
        }
        // `=name`, `="exact name"`, or as the vendor's pages write it, `."exact name"`.
        let dotted = self.peek() == Some('.') && self.chars.get(self.at + 1) == Some(&'"');
        if self.peek() == Some('=') || dotted {
            self.at += 1;
            let name = self.exact()?;
            return Some(SearchTerm {
                kind: SearchKind::ExactName(name),
                presence,
            });
        }
        let first = self.part()?;
        let kind = if self.peek() == Some('.') && self.continues_after_dot() {
            self.at += 1;
            let child = self.part()?;
            SearchKind::ParentChild {
                parent: first.text,
                child: child.text,
            }
        } else {
            first.into_kind()?
        };
        Some(SearchTerm { kind, presence })
    }

    /// Reads the name of an exact name term: a phrase in double quotes, as written
    /// inside, or the text up to whitespace; `None` when it is empty.
    fn exact(&mut self) -> Option<String> {
        let start = self.at;
        let text: String = if self.peek() == Some('"') {
            self.at += 1;
            while self.peek().is_some_and(|c| c != '"') {
                self.at += 1;
            }
            let text = self.chars[start + 1..self.at].iter().collect();
            if self.peek() == Some('"') {
                self.at += 1;
            }
            text
        } else {
            while self.peek().is_some_and(|c| !c.is_whitespace()) {
                self.at += 1;
            }
            self.chars[start..self.at].iter().collect()
        };
        (!text.is_empty()).then_some(text)
    }

    /// Whether a part follows the dot at the cursor.
    fn continues_after_dot(&self) -> bool {
        self.chars
            .get(self.at + 1)
            .is_some_and(|c| !c.is_whitespace() && *c != '.')
    }

    /// Reads a phrase or a word up to whitespace, a quote or a dot.
    fn part(&mut self) -> Option<Part> {
        if self.peek() == Some('"') {
            self.at += 1;
            let start = self.at;
            while self.peek().is_some_and(|c| c != '"') {
                self.at += 1;
            }
            let text: String = self.chars[start..self.at].iter().collect();
            if self.peek() == Some('"') {
                self.at += 1;
            }
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            return (!text.is_empty()).then_some(Part { text, phrase: true });
        }
        let start = self.at;
        while let Some(c) = self.peek() {
            let splits = c == '.' && self.at > start && self.continues_after_dot();
            if c.is_whitespace() || c == '"' || splits {
                break;
            }
            self.at += 1;
        }
        let text: String = self.chars[start..self.at].iter().collect();
        (!text.is_empty()).then_some(Part {
            text,
            phrase: false,
        })
    }
}

/// A word or phrase read by [`Scanner::part`].
struct Part {
    text: String,
    phrase: bool,
}

impl Part {
    /// The kind of a term made of this part alone; `None` for a lone wildcard.
    fn into_kind(self) -> Option<SearchKind> {
        if self.phrase {
            return Some(SearchKind::Phrase(self.text));
        }
        match self.text.strip_suffix('*') {
            Some(stem) => {
                let stem = stem.trim_end_matches('*');
                (!stem.is_empty()).then(|| SearchKind::Prefix(stem.to_owned()))
            }
            None => Some(SearchKind::Word(self.text)),
        }
    }
}

/// The reserved words of `semantic_search_text` (spec 2.13: the semantic search filter
/// has its own): each word, singular or plural, in any letter case, selects the object
/// types named beside it. The words of a semantic search phrase that are among these
/// select those object types; the rest of the phrase is search text.
pub const SEMANTIC_WORDS: &[(&str, &str, &[&str])] = &[
    ("table", "tables", &["Table"]),
    ("view", "views", &["View"]),
    ("column", "columns", &["Column"]),
    ("schema", "schemas", &["Schema"]),
    ("database", "databases", &["Database"]),
    ("key", "keys", &["Primary Key", "Foreign Key"]),
    ("procedure", "procedures", &["Stored Procedure"]),
    ("file", "files", &["File"]),
    ("field", "fields", &["Field"]),
    ("directory", "directories", &["Directory"]),
    ("term", "terms", &["Term"]),
    ("glossary", "glossaries", &["Glossary"]),
    ("report", "reports", &["Report"]),
    ("model", "models", &["Model"]),
    ("folder", "folders", &["Folder"]),
    ("configuration", "configurations", &["Configuration"]),
];

/// The object types a reserved word of `semantic_search_text` selects, if it is one.
pub fn semantic_word(word: &str) -> Option<&'static [&'static str]> {
    SEMANTIC_WORDS
        .iter()
        .find(|(one, many, _)| one.eq_ignore_ascii_case(word) || many.eq_ignore_ascii_case(word))
        .map(|(_, _, types)| *types)
}

/// A semantic search phrase split into the object types its reserved words select
/// ([`SEMANTIC_WORDS`], each type once) and the terms of the rest, searched as text. Only
/// plain words are reserved words: `"tables"`, `+tables` or `tables*` stay search text.
pub fn parse_semantic_text(text: &str) -> (Vec<&'static str>, Vec<SearchTerm>) {
    let mut types: Vec<&'static str> = Vec::new();
    let mut rest = Vec::new();
    for term in parse_search_text(text) {
        let selected = match (&term.kind, term.presence) {
            (SearchKind::Word(word), Presence::Optional) => semantic_word(word),
            _ => None,
        };
        match selected {
            Some(selected) => {
                for t in selected {
                    if !types.contains(t) {
                        types.push(t);
                    }
                }
            }
            None => rest.push(term),
        }
    }
    (types, rest)
}
