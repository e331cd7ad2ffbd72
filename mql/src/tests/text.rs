//! Queries written back as text and read again, and the text of searches.

use super::*;

// ---- display and round trip ----

const QUERIES: &[&str] = &[
    "SELECT Name FROM /Configuration/Published",
    "SELECT Name, \"Object Type\", Parent.\"Object Type\" FROM 447_16 WHERE Name = 'x'",
    "SELECT \"Data Profiling\".Max FROM -1_4 WHERE \"Data Profiling\".\"Distinct\" >= 10 AND \"Data Profiling\".Min < -3.5",
    "SELECT MembersOfRole('Steward'), Count('Is Defined By') FROM '/Conf/My Folder' WHERE Count('Is Defined By') > 0",
    "SELECT Name FROM /Conf (Model = WHERE (Name = 'Sales' OR \"Model Id\" = ANY (1, 2))) WHERE Name STARTS WITH 'cu'",
    "SELECT Name FROM /Conf CONTEXT /Conf/Version WHERE text = '+phone -\"land line\" num*' WITHIN ('Name', 'Physical Name')",
    "SELECT Name FROM /Conf WHERE semantic_search_text = 'customer tables' ORDER BY Relevance",
    "SELECT Name FROM /Conf WHERE category = 'Glossary.Term' AND content != ANY ('A', 'B')",
    "SELECT Name FROM /Conf WHERE ExpandedMembersOfRole('Steward') = ME OR Watchers = ALL ('bob', 'O''Neil')",
    "SELECT Name FROM /Conf WHERE \"Updated Date\" BETWEEN 2014-10-26 AND '2015-01-01 10:00:00' AND Name NOT CONTAINS 'tmp'",
    "SELECT Name FROM /Conf WHERE \"Updated Date\" = LAST 7 DAYS OR \"Updated Date\" BEFORE YESTERDAY OR \"Updated Date\" AFTER TODAY",
    "SELECT Name FROM /Conf WHERE (A = 'a' OR B = 'b') AND (C = 'c' OR D = 'd') AND E NOT EXISTS",
    "SELECT Name FROM /Conf WHERE A = 'a' AND (B = 'b' AND C = 'c')",
    "SELECT Name FROM /Conf WHERE (A = 'a' OR B = 'b') OR C = 'c'",
    "SELECT Name FROM /Conf WHERE x = 3.123456E30 AND y != -200 AND z <= 0.5 AND w > 1 AND v < 2 AND u >= 3",
    "SELECT Name FROM /Conf WHERE \"Data Classifications\" = City AND Certified != true",
    "SELECT Name FROM /Conf WHERE Name NOT STARTS WITH 'a' AND Name ENDS WITH 'b' AND Name NOT ENDS WITH 'c'",
    "SELECT Name FROM /Conf WHERE \"Is Defined By\" EXISTS ORDER BY Name ASC, \"Updated Date\" DESC, Description",
    "SELECT \"text\", \"Last\", \"Relevance\" FROM /Conf ORDER BY \"Relevance\"",
    "SELECT \"Data Modeling (Business)\".\"Data Type\" FROM /Conf WHERE Parent.Name = 'T' AND Children.Name = ANY ('a')",
];

#[test]
fn round_trip_parse_display_parse() {
    for query in QUERIES {
        let parsed = parse_query(query).unwrap_or_else(|e| panic!("{query}: {e}"));
        let written = parsed.to_string();
        assert_eq!(&written, query, "canonical form");
        assert_eq!(parse_query(&written).unwrap(), parsed, "{written}");
    }
}

#[test]
fn display_is_canonical() {
    let parsed = parse_query(
        "select  name,\"Object Type\" from /x where text='a' within (name) and Labels=any('a','b') \
         and x<>1 and \"y\" not exists order by name asc",
    )
    .unwrap();
    assert_eq!(
        parsed.to_string(),
        "SELECT name, \"Object Type\" FROM /x WHERE text = 'a' WITHIN ('name') AND Labels = ANY ('a', 'b') \
         AND x != 1 AND \"y\" NOT EXISTS ORDER BY name ASC"
    );
}

#[test]
fn version_one_queries_upgrade_to_a_fixed_point() {
    let old = "SELECT #Name#, [Data Type] FROM /x WHERE #Object Type# = 'Table' AND {Level} = 1 AND <UDP 1> EXISTS";
    let upgraded = parse_query(old).unwrap().to_string();
    assert_eq!(
        upgraded,
        "SELECT Name, \"Data Type\" FROM /x WHERE \"Object Type\" = 'Table' AND Level = 1 AND \"UDP 1\" EXISTS"
    );
    assert_eq!(parse_query(&upgraded).unwrap().to_string(), upgraded);
}

#[test]
fn clause_displays() {
    assert_eq!(
        parse_from("/a (Name = 'x')").unwrap().to_string(),
        "/a (Name = 'x')"
    );
    assert_eq!(parse_from("'/a b'").unwrap().to_string(), "'/a b'");
    assert_eq!(
        parse_order_by("name desc, relevance")
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["name DESC", "Relevance"]
    );
    assert_eq!(Name::plain("has space").to_string(), "\"has space\"");
    assert_eq!(Name::plain("within").to_string(), "\"within\"");
    assert_eq!(Name::plain("_ok1").to_string(), "_ok1");
    assert_eq!(Name::plain("1st").to_string(), "\"1st\"");
    assert_eq!(
        parse_context("/Config/Version").unwrap(),
        SourceId::plain("/Config/Version")
    );
}

// ---- search text ----

fn term(kind: SearchKind, presence: Presence) -> SearchTerm {
    SearchTerm { kind, presence }
}

#[test]
fn search_words_phrases_and_signs() {
    use Presence::{Excluded, Optional, Required};
    use SearchKind::{Phrase, Prefix, Word};
    assert_eq!(
        parse_search_text("customer \"cash flow\" +phone -fax cust*"),
        vec![
            term(Word("customer".into()), Optional),
            term(Phrase("cash flow".into()), Optional),
            term(Word("phone".into()), Required),
            term(Word("fax".into()), Excluded),
            term(Prefix("cust".into()), Optional),
        ]
    );
    assert_eq!(
        parse_search_text("+\"exact  name\" -\"old stuff\""),
        vec![
            term(Phrase("exact name".into()), Required),
            term(Phrase("old stuff".into()), Excluded)
        ]
    );
    assert_eq!(parse_search_text(""), vec![]);
    assert_eq!(parse_search_text("   \t "), vec![]);
    assert_eq!(parse_search_text("+ - * \"\" \"  \""), vec![]);
    assert_eq!(
        parse_search_text("e-mail O'Brien"),
        vec![
            term(Word("e-mail".into()), Optional),
            term(Word("O'Brien".into()), Optional)
        ]
    );
}

#[test]
fn search_typographic_quotes_and_dashes() {
    assert_eq!(
        parse_search_text("\u{201C}cash flow\u{201D} \u{2013}fax \u{2014}old O\u{2019}Brien"),
        vec![
            term(SearchKind::Phrase("cash flow".into()), Presence::Optional),
            term(SearchKind::Word("fax".into()), Presence::Excluded),
            term(SearchKind::Word("old".into()), Presence::Excluded),
            term(SearchKind::Word("O'Brien".into()), Presence::Optional),
        ]
    );
}

#[test]
fn search_parent_child() {
    let pc = |parent: &str, child: &str| SearchKind::ParentChild {
        parent: parent.into(),
        child: child.into(),
    };
    assert_eq!(
        parse_search_text("Customer.Name +\"Customer Address\".City -a.\"b c\""),
        vec![
            term(pc("Customer", "Name"), Presence::Optional),
            term(pc("Customer Address", "City"), Presence::Required),
            term(pc("a", "b c"), Presence::Excluded),
        ]
    );
    assert_eq!(
        parse_search_text("end. .start"),
        vec![
            term(SearchKind::Word("end.".into()), Presence::Optional),
            term(SearchKind::Word(".start".into()), Presence::Optional),
        ]
    );
}

#[test]
fn search_unclosed_phrase_runs_to_the_end_and_wildcards_collapse() {
    assert_eq!(
        parse_search_text("\"cash flow"),
        vec![term(
            SearchKind::Phrase("cash flow".into()),
            Presence::Optional
        )]
    );
    assert_eq!(
        parse_search_text("abc**"),
        vec![term(SearchKind::Prefix("abc".into()), Presence::Optional)]
    );
}

#[test]
fn error_messages_name_what_may_come() {
    let message = |result: Result<Expr, SyntaxError>| syntax_error(result).to_string();
    assert_eq!(
        message(parse_where("Name = 'x' foo")),
        "line 1, column 12: expected 'AND', 'OR' or end of input, found 'foo'"
    );
    assert_eq!(
        message(parse_where("Name")),
        "line 1, column 5: expected an operator, found end of input"
    );
    assert_eq!(
        message(parse_where("(Name = 'x'")),
        "line 1, column 12: expected ')', found end of input"
    );
    assert_eq!(
        message(parse_where("Name = ANY ('a' 'b')")),
        "line 1, column 17: expected ',' or ')', found 'b'"
    );
    assert_eq!(
        message(parse_where("Name NOT 'x'")),
        "line 1, column 10: expected 'EXISTS', 'STARTS', 'ENDS', 'CONTAINS' or 'BETWEEN', found 'x'"
    );
    assert_eq!(
        message(parse_where("Name = 'x' AND")),
        "line 1, column 15: expected a filter (an attribute name, text, category, content or a function), \
         found end of input"
    );
    assert_eq!(
        message(parse_where("Name BETWEEN 1 2")),
        "line 1, column 16: expected 'AND', found '2'"
    );
    assert_eq!(
        message(parse_where("Name = LAST 7")),
        "line 1, column 14: expected a time unit (DAYS, HOURS or MINUTES), found end of input"
    );
    assert_eq!(
        syntax_error(parse_select("Name Description")).to_string(),
        "line 1, column 6: expected ',' or end of input, found 'Description'"
    );
    assert_eq!(
        syntax_error(parse_query("SELECT Name FROM x ORDER Name")).to_string(),
        "line 1, column 26: expected 'BY', found 'Name'"
    );
}

#[test]
fn long_flat_input_parses() {
    let filters = vec!["Name = 'x'"; 6000].join(" OR ");
    assert!(filters.chars().count() < MAX_INPUT_CHARS);
    match parse_where(&filters) {
        Ok(Expr::Or(parts)) => assert_eq!(parts.len(), 6000),
        other => panic!("{other:?}"),
    }
    let select = vec!["\"Object Type\""; 5000].join(", ");
    assert_eq!(parse_select(&select).unwrap().len(), 5000);
}

#[test]
fn query_from_separate_fields() {
    let query = parse_fields(&QueryFields {
        select: "Name, \"Object Type\"",
        from: Some("/Configuration/Published (Name = 'A')"),
        scope: Some("Model = WHERE (Name = 'Sales')"),
        context: Some(" "),
        filter: Some("\"Object Type\" = ANY ('Table')"),
        order_by: Some("Name desc"),
    })
    .unwrap();
    assert_eq!(
        query.to_string(),
        "SELECT Name, \"Object Type\" FROM /Configuration/Published \
         (Name = 'A' AND Model = WHERE (Name = 'Sales')) WHERE \"Object Type\" = ANY ('Table') ORDER BY Name DESC"
    );
    assert_eq!(query.context, None);

    let only_select = parse_fields(&QueryFields {
        select: "Name",
        ..QueryFields::default()
    })
    .unwrap();
    assert_eq!(only_select.from, None);
    assert_eq!(only_select.filter, None);

    let missing = parse_fields(&QueryFields::default()).unwrap_err();
    assert_eq!(missing.code, ErrorCode::RequiredParameterNotSpecified);

    let bad = parse_fields(&QueryFields {
        select: "Name",
        filter: Some("Name ="),
        ..QueryFields::default()
    })
    .unwrap_err();
    assert_eq!(bad.code, ErrorCode::InvalidParameter);
    assert_eq!(
        bad.message,
        "invalid MQL in 'where': line 1, column 7: expected a value in single quotes, a number or a date, \
         found end of input"
    );

    let orphan = parse_fields(&QueryFields {
        select: "Name",
        scope: Some("Name = 'x'"),
        ..QueryFields::default()
    })
    .unwrap_err();
    assert!(
        orphan.message.contains("'scope' needs 'from'"),
        "{}",
        orphan.message
    );
}

fn double(s: &str) -> Value {
    Value::DoubleQuoted(s.to_owned())
}

#[test]
fn double_quoted_values_where_a_value_is_expected() {
    assert_eq!(op("Name = \"orders\""), Op::Eq(double("orders")));
    assert_eq!(op("Name != \"orders\""), Op::Ne(double("orders")));
    assert_eq!(
        op("Name = ANY (\"a\", 'b', \"c\")"),
        Op::EqAny(vec![double("a"), text("b"), double("c")])
    );
    assert_eq!(op("Labels != ALL (\"x\")"), Op::NeAll(vec![double("x")]));
    assert_eq!(
        op("\"Comment Count\" BETWEEN \"1\" AND \"3\""),
        Op::Between(double("1"), double("3"))
    );
    assert_eq!(
        op("Name NOT STARTS WITH \"a\""),
        Op::StartsWith {
            not: true,
            value: double("a")
        }
    );
    assert_eq!(
        op("Name = \"say \"\"hi\"\"\""),
        Op::Eq(double("say \"hi\""))
    );
    let f = filter("ExpandedMembersOfRole(\"Steward\") = \"jsmith\"");
    assert_eq!(
        f.subject,
        Subject::ExpandedMembersOfRole("Steward".to_owned())
    );
    assert_eq!(f.op, Op::Eq(double("jsmith")));
    let f = filter("text = \"Customer\" WITHIN (\"Name\")");
    assert_eq!(
        f.subject,
        Subject::Text {
            semantic: false,
            within: vec!["Name".to_owned()]
        }
    );
    assert_eq!(f.op, Op::Eq(double("Customer")));
    // Where a name is expected, double quotes still make a name.
    let f = filter("\"Object Type\" = \"Table\"");
    assert_eq!(f.subject, attribute(&["Object Type"]));
    assert_eq!(f.op, Op::Eq(double("Table")));
    let f = filter("Parent.\"Object Type\" = \"Schema\"");
    assert_eq!(f.subject, attribute(&["Parent", "Object Type"]));
    let query = parse_query(
        "SELECT \"Name\", MembersOfRole(\"Steward\") FROM /x WHERE \"Name\" = \"orders\" ORDER BY \"Updated Date\"",
    )
    .unwrap();
    assert_eq!(
        query.to_string(),
        "SELECT \"Name\", MembersOfRole('Steward') FROM /x WHERE \"Name\" = 'orders' ORDER BY \"Updated Date\""
    );
    // Written back in single quotes, a single quote inside doubled.
    assert_eq!(
        parse_where("Name = \"it's\" OR Name = ANY (\"a\", \"b\")")
            .unwrap()
            .to_string(),
        "Name = 'it''s' OR Name = ANY ('a', 'b')"
    );
    let error = syntax_error(parse_where("Name = \"orders"));
    assert!(
        error.to_string().contains("a closing double quote"),
        "{error}"
    );
}

#[test]
fn double_quoted_values_validate_as_text_with_a_warning() {
    use crate::validate::validate;
    let meta = lore_model::MetaModel::builtin();
    let query = parse_fields(&QueryFields {
        select: "Name",
        filter: Some(
            "text = \"Customer\" AND ExpandedMembersOfRole(\"Steward\") = \"jsmith\" \
             AND Name = ANY (\"it's\", 'b')",
        ),
        ..QueryFields::default()
    })
    .unwrap();
    let validated = validate(&query, &meta, 3).unwrap();
    let rewritten = "SELECT Name WHERE text = 'Customer' AND ExpandedMembersOfRole('Steward') = 'jsmith' \
                     AND Name = ANY ('it''s', 'b')";
    assert_eq!(validated.query.to_string(), rewritten);
    assert!(
        validated
            .query
            .filter
            .iter()
            .all(|f| !format!("{f:?}").contains("DoubleQuoted")),
        "{:?}",
        validated.query
    );
    assert_eq!(
        validated.warnings,
        vec![format!(
            "the values \"Customer\", \"jsmith\", \"it's\" were written in double quotes, which MQL keeps for \
             attribute names, and were read as text; write values in single quotes: {rewritten}"
        )]
    );
    // Scope filters too, and a query of an earlier version.
    let query = parse_fields(&QueryFields {
        select: "Name",
        from: Some("/Repository (Model = WHERE (Name = \"Sales\"))"),
        ..QueryFields::default()
    })
    .unwrap();
    let validated = validate(&query, &meta, 1).unwrap();
    assert!(
        validated.warnings[0].starts_with("the value \"Sales\" was written in double quotes"),
        "{:?}",
        validated.warnings
    );
    assert!(
        validated.warnings[0]
            .ends_with("SELECT Name FROM /Repository (Model = WHERE (Name = 'Sales'))"),
        "{:?}",
        validated.warnings
    );
    // Single-quoted values: no warning.
    let query = parse_fields(&QueryFields {
        select: "Name",
        filter: Some("Name = 'orders'"),
        ..QueryFields::default()
    })
    .unwrap();
    assert!(validate(&query, &meta, 3).unwrap().warnings.is_empty());
}

#[test]
fn not_between() {
    assert_eq!(
        op("\"Comment Count\" NOT BETWEEN 1 AND 5"),
        Op::NotBetween(number("1"), number("5"))
    );
    assert_eq!(
        op("\"Updated Date\" not   between YESTERDAY and '2024-01-01'"),
        Op::NotBetween(Value::Yesterday, text("2024-01-01"))
    );
    // Its AND is no logical AND either.
    let parsed = parse_where("Position NOT BETWEEN 1 AND 2 AND Name = 'x'").unwrap();
    assert_eq!(
        parsed,
        Expr::And(vec![
            Expr::Filter(Filter {
                subject: attribute(&["Position"]),
                op: Op::NotBetween(number("1"), number("2")),
            }),
            eq(&["Name"], text("x")),
        ])
    );
    assert_eq!(
        parsed.to_string(),
        "Position NOT BETWEEN 1 AND 2 AND Name = 'x'"
    );
    let error = syntax_error(parse_where("Position NOT BETWEEN 1"));
    assert!(error.expected.contains(&"'AND'".to_owned()), "{error}");
}

#[test]
fn not_between_validates_where_between_does() {
    use crate::validate::validate;
    let meta = lore_model::MetaModel::builtin();
    let check = |filter: &str| {
        let query = parse_fields(&QueryFields {
            select: "Name",
            filter: Some(filter),
            ..QueryFields::default()
        })
        .unwrap();
        validate(&query, &meta, 3).map(|_| ())
    };
    check("\"Comment Count\" NOT BETWEEN 1 AND 3").unwrap();
    check("\"Updated Date\" NOT BETWEEN 2024-01-01 AND TODAY").unwrap();
    check("\"Data Profiling\".Max NOT BETWEEN 1 AND 2.5").unwrap();
    let refused = check("Name NOT BETWEEN 'a' AND 'b'").unwrap_err();
    assert!(
        refused
            .message
            .contains("Name does not take the operator NOT BETWEEN"),
        "{}",
        refused.message
    );
    let refused = check("\"Comment Count\" NOT BETWEEN 1 AND 'x'").unwrap_err();
    assert!(
        refused.message.contains("takes a number"),
        "{}",
        refused.message
    );
}

#[test]
fn search_exact_names() {
    assert_eq!(
        parse_search_text("=\"sales_order\" +=orders -=\"x y\" = =\"\""),
        vec![
            SearchTerm {
                kind: SearchKind::ExactName("sales_order".to_owned()),
                presence: Presence::Optional,
            },
            SearchTerm {
                kind: SearchKind::ExactName("orders".to_owned()),
                presence: Presence::Required,
            },
            SearchTerm {
                kind: SearchKind::ExactName("x y".to_owned()),
                presence: Presence::Excluded,
            },
        ]
    );
    // The vendor's pages write an exact name with a dot before it, often with the
    // typographic quotes a word processor puts in.
    let exact = |name: &str| SearchTerm {
        kind: SearchKind::ExactName(name.to_owned()),
        presence: Presence::Optional,
    };
    assert_eq!(
        parse_search_text(".\u{201C}sales_order\u{201D}"),
        vec![exact("sales_order")]
    );
    assert_eq!(
        parse_search_text(".\"sales order\""),
        vec![exact("sales order")]
    );
}

#[test]
fn search_form_breaks_words_alike_everywhere() {
    use crate::plan::{indexed_words, search_form, search_term};
    assert_eq!(search_form("2023_CUSTOMER_ID"), "2023 customer id");
    assert_eq!(search_form("Customer:ID"), "customer id");
    assert_eq!(search_form("Customer[id]"), "customer id ");
    assert_eq!(search_form("a__(b) . c"), "a b c");
    assert_eq!(search_form("Zürich-Nord"), "zürich-nord");
    assert_eq!(search_term(" _Customer  ID_ "), "customer id");
    assert_eq!(search_term("_:."), "");
    for name in [
        "2023_CUSTOMER_ID",
        "Customer:ID",
        "Customer[id]",
        "customer id",
    ] {
        assert!(
            search_form(name).contains(&search_term("Customer ID")),
            "{name}"
        );
    }
    assert!(search_form("sales_order").contains(&search_term("sales order")));
    assert_eq!(indexed_words("customer id of x"), ["customer"]);
}

#[test]
fn semantic_search_words_select_object_types() {
    use crate::search::{parse_semantic_text, semantic_word};
    let (types, rest) = parse_semantic_text("customer TABLES");
    assert_eq!(types, ["Table"]);
    assert_eq!(rest, parse_search_text("customer"));
    let (types, rest) = parse_semantic_text("Views table tables sales_order");
    assert_eq!(types, ["View", "Table"]);
    assert_eq!(rest, parse_search_text("sales_order"));
    let (types, rest) = parse_semantic_text("columns");
    assert_eq!(types, ["Column"]);
    assert!(rest.is_empty());
    // Only plain words: a phrase, a sign or a wildcard keeps the word search text.
    let (types, rest) = parse_semantic_text("\"tables\" +views terms* -keys");
    assert!(types.is_empty(), "{types:?}");
    assert_eq!(rest.len(), 4);
    assert_eq!(
        semantic_word("Key"),
        Some(&["Primary Key", "Foreign Key"][..])
    );
    assert_eq!(semantic_word("customer"), None);
}

#[test]
fn a_text_mentions_the_terms_a_search_matches_in_it() {
    let terms = parse_search_text("cust* +order_id \"Sales Order\" -x a.b =exact");
    assert!(mentions(&terms, "2023_CUSTOMER_ID"), "a prefix, folded");
    assert!(mentions(&terms, "ORDER:ID"), "word breakers");
    assert!(mentions(&terms, "sales_order_lines"), "a phrase");
    assert!(mentions(&terms, "parent b"), "the child of parent.child");
    assert!(mentions(&terms, "EXACT"), "an exact name");
    assert!(
        !mentions(&terms, "exactly"),
        "an exact name is the whole name"
    );
    assert!(!mentions(&terms, "x"), "an excluded term is no match");
    // ASCII folding, as the stores compare: an `É` is not an `é`.
    assert!(!mentions(&parse_search_text("é"), "CAFÉ"));
    assert!(mentions(&parse_search_text("É"), "CAFÉ"));
}
