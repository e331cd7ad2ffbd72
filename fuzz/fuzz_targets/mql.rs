//! MQL from arbitrary text: the parser, the validator (every version) and the upgrade
//! never panic, and a parsed query written back parses to the same text again.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use lore_core::model::MetaModel;
use lore_core::mql::upgrade::upgrade;
use lore_core::mql::validate::validate;
use lore_core::mql::{QueryFields, parse_fields, parse_query, parse_search_text};

fn meta() -> &'static MetaModel {
    static META: OnceLock<MetaModel> = OnceLock::new();
    META.get_or_init(MetaModel::builtin)
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The endpoints' fields, separated by U+0001 in the input.
    let mut parts = text.splitn(5, '\u{1}');
    let fields = QueryFields {
        select: parts.next().unwrap_or_default(),
        from: parts.next(),
        filter: parts.next(),
        order_by: parts.next(),
        scope: parts.next(),
        context: None,
    };
    if let Ok(query) = parse_fields(&fields) {
        for version in 1..=3 {
            let _ = validate(&query, meta(), version);
        }
        let _ = upgrade(&query, meta());
    }
    if let Ok(query) = parse_query(text) {
        let _ = validate(&query, meta(), 3);
        let written = query.to_string();
        let again = parse_query(&written)
            .unwrap_or_else(|e| panic!("'{written}', written back from '{text}', fails: {e}"));
        assert_eq!(again.to_string(), written, "writing back is a fixed point");
    }
    let _ = parse_search_text(text);
});
