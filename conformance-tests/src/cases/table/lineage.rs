//! The cases of lineage: data mapping scripts, lineage operations and OpenLineage
//! intake.

use crate::cases::{B, Case, D, N, Needs, data_mapping, lineage, openlineage, openlineage_dbt};

/// The cases of this part, in the order they run.
pub(super) fn cases() -> Vec<Case> {
    vec![
        // Data mapping scripts
        case!(
            data_mapping::data_mapping_scripts_round_trip,
            AnyServer,
            [
                ("POST", "/dataMapping/importScript", N),
                ("POST", "/dataMapping/exportScript", N),
                ("POST", "/dataMapping/exportExcel", N),
            ]
        ),
        case!(
            data_mapping::data_mapping_scripts_bad_input,
            AnyServer,
            [
                ("POST", "/dataMapping/importScript", B),
                ("POST", "/dataMapping/exportScript", B),
                ("POST", "/dataMapping/exportExcel", B),
            ]
        ),
        case!(
            data_mapping::data_mapping_scripts_denied,
            AnyServer,
            [
                ("POST", "/dataMapping/importScript", D),
                ("POST", "/dataMapping/exportScript", D),
                ("POST", "/dataMapping/exportExcel", D),
            ]
        ),
        // Lineage
        case!(
            lineage::lineage_operations_upstream_and_downstream,
            AnyServer,
            [("GET", "/lineage/getOperations/{startingId}", N)]
        ),
        case!(
            lineage::lineage_operations_are_read_as_of,
            AnyServer,
            [
                ("GET", "/lineage/getOperations/{startingId}", N),
                ("GET", "/lineage/getOperations/{startingId}", B)
            ]
        ),
        case!(
            lineage::lineage_operations_bad_input,
            AnyServer,
            [("GET", "/lineage/getOperations/{startingId}", B)]
        ),
        case!(
            lineage::lineage_operations_denied,
            AnyServer,
            [("GET", "/lineage/getOperations/{startingId}", D)]
        ),
        // OpenLineage intake, outside the API's base path and its OpenAPI document
        case!(
            openlineage::events_land_once_and_runs_follow_event_time,
            AnyServer,
            []
        ),
        case!(
            openlineage::malformed_events_are_refused_and_leave_nothing,
            AnyServer,
            []
        ),
        case!(
            openlineage::posting_lineage_needs_emit_lineage,
            AnyServer,
            []
        ),
        case!(
            openlineage::openlineage_python_client_events_land,
            AnyServer,
            []
        ),
        case!(
            openlineage::events_become_datasets_jobs_and_lineage,
            AnyServer,
            []
        ),
        case!(
            openlineage::datasets_are_matched_to_harvested_tables,
            Plugins,
            []
        ),
        case!(openlineage::job_sql_becomes_column_lineage, AnyServer, []),
        case!(
            openlineage::lineage_into_a_harvest_needs_edit_metadata,
            Plugins,
            []
        ),
        case!(
            openlineage::an_event_replaces_only_its_own_jobs_edges,
            AnyServer,
            []
        ),
        case!(
            openlineage::event_bounds_are_named_and_a_batch_keeps_the_rest,
            AnyServer,
            []
        ),
        case!(
            openlineage::a_refused_event_of_a_batch_takes_back_what_it_made,
            AnyServer,
            []
        ),
        case!(openlineage::events_of_real_producers_land, AnyServer, []),
        case!(
            openlineage_dbt::dbt_ol_run_lands_runs_datasets_and_lineage,
            AnyServer,
            []
        ),
    ]
}
