//! The cases of MQL queries and worksheets.

use crate::cases::{B, Case, D, N, Needs, execute, query, worksheets};

/// The cases of this part, in the order they run.
pub(super) fn cases() -> Vec<Case> {
    vec![
        // MQL queries
        case!(
            query::validate_mql_query_answers_current_syntax_and_warnings,
            AnyServer,
            [("GET", "/entities/validateMQLQuery", N)]
        ),
        case!(
            query::validate_mql_query_refuses_invalid_queries,
            AnyServer,
            [("GET", "/entities/validateMQLQuery", B)]
        ),
        case!(
            query::upgrade_mql_query_rewrites_earlier_syntax,
            AnyServer,
            [
                ("POST", "/entities/upgradeMQLQuery", N),
                ("GET", "/entities/validateMQLQuery", N)
            ]
        ),
        case!(
            query::upgrade_mql_query_refuses_invalid_queries,
            AnyServer,
            [("POST", "/entities/upgradeMQLQuery", B)]
        ),
        case!(
            execute::execute_mql_query_filters_orders_and_pages,
            AnyServer,
            [
                ("POST", "/entities/executeMQLQuery", N),
                ("GET", "/entities/countMQLQuery", N)
            ]
        ),
        case!(
            execute::text_search_follows_renames_and_removals,
            AnyServer,
            [
                ("POST", "/entities/executeMQLQuery", N),
                ("GET", "/entities/countMQLQuery", N)
            ]
        ),
        case!(
            execute::execute_mql_query_follows_the_multi_valued_rules,
            AnyServer,
            [
                ("POST", "/entities/executeMQLQuery", N),
                ("GET", "/entities/countMQLQuery", N)
            ]
        ),
        case!(
            execute::execute_mql_query_legacy_format_and_unknown_names,
            AnyServer,
            [("POST", "/entities/executeMQLQuery", N)]
        ),
        case!(
            execute::execute_mql_query_refuses_bad_input,
            AnyServer,
            [("POST", "/entities/executeMQLQuery", B)]
        ),
        case!(
            execute::get_attribute_value_counts_counts_values,
            AnyServer,
            [("POST", "/entities/getAttributeValueCounts", N)]
        ),
        case!(
            execute::get_attribute_value_counts_refuses_bad_input,
            AnyServer,
            [("POST", "/entities/getAttributeValueCounts", B)]
        ),
        case!(
            execute::entity_with_select_answers_mql_format,
            AnyServer,
            [
                ("GET", "/entities/{objectId}", N),
                ("GET", "/entities/{objectId}", B)
            ]
        ),
        case!(
            execute::relationships_of_an_object,
            AnyServer,
            [
                ("GET", "/relationships/{objectId}", N),
                ("GET", "/relationships/count/{objectId}", N)
            ]
        ),
        case!(
            execute::relationships_bad_input,
            AnyServer,
            [
                ("GET", "/relationships/{objectId}", B),
                ("GET", "/relationships/count/{objectId}", B)
            ]
        ),
        case!(
            execute::count_mql_query_refuses_bad_input,
            AnyServer,
            [("GET", "/entities/countMQLQuery", B)]
        ),
        // Worksheets
        case!(
            worksheets::worksheets_save_list_get_and_delete,
            AnyServer,
            [
                ("POST", "/worksheets", N),
                ("GET", "/worksheets", N),
                ("GET", "/worksheets/{worksheetId}", N),
                ("DELETE", "/worksheets/{worksheetId}", N),
            ]
        ),
        case!(
            worksheets::execute_worksheet_runs_the_saved_query,
            AnyServer,
            [
                ("POST", "/entities/executeWorksheet", N),
                ("GET", "/entities/countWorksheet", N),
                ("POST", "/worksheets", N),
            ]
        ),
        case!(
            worksheets::create_worksheet_refuses_bad_input,
            AnyServer,
            [("POST", "/worksheets", B)]
        ),
        case!(
            worksheets::worksheet_routes_refuse_bad_ids,
            AnyServer,
            [
                ("GET", "/worksheets", B),
                ("GET", "/worksheets/{worksheetId}", B),
                ("DELETE", "/worksheets/{worksheetId}", B),
            ]
        ),
        case!(
            worksheets::execute_worksheet_refuses_bad_input,
            AnyServer,
            [
                ("POST", "/entities/executeWorksheet", B),
                ("GET", "/entities/countWorksheet", B),
            ]
        ),
        case!(
            worksheets::worksheets_of_other_users_are_not_visible,
            AnyServer,
            [
                ("GET", "/worksheets", N),
                ("GET", "/worksheets/{worksheetId}", B),
                ("DELETE", "/worksheets/{worksheetId}", B),
                ("POST", "/entities/executeWorksheet", B),
                ("GET", "/entities/countWorksheet", B),
            ]
        ),
        case!(
            worksheets::worksheets_without_view_metadata_are_denied,
            AnyServer,
            [
                ("POST", "/worksheets", D),
                ("GET", "/worksheets", D),
                ("GET", "/worksheets/{worksheetId}", D),
                ("DELETE", "/worksheets/{worksheetId}", D),
                ("POST", "/entities/executeWorksheet", D),
                ("GET", "/entities/countWorksheet", D),
            ]
        ),
    ]
}
