use chrono::NaiveDate;

use super::*;
use lore_model::error::{Error, ErrorCode};

/// Display and round trips, search text.
mod text;

fn filter(text: &str) -> Filter {
    match parse_where(text) {
        Ok(Expr::Filter(filter)) => filter,
        other => panic!("{text}: not one filter: {other:?}"),
    }
}

fn op(text: &str) -> Op {
    filter(text).op
}

fn syntax_error<T: std::fmt::Debug>(result: Result<T, SyntaxError>) -> SyntaxError {
    match result {
        Err(error) => error,
        Ok(parsed) => panic!("parsed: {parsed:?}"),
    }
}

fn text(s: &str) -> Value {
    Value::Text(s.to_owned())
}

fn number(s: &str) -> Value {
    Value::Number {
        text: s.to_owned(),
        value: s.parse().unwrap(),
    }
}

fn date(y: i32, m: u32, d: u32) -> Value {
    Value::Date(NaiveDate::from_ymd_opt(y, m, d).unwrap())
}

fn attribute(parts: &[&str]) -> Subject {
    Subject::Attribute(path(parts))
}

/// A path whose parts are quoted when they hold a space.
fn path(parts: &[&str]) -> Path {
    Path(
        parts
            .iter()
            .map(|p| {
                if p.contains(' ') {
                    Name::quoted(*p)
                } else {
                    Name::plain(*p)
                }
            })
            .collect(),
    )
}

fn eq(parts: &[&str], value: Value) -> Expr {
    Expr::Filter(Filter {
        subject: attribute(parts),
        op: Op::Eq(value),
    })
}

// ---- SELECT ----

#[test]
fn select_lists_attributes_paths_and_functions() {
    let items = parse_select(
        "Name, \"Object Type\", Parent.\"Object Type\", \"Data Profiling\".Max, \
         \"Data Modeling (Business)\".\"Data Type\", MembersOfRole('Steward'), Count('Is Defined By')",
    )
    .unwrap();
    assert_eq!(
        items,
        vec![
            SelectItem::Attribute(path(&["Name"])),
            SelectItem::Attribute(path(&["Object Type"])),
            SelectItem::Attribute(path(&["Parent", "Object Type"])),
            SelectItem::Attribute(path(&["Data Profiling", "Max"])),
            SelectItem::Attribute(path(&["Data Modeling (Business)", "Data Type"])),
            SelectItem::MembersOfRole("Steward".into()),
            SelectItem::Count("Is Defined By".into()),
        ]
    );
}

#[test]
fn select_function_names_ignore_case_but_arguments_and_names_keep_it() {
    let items = parse_select("membersofrole('Data Steward'), COUNT('Tables'), name").unwrap();
    assert_eq!(
        items,
        vec![
            SelectItem::MembersOfRole("Data Steward".into()),
            SelectItem::Count("Tables".into()),
            SelectItem::Attribute(path(&["name"])),
        ]
    );
}

#[test]
fn count_without_parenthesis_is_an_attribute() {
    assert_eq!(
        parse_select("Count, Counter").unwrap(),
        vec![
            SelectItem::Attribute(path(&["Count"])),
            SelectItem::Attribute(path(&["Counter"])),
        ]
    );
}

#[test]
fn select_quoted_names_with_doubled_quotes() {
    let items = parse_select("\"Say \"\"hi\"\"\"").unwrap();
    assert_eq!(
        items,
        vec![SelectItem::Attribute(Path(vec![Name::quoted(
            "Say \"hi\""
        )]))]
    );
}

#[test]
fn select_rejects_reserved_words_unless_quoted() {
    let error = syntax_error(parse_select("Name, text"));
    assert_eq!((error.line, error.column), (1, 7));
    assert_eq!(error.found, "text");
    assert!(error.to_string().contains("reserved word"), "{error}");
    assert_eq!(
        parse_select("\"text\", \"Last\"").unwrap(),
        vec![
            SelectItem::Attribute(Path(vec![Name::quoted("text")])),
            SelectItem::Attribute(Path(vec![Name::quoted("Last")])),
        ]
    );
}

#[test]
fn select_rejects_empty_items() {
    assert!(parse_select("").is_err());
    assert!(parse_select("Name,").is_err());
    assert!(parse_select(",Name").is_err());
    assert!(parse_select("Name,,Description").is_err());
}

#[test]
fn paths_have_at_most_three_parts() {
    assert!(parse_select("Parent.\"Data Modeling (Business)\".\"Data Type\"").is_ok());
    let error = syntax_error(parse_select("A.B.C.D"));
    assert_eq!(
        error.message.as_deref(),
        Some("a path has at most three parts")
    );
}

// ---- operators ----

#[test]
fn comparison_operators() {
    assert_eq!(op("Name = 'x'"), Op::Eq(text("x")));
    assert_eq!(op("Name != 'x'"), Op::Ne(text("x")));
    assert_eq!(op("Name <> 'x'"), Op::Ne(text("x")));
    assert_eq!(op("\"Comment Count\" < 3"), Op::Lt(number("3")));
    assert_eq!(op("\"Comment Count\" <= 3"), Op::Le(number("3")));
    assert_eq!(op("\"Comment Count\" > 3"), Op::Gt(number("3")));
    assert_eq!(op("\"Comment Count\" >= 3"), Op::Ge(number("3")));
}

#[test]
fn whitespace_around_operators_is_optional() {
    assert_eq!(op("Name='x'"), Op::Eq(text("x")));
    assert_eq!(op("Name!='x'"), Op::Ne(text("x")));
    assert_eq!(op("Name<>'x'"), Op::Ne(text("x")));
    assert_eq!(op("\"Comment Count\"<=-3"), Op::Le(number("-3")));
    assert_eq!(op("\"Comment Count\">=3"), Op::Ge(number("3")));
    assert_eq!(
        op("\"Object Type\"=ANY('Table','Column')"),
        op("\"Object Type\" = ANY ('Table', 'Column')")
    );
    assert_eq!(op("Labels!=ALL('a')"), Op::NeAll(vec![text("a")]));
    assert_eq!(
        parse_where("Name='a'AND Description='b'").unwrap(),
        Expr::And(vec![
            eq(&["Name"], text("a")),
            eq(&["Description"], text("b"))
        ])
    );
}

#[test]
fn any_and_all_lists() {
    let values = vec![text("Table"), text("Column")];
    assert_eq!(
        op("\"Object Type\" = ANY ('Table', 'Column')"),
        Op::EqAny(values.clone())
    );
    assert_eq!(
        op("\"Object Type\" =ANY ('Table', 'Column')"),
        Op::EqAny(values.clone())
    );
    assert_eq!(
        op("\"Object Type\" != ANY ('Table', 'Column')"),
        Op::NeAny(values.clone())
    );
    assert_eq!(
        op("Labels = ALL ('Table', 'Column')"),
        Op::EqAll(values.clone())
    );
    assert_eq!(op("Labels != all ('Table', 'Column')"), Op::NeAll(values));
    assert_eq!(
        op("\"Data Profiling\".Max = any (1, -2.5, 2014-10-26)"),
        Op::EqAny(vec![number("1"), number("-2.5"), date(2014, 10, 26)])
    );
    assert!(parse_where("Labels = ANY ()").is_err());
    assert!(parse_where("Labels = ANY ('a',)").is_err());
    assert!(parse_where("Labels = ANY 'a'").is_err());
}

#[test]
fn exists_and_not_exists() {
    assert_eq!(op("\"Is Defined By\" EXISTS"), Op::Exists);
    assert_eq!(op("\"Is Defined By\" NOT EXISTS"), Op::NotExists);
    assert_eq!(op("\"Is Defined By\" not   exists"), Op::NotExists);
}

#[test]
fn starts_ends_contains_with_and_without_not() {
    let v = || text("cust");
    assert_eq!(
        op("Name STARTS WITH 'cust'"),
        Op::StartsWith {
            not: false,
            value: v()
        }
    );
    assert_eq!(
        op("Name NOT STARTS WITH 'cust'"),
        Op::StartsWith {
            not: true,
            value: v()
        }
    );
    assert_eq!(
        op("Name ends with 'cust'"),
        Op::EndsWith {
            not: false,
            value: v()
        }
    );
    assert_eq!(
        op("Name Not Ends With 'cust'"),
        Op::EndsWith {
            not: true,
            value: v()
        }
    );
    assert_eq!(
        op("Name CONTAINS 'cust'"),
        Op::Contains {
            not: false,
            value: v()
        }
    );
    assert_eq!(
        op("Name NOT CONTAINS 'cust'"),
        Op::Contains {
            not: true,
            value: v()
        }
    );
    assert!(parse_where("Name STARTS 'cust'").is_err());
    assert!(parse_where("Name NOT 'cust'").is_err());
}

#[test]
fn before_after_between() {
    assert_eq!(
        op("\"Updated Date\" BEFORE 2014-10-26"),
        Op::Before(date(2014, 10, 26))
    );
    assert_eq!(
        op("\"Updated Date\" after YESTERDAY"),
        Op::After(Value::Yesterday)
    );
    assert_eq!(
        op("\"Updated Date\" BETWEEN '2014-10-26 10:00:00' AND TODAY"),
        Op::Between(text("2014-10-26 10:00:00"), Value::Today)
    );
}

#[test]
fn between_and_is_not_a_logical_and() {
    let parsed = parse_where(
        "\"Updated Date\" BETWEEN 2014-01-01 AND 2014-12-31 AND Name = 'x' OR \"Comment Count\" BETWEEN 1 AND 5",
    )
    .unwrap();
    let between = |subject: &str, low: Value, high: Value| {
        Expr::Filter(Filter {
            subject: attribute(&[subject]),
            op: Op::Between(low, high),
        })
    };
    assert_eq!(
        parsed,
        Expr::Or(vec![
            Expr::And(vec![
                between("Updated Date", date(2014, 1, 1), date(2014, 12, 31)),
                eq(&["Name"], text("x")),
            ]),
            between("Comment Count", number("1"), number("5")),
        ])
    );
}

#[test]
fn operators_are_case_insensitive() {
    assert_eq!(op("Labels = any ('a')"), Op::EqAny(vec![text("a")]));
    assert_eq!(
        op("Name Starts With 'a'"),
        Op::StartsWith {
            not: false,
            value: text("a")
        }
    );
    assert_eq!(
        op("x between 1 and 2"),
        Op::Between(number("1"), number("2"))
    );
}

// ---- values ----

#[test]
fn quoted_values_unescape_doubled_quotes() {
    assert_eq!(op("Name = 'O''Brien'"), Op::Eq(text("O'Brien")));
    assert_eq!(op("Name = ''''"), Op::Eq(text("'")));
    assert_eq!(op("Name = ''"), Op::Eq(text("")));
    assert_eq!(op("Name = 'a \"b\" AND c'"), Op::Eq(text("a \"b\" AND c")));
}

#[test]
fn numbers_keep_their_text() {
    assert_eq!(op("x = -200"), Op::Eq(number("-200")));
    assert_eq!(op("x = 3.123456E30"), Op::Eq(number("3.123456E30")));
    assert_eq!(op("x = 1e-3"), Op::Eq(number("1e-3")));
    assert_eq!(op("x = 0.5"), Op::Eq(number("0.5")));
    match op("x = 3.123456E30") {
        Op::Eq(Value::Number { value, .. }) => assert!((value - 3.123456e30).abs() < 1e16),
        other => panic!("{other:?}"),
    }
}

#[test]
fn dates_unquoted_are_dates_and_quoted_stay_text() {
    assert_eq!(
        op("\"Updated Date\" = 2014-10-26"),
        Op::Eq(date(2014, 10, 26))
    );
    let quoted = op("\"Updated Date\" = '2014-10-26'");
    assert_eq!(quoted, Op::Eq(text("2014-10-26")));
    let Op::Eq(value) = quoted else { panic!() };
    assert_eq!(
        value.date_time(),
        NaiveDate::from_ymd_opt(2014, 10, 26).and_then(|d| d.and_hms_opt(0, 0, 0))
    );
    let Op::Eq(datetime) = op("\"Updated Date\" = '2014-10-26 13:14:15'") else {
        panic!()
    };
    assert_eq!(
        datetime.date_time(),
        NaiveDate::from_ymd_opt(2014, 10, 26).and_then(|d| d.and_hms_opt(13, 14, 15))
    );
    assert_eq!(text("not a date").date_time(), None);
}

#[test]
fn invalid_unquoted_dates_are_errors() {
    let error = syntax_error(parse_where("\"Updated Date\" = 2014-13-45"));
    assert_eq!((error.line, error.column), (1, 18));
    assert_eq!(
        error.message.as_deref(),
        Some("2014-13-45 is not a valid date")
    );
}

#[test]
fn keyword_values() {
    assert_eq!(
        op("ExpandedMembersOfRole('Steward') = ME"),
        Op::Eq(Value::Me)
    );
    assert_eq!(op("\"Endorsed By\" = me"), Op::Eq(Value::Me));
    assert_eq!(op("\"Updated Date\" = Today"), Op::Eq(Value::Today));
    assert_eq!(op("\"Updated Date\" = yesterday"), Op::Eq(Value::Yesterday));
    assert_eq!(
        op("\"Updated Date\" = LAST 7 DAYS"),
        Op::Eq(Value::Last {
            n: 7,
            unit: TimeUnit::Days
        })
    );
    assert_eq!(
        op("\"Updated Date\" = last 1 hour"),
        Op::Eq(Value::Last {
            n: 1,
            unit: TimeUnit::Hours
        })
    );
    assert_eq!(
        op("\"Updated Date\" = LAST 30 Minutes"),
        Op::Eq(Value::Last {
            n: 30,
            unit: TimeUnit::Minutes
        })
    );
    assert_eq!(
        op("\"Updated Date\" = LAST 2 DAY"),
        Op::Eq(Value::Last {
            n: 2,
            unit: TimeUnit::Days
        })
    );
    assert!(parse_where("\"Updated Date\" = LAST DAYS").is_err());
    assert!(parse_where("\"Updated Date\" = LAST 7 WEEKS").is_err());
    let error = syntax_error(parse_where("\"Updated Date\" = LAST 99999999999 DAYS"));
    assert!(error.to_string().contains("too large"), "{error}");
}

#[test]
fn bare_words_are_values() {
    assert_eq!(
        op("\"Data Classifications\" = City"),
        Op::Eq(Value::Bare("City".into()))
    );
    assert_eq!(op("Certified = true"), Op::Eq(Value::Bare("true".into())));
    assert_eq!(op("x = Menu"), Op::Eq(Value::Bare("Menu".into())));
    let error = syntax_error(parse_where("x = 12abc"));
    assert!(
        error.to_string().contains("not a number, a date or a word"),
        "{error}"
    );
}

// ---- logic ----

#[test]
fn and_binds_before_or() {
    let a = || eq(&["A"], text("a"));
    let b = || eq(&["B"], text("b"));
    let c = || eq(&["C"], text("c"));
    assert_eq!(
        parse_where("A = 'a' OR B = 'b' AND C = 'c'").unwrap(),
        Expr::Or(vec![a(), Expr::And(vec![b(), c()])])
    );
    assert_eq!(
        parse_where("A = 'a' AND B = 'b' OR C = 'c'").unwrap(),
        Expr::Or(vec![Expr::And(vec![a(), b()]), c()])
    );
    assert_eq!(
        parse_where("(A = 'a' OR B = 'b') AND C = 'c'").unwrap(),
        Expr::And(vec![Expr::Or(vec![a(), b()]), c()])
    );
    assert_eq!(
        parse_where("A = 'a' and (B = 'b' or C = 'c')").unwrap(),
        Expr::And(vec![a(), Expr::Or(vec![b(), c()])])
    );
    assert_eq!(parse_where("((A = 'a'))").unwrap(), a());
    assert_eq!(
        parse_where("A = 'a' OR B = 'b' OR C = 'c'").unwrap(),
        Expr::Or(vec![a(), b(), c()])
    );
}

#[test]
fn dangling_logic_is_an_error() {
    for bad in [
        "A = 'a' AND",
        "A = 'a' OR",
        "AND A = 'a'",
        "(A = 'a'",
        "A = 'a')",
        "()",
    ] {
        assert!(parse_where(bad).is_err(), "{bad}");
    }
}

// ---- names and case ----

#[test]
fn names_keep_their_case_and_keywords_do_not_matter() {
    let lower = filter(
        "name = 'X' and DESCRIPTION contains 'y'"
            .split(" and ")
            .next()
            .unwrap(),
    );
    assert_eq!(lower.subject, attribute(&["name"]));
    assert_eq!(
        parse_where("name = 'X' and DESCRIPTION contains 'y'").unwrap(),
        parse_where("name = 'X' AND DESCRIPTION CONTAINS 'y'").unwrap()
    );
    assert_ne!(
        parse_where("name = 'X'").unwrap(),
        parse_where("Name = 'X'").unwrap()
    );
    assert_ne!(
        parse_where("Name = 'x'").unwrap(),
        parse_where("Name = 'X'").unwrap()
    );
}

#[test]
fn reserved_words_quoted_are_attributes() {
    assert_eq!(
        filter("\"text\" = 'x'").subject,
        Subject::Attribute(Path(vec![Name::quoted("text")]))
    );
    assert_eq!(
        filter("\"Content\" EXISTS").subject,
        Subject::Attribute(Path(vec![Name::quoted("Content")]))
    );
    let error = syntax_error(parse_where("Name = 'x' AND after = 'y'"));
    assert_eq!(error.found, "after");
}

#[test]
fn related_and_profile_paths() {
    assert_eq!(
        filter("Parent.\"Object Type\" = 'Table'").subject,
        attribute(&["Parent", "Object Type"])
    );
    assert_eq!(
        filter("\"Data Profiling\".Max > 10").subject,
        attribute(&["Data Profiling", "Max"])
    );
    assert_eq!(
        filter("\"Data Profiling\".\"Distinct\" >= 1").subject,
        Subject::Attribute(Path(vec![
            Name::quoted("Data Profiling"),
            Name::quoted("Distinct")
        ]))
    );
    assert_eq!(
        filter("Children.Name = 'id'").subject,
        attribute(&["Children", "Name"])
    );
    assert_eq!(
        filter("\"Data Modeling (Business)\".\"Data Type\" = 'STRING'").subject,
        attribute(&["Data Modeling (Business)", "Data Type"])
    );
}

// ---- special filters ----

#[test]
fn text_filters_with_within() {
    assert_eq!(
        filter("text = 'customer'"),
        Filter {
            subject: Subject::Text {
                semantic: false,
                within: vec![]
            },
            op: Op::Eq(text("customer")),
        }
    );
    assert_eq!(
        filter("TEXT = '+phone +number' WITHIN (Name, Description)").subject,
        Subject::Text {
            semantic: false,
            within: vec!["Name".into(), "Description".into()]
        }
    );
    assert_eq!(
        filter("text='x' within ('Name', 'Physical Name', \"Others\")").subject,
        Subject::Text {
            semantic: false,
            within: vec!["Name".into(), "Physical Name".into(), "Others".into()]
        }
    );
    assert_eq!(
        filter("semantic_search_text = 'customer tables'").subject,
        Subject::Text {
            semantic: true,
            within: vec![]
        }
    );
    let error = syntax_error(parse_where("Name = 'x' WITHIN (Name)"));
    assert!(error.to_string().contains("WITHIN follows only"), "{error}");
}

#[test]
fn category_content_and_functions() {
    assert_eq!(
        filter("category = 'Glossary.Term'"),
        Filter {
            subject: Subject::Category,
            op: Op::Eq(text("Glossary.Term"))
        }
    );
    assert_eq!(
        filter("Content = ANY ('A', 'B.C')"),
        Filter {
            subject: Subject::Content,
            op: Op::EqAny(vec![text("A"), text("B.C")])
        }
    );
    assert_eq!(
        filter("expandedmembersofrole('Data Steward') != ANY (ME, 'bob')"),
        Filter {
            subject: Subject::ExpandedMembersOfRole("Data Steward".into()),
            op: Op::NeAny(vec![Value::Me, text("bob")]),
        }
    );
    assert_eq!(
        filter("Count('Is Defined By') > 0"),
        Filter {
            subject: Subject::Count("Is Defined By".into()),
            op: Op::Gt(number("0"))
        }
    );
    assert_eq!(filter("Count = 1").subject, attribute(&["Count"]));
}

// ---- FROM and scope ----

#[test]
fn from_ids() {
    for id in ["/Configuration/Published", "447_16", "-1_4", "Zm9vYmFy-_x"] {
        let from = parse_from(id).unwrap();
        assert_eq!(from.id, SourceId::plain(id));
        assert_eq!(from.scope, None);
    }
    let quoted = parse_from("'/Configuration/My Folder'").unwrap();
    assert_eq!(
        quoted.id,
        SourceId {
            text: "/Configuration/My Folder".into(),
            quoted: true
        }
    );
    let double = parse_from("  \"/Conf/It's\"  ").unwrap();
    assert_eq!(double.id.text, "/Conf/It's");
    assert!(parse_from("").is_err());
    assert!(parse_from("/a /b").is_err());
}

#[test]
fn scope_filters() {
    let from =
        parse_from("/Configuration/Published (Model = WHERE (Name = 'Sales' OR Name = 'HR'))")
            .unwrap();
    let scope = Expr::Filter(Filter {
        subject: attribute(&["Model"]),
        op: Op::EqWhere(Box::new(Expr::Or(vec![
            eq(&["Name"], text("Sales")),
            eq(&["Name"], text("HR")),
        ]))),
    });
    assert_eq!(from.scope, Some(scope.clone()));
    assert_eq!(
        parse_where("Model = where (Name = 'Sales' OR Name = 'HR')").unwrap(),
        scope
    );
    // Without a parenthesis WHERE is an ordinary word.
    assert_eq!(op("Model = WHERE"), Op::Eq(Value::Bare("WHERE".into())));
}

// ---- ORDER BY ----

#[test]
fn order_by_forms() {
    let key = |name: &str, direction| OrderKey::Attribute {
        path: path(&[name]),
        direction,
    };
    assert_eq!(
        parse_order_by("Name asc").unwrap(),
        vec![key("Name", Some(Direction::Asc))]
    );
    assert_eq!(
        parse_order_by("Name DESC").unwrap(),
        vec![key("Name", Some(Direction::Desc))]
    );
    assert_eq!(
        parse_order_by("relevance").unwrap(),
        vec![OrderKey::Relevance]
    );
    assert_eq!(
        parse_order_by("\"Updated Date\"").unwrap(),
        vec![key("Updated Date", None)]
    );
    assert_eq!(
        parse_order_by("Name, \"Updated Date\" desc").unwrap(),
        vec![
            key("Name", None),
            key("Updated Date", Some(Direction::Desc))
        ]
    );
    assert_eq!(
        parse_order_by("\"Relevance\"").unwrap(),
        vec![OrderKey::Attribute {
            path: Path(vec![Name::quoted("Relevance")]),
            direction: None
        }]
    );
    assert!(parse_order_by("Name upward").is_err());
    assert!(parse_order_by("").is_err());
}

// ---- version 1 ----

#[test]
fn version_one_notation_marks() {
    let marked = |text: &str, notation| Name {
        text: text.into(),
        quoted: false,
        marks: Some(notation),
    };
    assert_eq!(
        filter("#Object Type# = 'Table'").subject,
        Subject::Attribute(Path(vec![marked("Object Type", Notation::System)]))
    );
    assert_eq!(
        filter("[Data Type] = 'int'").subject,
        Subject::Attribute(Path(vec![marked("Data Type", Notation::Profile)]))
    );
    assert_eq!(
        filter("{Security Level} = 'High'").subject,
        Subject::Attribute(Path(vec![marked("Security Level", Notation::Custom)]))
    );
    assert_eq!(
        filter("<2PC Option> EXISTS").subject,
        Subject::Attribute(Path(vec![marked("2PC Option", Notation::Udp)]))
    );
    assert_eq!(
        parse_select("#Name#, [Data Type], {Security Level}, <UDP1>")
            .unwrap()
            .len(),
        4
    );
    // Removed filter words are plain names for the validator to map.
    assert_eq!(filter("label = 'x'").subject, attribute(&["label"]));
    assert_eq!(
        filter("object_type = ANY ('Table')").subject,
        attribute(&["object_type"])
    );
    // Display drops the marks.
    assert_eq!(
        parse_where("#Object Type# = 'Table' AND {Level} = 1")
            .unwrap()
            .to_string(),
        "\"Object Type\" = 'Table' AND Level = 1"
    );
    assert!(parse_where("#Object Type = 'x'").is_err());
}

// ---- whole queries ----

#[test]
fn whole_query() {
    let query = parse_query(
        "select Name, \"Object Type\" from /Configuration/Published context '/Config/Version 2' \
         where text = 'customer' AND \"Object Type\" = 'Table' order by Relevance",
    )
    .unwrap();
    assert_eq!(query.select.len(), 2);
    assert_eq!(
        query.from.as_ref().map(|f| f.id.text.as_str()),
        Some("/Configuration/Published")
    );
    assert_eq!(
        query.context,
        Some(SourceId {
            text: "/Config/Version 2".into(),
            quoted: true
        })
    );
    assert!(matches!(query.filter, Some(Expr::And(ref parts)) if parts.len() == 2));
    assert_eq!(query.order_by, vec![OrderKey::Relevance]);

    let minimal = parse_query("SELECT Name FROM 447_16").unwrap();
    assert_eq!(
        minimal,
        Query {
            select: vec![SelectItem::Attribute(path(&["Name"]))],
            from: Some(FromClause {
                id: SourceId::plain("447_16"),
                scope: None
            }),
            context: None,
            filter: None,
            order_by: vec![],
        }
    );
    assert!(parse_query("SELECT Name").is_err());
    assert!(parse_query("Name FROM x").is_err());
}

#[test]
fn multi_line_query_and_error_position() {
    let query = "SELECT Name\nFROM /Published\nWHERE Name = 'x'\n  AND Description = AND";
    let error = syntax_error(parse_query(query));
    assert_eq!((error.line, error.column), (4, 21));
    assert_eq!(error.found, "AND");
    assert_eq!(
        error.expected,
        vec!["a value in single quotes, a number or a date".to_owned()]
    );
    assert!(parse_query("SELECT Name\r\nFROM /Published\r\nWHERE Name = 'x'").is_ok());
}

// ---- errors ----

#[test]
fn error_names_line_column_expected_and_found() {
    let error = syntax_error(parse_where("\"Object Type\" = AND"));
    assert_eq!(
        error.to_string(),
        "line 1, column 17: expected a value in single quotes, a number or a date, found 'AND' \
         (a reserved word: quote it to use it as a name or value)"
    );
    let error = syntax_error(parse_where("\"Object Type\" = 'Table' foo"));
    assert_eq!((error.line, error.column), (1, 25));
    assert_eq!(error.found, "foo");
    assert!(error.expected.contains(&"'AND'".to_owned()), "{error}");
    assert!(error.expected.contains(&"'OR'".to_owned()), "{error}");
    assert!(
        error.expected.contains(&"end of input".to_owned()),
        "{error}"
    );
}

#[test]
fn error_at_the_end_of_input() {
    let error = syntax_error(parse_where("Name ="));
    assert_eq!((error.line, error.column), (1, 7));
    assert_eq!(error.found, "");
    assert!(error.to_string().ends_with("found end of input"), "{error}");
    let error = syntax_error(parse_where("Name"));
    assert!(
        error.expected.contains(&"an operator".to_owned()),
        "{error}"
    );
}

#[test]
fn unterminated_quotes() {
    let error = syntax_error(parse_where("Name = 'abc"));
    assert!(
        error
            .expected
            .contains(&"a closing single quote".to_owned()),
        "{error}"
    );
    let error = syntax_error(parse_where("\"Object Type = 'x'"));
    assert!(
        error
            .expected
            .contains(&"a closing double quote".to_owned()),
        "{error}"
    );
}

#[test]
fn columns_count_characters_not_bytes() {
    let error = syntax_error(parse_where("\"Größe Ω\" = 'é' §"));
    assert_eq!((error.line, error.column), (1, 17));
    assert_eq!(error.found, "§");
}

#[test]
fn syntax_errors_become_invalid_parameter() {
    let error: Error = syntax_error(parse_where("Name = ")).into();
    assert_eq!(error.code, ErrorCode::InvalidParameter);
    assert!(
        error
            .message
            .starts_with("invalid MQL: line 1, column 8: expected"),
        "{}",
        error.message
    );
}

#[test]
fn nesting_is_limited() {
    let nested = |depth: usize| format!("{}Name = 'x'{}", "(".repeat(depth), ")".repeat(depth));
    assert!(parse_where(&nested(MAX_DEPTH)).is_ok());
    let error = syntax_error(parse_where(&nested(MAX_DEPTH + 1)));
    assert_eq!((error.line, error.column), (1, MAX_DEPTH + 1));
    assert!(
        error.to_string().contains("nested deeper than 64"),
        "{error}"
    );
    // Parentheses inside quotes do not count.
    let quoted = format!("Name = '{}'", "(".repeat(1000));
    assert!(parse_where(&quoted).is_ok());
    // Nested scope filters count too.
    let mut scope = "Name = 'x'".to_owned();
    for _ in 0..MAX_DEPTH {
        scope = format!("Model = WHERE ({scope})");
    }
    assert!(parse_where(&scope).is_ok());
    assert!(parse_where(&format!("Model = WHERE ({scope})")).is_err());
}

#[test]
fn length_is_limited() {
    let long = format!("Name = '{}'", "x".repeat(MAX_INPUT_CHARS));
    let error = syntax_error(parse_where(&long));
    assert!(error.to_string().contains("longer than"), "{error}");
}

#[test]
fn garbage_never_panics() {
    let samples = [
        "",
        " ",
        "(",
        ")",
        "'",
        "\"",
        "#",
        "[",
        "{",
        "<",
        "=",
        "!=",
        "<>",
        "==",
        "= =",
        "Name = 'x' AND (",
        "Name = ANY (",
        "Name BETWEEN 1",
        "Name BETWEEN 1 AND",
        "LAST",
        "Name = LAST 7",
        "\u{0}",
        "\u{FEFF}Name = 'x'",
        "ÿ = 'x'",
        "Name = 1e",
        "Name = --1",
        "Name = 1..2",
        "a.b.",
        ".a",
        "Model = WHERE (",
        "Count(",
        "Count('x'",
        "text = 'x' WITHIN",
        "text = 'x' WITHIN (",
        "x NOT",
        "x STARTS WITH",
        "\n\n\n",
        "'\n'\n",
        "#a\nb# = 1",
        "x = 9999-99-99",
        "x = 2014-02-30",
    ];
    for sample in samples {
        let _ = parse_where(sample);
        let _ = parse_select(sample);
        let _ = parse_from(sample);
        let _ = parse_order_by(sample);
        let _ = parse_query(sample);
        let _ = parse_search_text(sample);
    }
}

#[test]
fn every_prefix_and_mutation_of_queries_parses_or_fails_cleanly() {
    let query = "SELECT Name, \"Data Profiling\".Max, Count('Is Defined By') FROM /Conf (Model = WHERE (Name = 'a')) \
                 CONTEXT 1_2 WHERE (text = '\"x\" +y' WITHIN (Name) OR #Type# != ANY ('a', 2)) \
                 AND \"Updated Date\" BETWEEN 2014-10-26 AND LAST 7 DAYS ORDER BY Name DESC";
    assert!(parse_query(query).is_ok());
    let chars: Vec<char> = query.chars().collect();
    for end in 0..chars.len() {
        let prefix: String = chars[..end].iter().collect();
        let _ = parse_query(&prefix);
    }
    // A small deterministic mutation loop: replace, drop or duplicate characters.
    let alphabet: Vec<char> = "()'\",.=!<>#[]{}- aA1\n".chars().collect();
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        usize::try_from(seed % 1_000_003).unwrap()
    };
    for _ in 0..1500 {
        let mut mutated = chars.clone();
        for _ in 0..3 {
            let at = next() % mutated.len();
            match next() % 3 {
                0 => mutated[at] = alphabet[next() % alphabet.len()],
                1 => {
                    mutated.remove(at);
                }
                _ => mutated.insert(at, mutated[at]),
            }
        }
        let text: String = mutated.into_iter().collect();
        if let Ok(parsed) = parse_query(&text) {
            // Whatever parses writes back to text that parses and writes the same
            // (notation marks are dropped on the first write).
            let written = parsed.to_string();
            let again = parse_query(&written).unwrap_or_else(|e| panic!("{written}: {e}"));
            assert_eq!(again.to_string(), written, "{text}");
        }
    }
}
