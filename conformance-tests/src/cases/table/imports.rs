//! The cases of importer plugins and import operations.

use crate::cases::{B, Case, D, N, Needs, imports, sql_lineage};

/// The cases of this part, in the order they run.
pub(super) fn cases() -> Vec<Case> {
    vec![
        // Importer plugins and import operations
        case!(
            imports::importers_and_import_settings,
            Plugins,
            [
                ("GET", "/repository/importers", N),
                ("PUT", "/repository/importModel", N),
                ("GET", "/repository/importModel", N),
            ]
        ),
        case!(
            imports::import_settings_bad_input,
            Plugins,
            [
                ("PUT", "/repository/importModel", B),
                ("GET", "/repository/importModel", B),
            ]
        ),
        case!(
            imports::attachments_upload_and_download,
            Plugins,
            [
                ("POST", "/repository/attachments/{objectId}", N),
                (
                    "POST",
                    "/operations/repositoryImport/downloadModelAttachment",
                    N
                ),
            ]
        ),
        case!(
            imports::attachments_bad_input,
            Plugins,
            [
                ("POST", "/repository/attachments/{objectId}", B),
                (
                    "POST",
                    "/operations/repositoryImport/downloadModelAttachment",
                    B
                ),
            ]
        ),
        case!(
            imports::start_import_runs_in_the_background,
            Plugins,
            [
                ("POST", "/operations/startImport/{contentId}", N),
                ("GET", "/operations/listOperations", N),
                ("POST", "/operations/downloadOperationLog/{operationId}", N),
            ]
        ),
        case!(
            imports::start_import_bad_input,
            Plugins,
            [
                ("POST", "/operations/startImport/{contentId}", B),
                ("GET", "/operations/listOperations", B),
                ("POST", "/operations/downloadOperationLog/{operationId}", B),
            ]
        ),
        case!(
            imports::plugin_path_lands_what_the_builtin_importer_lands,
            Plugins,
            [("POST", "/operations/startImport/{contentId}", N)]
        ),
        case!(
            imports::real_importers_import_their_samples,
            Plugins,
            [("POST", "/operations/startImport/{contentId}", N)]
        ),
        case!(
            sql_lineage::ddl_import_gives_sql_lineage,
            Plugins,
            [
                ("POST", "/operations/startImport/{contentId}", N),
                ("GET", "/lineage/getOperations/{startingId}", N)
            ]
        ),
        case!(
            imports::broken_plugins_fail_cleanly,
            Plugins,
            [("POST", "/operations/startImport/{contentId}", N)]
        ),
        case!(
            imports::import_routes_deny_callers_without_rights,
            Plugins,
            [
                ("GET", "/repository/importers", D),
                ("GET", "/repository/importModel", D),
                ("PUT", "/repository/importModel", D),
                ("POST", "/repository/attachments/{objectId}", D),
                ("POST", "/operations/startImport/{contentId}", D),
                ("GET", "/operations/listOperations", D),
                ("POST", "/operations/downloadOperationLog/{operationId}", D),
                (
                    "POST",
                    "/operations/repositoryImport/downloadModelAttachment",
                    D
                ),
            ]
        ),
    ]
}
