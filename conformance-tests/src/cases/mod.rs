//! The cases of the HTTP suite, written once and registered in [`cases`]: each is an
//! `async fn(&Target)` with the (method, OpenAPI path, kind) routes it covers.
//!
//! [`http_suite`](crate::http_suite) turns the table into one test per case and backend;
//! `tests/coverage.rs` checks that every route of the OpenAPI document has a
//! [`Kind::Normal`] and a [`Kind::BadInput`] case, and a [`Kind::Denied`] case when the
//! document says the route needs a capability (scopes of its `api_key` security).

pub use entry::{Case, CaseFn, CaseFuture, Kind, Needs};
pub use run::{case, configure_plugins, names, run_on_store, run_remote};

mod attributes;
mod auth;
mod backup;
mod browse;
mod configuration;
mod curation;
mod data_mapping;
mod denied;
mod deprecated;
mod documents;
mod entities;
mod entry;
mod execute;
mod export;
mod governance;
mod grants;
mod groups;
pub(crate) mod import;
mod imports;
mod lineage;
mod meta_model;
mod notifications;
mod oauth;
mod openlineage;
mod openlineage_dbt;
mod query;
mod removed;
mod repository;
mod routing;
mod run;
mod semantics;
pub mod sight;
pub mod sql_lineage;
mod system_log;
mod types;
mod users;
mod visibility;
mod worksheets;

const N: Kind = Kind::Normal;
const B: Kind = Kind::BadInput;
const D: Kind = Kind::Denied;

macro_rules! case {
    ($func:path, $needs:ident, [$(($method:literal, $path:literal, $kind:ident)),* $(,)?]) => {
        Case {
            name: stringify!($func).rsplit("::").next().unwrap_or_default().trim(),
            covers: vec![$(($method, $path, $kind)),*],
            needs: Needs::$needs,
            run: |t| Box::pin($func(t)),
        }
    };
}

/// Every case of the HTTP suite: the one place a case is registered.
pub fn cases() -> Vec<Case> {
    let mut all = vec![
        // Authentication
        case!(
            auth::login_token_works_in_both_headers,
            AnyServer,
            [("POST", "/auth/login", N)]
        ),
        case!(
            auth::login_user_name_is_case_insensitive,
            AnyServer,
            [("POST", "/auth/login", N)]
        ),
        case!(
            auth::login_wrong_password,
            AnyServer,
            [("POST", "/auth/login", B)]
        ),
        case!(
            auth::login_missing_or_malformed_body,
            AnyServer,
            [("POST", "/auth/login", B)]
        ),
        case!(
            auth::login_force_login_ends_other_sessions,
            OwnServer,
            [
                ("POST", "/auth/login", N),
                ("POST", "/auth/loginPlainText", N)
            ]
        ),
        case!(
            auth::login_plain_text_returns_bare_key,
            AnyServer,
            [("POST", "/auth/loginPlainText", N)]
        ),
        case!(
            auth::login_plain_text_bad_input,
            AnyServer,
            [("POST", "/auth/loginPlainText", B)]
        ),
        case!(
            auth::login_key_expires_after_login_timeout,
            ShortSessions,
            [
                ("POST", "/auth/login", N),
                ("POST", "/auth/loginPlainText", N)
            ]
        ),
        case!(
            auth::logout_text_plain_without_body,
            AnyServer,
            [("POST", "/auth/logout", N)]
        ),
        case!(
            auth::logout_json_empty_object_and_old_header,
            AnyServer,
            [("POST", "/auth/logout", N)]
        ),
        case!(
            auth::logout_bad_keys,
            AnyServer,
            [("POST", "/auth/logout", B)]
        ),
        // OAuth 2.0 login, against a real OpenID provider
        case!(
            oauth::oauth2_token_logs_in_and_the_key_works,
            OAuth2Provider,
            [("POST", "/auth/loginOAuth2", N)]
        ),
        case!(
            oauth::oauth2_force_login_ends_other_sessions,
            OAuth2Provider,
            [("POST", "/auth/loginOAuth2", N)]
        ),
        case!(
            oauth::oauth2_expired_and_not_yet_valid_tokens_are_refused,
            OAuth2Provider,
            [("POST", "/auth/loginOAuth2", B)]
        ),
        case!(
            oauth::oauth2_wrong_issuer_and_audience_are_refused,
            OAuth2Provider,
            [("POST", "/auth/loginOAuth2", B)]
        ),
        case!(
            oauth::oauth2_wrongly_signed_tokens_are_refused,
            OAuth2Provider,
            [("POST", "/auth/loginOAuth2", B)]
        ),
        case!(
            oauth::oauth2_rotated_key_works_after_rotation,
            OAuth2Provider,
            [("POST", "/auth/loginOAuth2", N)]
        ),
        case!(
            oauth::oauth2_opaque_tokens_are_introspected,
            OAuth2Provider,
            [
                ("POST", "/auth/loginOAuth2", N),
                ("POST", "/auth/loginOAuth2", B)
            ]
        ),
        case!(
            oauth::oauth2_unknown_user_is_refused_without_create_users,
            OAuth2Provider,
            [("POST", "/auth/loginOAuth2", B)]
        ),
        case!(
            oauth::oauth2_unknown_user_is_created_with_create_users,
            OAuth2ProviderCreatingUsers,
            [("POST", "/auth/loginOAuth2", N)]
        ),
        case!(
            oauth::oauth2_name_claims_never_take_an_account,
            OAuth2ProviderCreatingUsers,
            [("POST", "/auth/loginOAuth2", B)]
        ),
        case!(
            oauth::oauth2_refused_sign_ins_are_throttled,
            OAuth2Provider,
            [("POST", "/auth/loginOAuth2", B)]
        ),
        case!(
            oauth::oauth2_disabled_user_is_refused,
            OAuth2ProviderCreatingUsers,
            [("POST", "/auth/loginOAuth2", B)]
        ),
        case!(
            oauth::oauth2_missing_token_or_user_claim,
            OAuth2Provider,
            [("POST", "/auth/loginOAuth2", B)]
        ),
        case!(
            oauth::oauth2_login_not_configured,
            OwnServer,
            [("POST", "/auth/loginOAuth2", B)]
        ),
        // Routing and the envelope
        case!(routing::unknown_route_is_404_in_envelope, AnyServer, []),
        case!(routing::wrong_method_is_405, AnyServer, []),
        case!(routing::paths_are_case_sensitive, AnyServer, []),
        case!(
            routing::missing_or_invalid_key_is_401,
            AnyServer,
            [
                ("GET", "/types/listProfiles", B),
                ("GET", "/types/listCategories", B),
                ("GET", "/configuration/listModels", B),
                ("GET", "/admin/roles", B),
                ("GET", "/repository/importers", B),
            ]
        ),
        case!(
            routing::malformed_json_is_400,
            AnyServer,
            [
                ("POST", "/repository/createFolder", B),
                ("POST", "/repository/model/export", B)
            ]
        ),
        case!(
            routing::body_over_limit_is_413,
            SmallBodyLimit,
            [
                ("POST", "/repository/model/import", B),
                ("POST", "/repository/createFolder", B)
            ]
        ),
        case!(routing::healthz_answers_ok, AnyServer, []),
        case!(routing::openapi_document_is_served, AnyServer, []),
        case!(routing::every_gated_route_needs_a_key, AnyServer, []),
        // createFolder and getContext
        case!(
            repository::create_folder_root_and_nested,
            AnyServer,
            [
                ("POST", "/repository/createFolder", N),
                ("GET", "/entities/{objectId}", N)
            ]
        ),
        case!(
            repository::create_configuration_and_version,
            AnyServer,
            [("POST", "/repository/createFolder", N)]
        ),
        case!(
            repository::create_folder_duplicate_is_409,
            AnyServer,
            [("POST", "/repository/createFolder", B)]
        ),
        case!(
            repository::create_folder_bad_input,
            AnyServer,
            [("POST", "/repository/createFolder", B)]
        ),
        case!(
            repository::create_folder_unknown_parent_is_404,
            AnyServer,
            [("POST", "/repository/createFolder", B)]
        ),
        case!(
            repository::create_version_outside_configuration_is_400,
            AnyServer,
            [("POST", "/repository/createFolder", B)]
        ),
        case!(
            repository::create_folder_concurrent_duplicates_conflict,
            AnyServer,
            [("POST", "/repository/createFolder", B)]
        ),
        case!(
            repository::get_context_of_folders,
            AnyServer,
            [("GET", "/repository/getContext", N)]
        ),
        case!(
            repository::get_context_of_model_object,
            AnyServer,
            [("GET", "/repository/getContext", N)]
        ),
        case!(
            repository::get_context_bad_input,
            AnyServer,
            [("GET", "/repository/getContext", B)]
        ),
        // Entities
        case!(
            entities::entity_by_id_stable_id_and_path,
            AnyServer,
            [("GET", "/entities/{objectId}", N)]
        ),
        case!(
            entities::entity_fields_match_sample,
            AnyServer,
            [("GET", "/entities/{objectId}", N)]
        ),
        case!(
            entities::entity_terms_labels_and_classes,
            AnyServer,
            [("GET", "/entities/{objectId}", N)]
        ),
        case!(
            entities::entity_of_repository_objects,
            AnyServer,
            [("GET", "/entities/{objectId}", N)]
        ),
        case!(
            entities::entity_unknown_is_404,
            AnyServer,
            [("GET", "/entities/{objectId}", B)]
        ),
        case!(
            entities::entity_malformed_is_400,
            AnyServer,
            [("GET", "/entities/{objectId}", B)]
        ),
        case!(
            entities::entity_key_checked_before_anything_else,
            AnyServer,
            [("GET", "/entities/{objectId}", B)]
        ),
        // Models of the repository and of configurations
        case!(
            configuration::list_models_all_and_by_configuration,
            AnyServer,
            [
                ("GET", "/configuration/listModels", N),
                ("POST", "/repository/model/import", N)
            ]
        ),
        case!(
            configuration::list_models_bad_configuration,
            AnyServer,
            [("GET", "/configuration/listModels", B)]
        ),
        case!(
            configuration::list_connected_models,
            AnyServer,
            [
                ("GET", "/configurations/listConnectedModels", N),
                ("POST", "/repository/model/import", N)
            ]
        ),
        case!(
            configuration::list_connected_models_bad_input,
            AnyServer,
            [("GET", "/configurations/listConnectedModels", B)]
        ),
        // Types
        case!(
            types::list_object_types,
            AnyServer,
            [("GET", "/types/listObjectTypes", N)]
        ),
        case!(
            types::list_object_types_bad_input,
            AnyServer,
            [("GET", "/types/listObjectTypes", B)]
        ),
        case!(
            types::list_entity_types_shape,
            AnyServer,
            [("GET", "/types/listEntityTypes", N)]
        ),
        case!(
            types::list_entity_types_bad_input,
            AnyServer,
            [("GET", "/types/listEntityTypes", B)]
        ),
        case!(
            types::list_attribute_types,
            AnyServer,
            [("GET", "/types/listAttributeTypes", N)]
        ),
        case!(
            types::list_attribute_types_unknown_type_is_404,
            AnyServer,
            [("GET", "/types/listAttributeTypes", B)]
        ),
        case!(
            types::list_group_types,
            AnyServer,
            [("GET", "/types/listGroupTypes", N)]
        ),
        case!(
            types::list_group_types_unknown_type_is_404,
            AnyServer,
            [("GET", "/types/listGroupTypes", B)]
        ),
        case!(
            types::list_profiles_and_categories,
            AnyServer,
            [
                ("GET", "/types/listProfiles", N),
                ("GET", "/types/listCategories", N)
            ]
        ),
        // repositoryBrowse
        case!(
            browse::repository_browse_tree,
            AnyServer,
            [("GET", "/operations/repositoryBrowse", N)]
        ),
        case!(
            browse::repository_browse_filters,
            AnyServer,
            [("GET", "/operations/repositoryBrowse", N)]
        ),
        case!(
            browse::repository_browse_bad_input,
            AnyServer,
            [("GET", "/operations/repositoryBrowse", B)]
        ),
        // Model import
        case!(
            import::import_raw_zip,
            AnyServer,
            [("POST", "/repository/model/import", N)]
        ),
        case!(
            import::import_multipart,
            AnyServer,
            [("POST", "/repository/model/import", N)]
        ),
        case!(
            import::reimport_keeps_ids,
            AnyServer,
            [("POST", "/repository/model/import", N)]
        ),
        case!(
            import::import_into_folder_by_id_and_path,
            AnyServer,
            [("POST", "/repository/model/import", N)]
        ),
        case!(
            import::import_tolerates_csv_variants,
            AnyServer,
            [("POST", "/repository/model/import", N)]
        ),
        case!(
            import::import_name_clash_is_409,
            AnyServer,
            [("POST", "/repository/model/import", B)]
        ),
        case!(
            import::import_concurrent_name_clash_conflict,
            AnyServer,
            [("POST", "/repository/model/import", B)]
        ),
        case!(
            import::import_not_a_zip,
            AnyServer,
            [("POST", "/repository/model/import", B)]
        ),
        case!(
            import::import_bad_csv_field_count,
            AnyServer,
            [("POST", "/repository/model/import", B)]
        ),
        case!(
            import::import_unknown_column,
            AnyServer,
            [("POST", "/repository/model/import", B)]
        ),
        case!(
            import::import_dangling_parent,
            AnyServer,
            [("POST", "/repository/model/import", B)]
        ),
        case!(
            import::import_duplicate_native_id,
            AnyServer,
            [("POST", "/repository/model/import", B)]
        ),
        case!(
            import::import_path_traversal,
            AnyServer,
            [("POST", "/repository/model/import", B)]
        ),
        case!(
            import::import_zip_bomb,
            AnyServer,
            [("POST", "/repository/model/import", B)]
        ),
        case!(
            import::import_unknown_object_type,
            AnyServer,
            [("POST", "/repository/model/import", B)]
        ),
        case!(
            import::import_empty_body,
            AnyServer,
            [("POST", "/repository/model/import", B)]
        ),
        case!(
            import::import_json_content_type_is_415,
            AnyServer,
            [("POST", "/repository/model/import", B)]
        ),
        case!(
            import::import_bad_destination,
            AnyServer,
            [("POST", "/repository/model/import", B)]
        ),
        case!(
            import::reimport_bad_archive_leaves_model_unchanged,
            AnyServer,
            [("POST", "/repository/model/import", B)]
        ),
        case!(
            import::reimport_keeps_curation,
            AnyServer,
            [("POST", "/repository/model/import", N)]
        ),
        case!(
            import::reimport_restores_what_curation_changed,
            AnyServer,
            [("POST", "/repository/model/import", N)]
        ),
        // Model export
        case!(
            export::export_model_id_in_query_and_body,
            AnyServer,
            [("POST", "/repository/model/export", N)]
        ),
        case!(
            export::export_with_profiling,
            AnyServer,
            [("POST", "/repository/model/export", N)]
        ),
        case!(
            export::export_object_ids_restricts,
            AnyServer,
            [("POST", "/repository/model/export", N)]
        ),
        case!(
            export::export_import_export_is_byte_identical,
            AnyServer,
            [
                ("POST", "/repository/model/export", N),
                ("POST", "/repository/model/import", N)
            ]
        ),
        case!(
            export::export_unknown_model_is_404,
            AnyServer,
            [("POST", "/repository/model/export", B)]
        ),
        case!(
            export::export_bad_input,
            AnyServer,
            [("POST", "/repository/model/export", B)]
        ),
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
        // Users and the key lifecycle
        case!(
            users::users_create_list_get_update_delete,
            AnyServer,
            [
                ("POST", "/admin/users", N),
                ("GET", "/admin/users", N),
                ("PUT", "/admin/users", N),
                ("GET", "/admin/users/{userId}", N),
                ("DELETE", "/admin/users/{userId}", N),
            ]
        ),
        case!(
            users::users_bad_input,
            AnyServer,
            [
                ("POST", "/admin/users", B),
                ("GET", "/admin/users", B),
                ("GET", "/admin/users/{userId}", B),
                ("PUT", "/admin/users", B),
                ("DELETE", "/admin/users/{userId}", B),
            ]
        ),
        case!(
            users::users_without_administer_are_denied,
            AnyServer,
            [
                ("POST", "/admin/users", D),
                ("GET", "/admin/users", D),
                ("GET", "/admin/users/{userId}", D),
                ("PUT", "/admin/users", D),
                ("DELETE", "/admin/users/{userId}", D),
            ]
        ),
        case!(
            users::users_identity_link_and_unlink,
            AnyServer,
            [
                ("PUT", "/admin/users/{userId}/identity", N),
                ("DELETE", "/admin/users/{userId}/identity", N),
            ]
        ),
        case!(
            users::users_identity_bad_input,
            AnyServer,
            [
                ("PUT", "/admin/users/{userId}/identity", B),
                ("DELETE", "/admin/users/{userId}/identity", B),
            ]
        ),
        case!(
            users::users_identity_without_administer_is_denied,
            AnyServer,
            [
                ("PUT", "/admin/users/{userId}/identity", D),
                ("DELETE", "/admin/users/{userId}/identity", D),
            ]
        ),
        case!(
            groups::groups_create_list_get_update_delete,
            AnyServer,
            [
                ("POST", "/admin/groups", N),
                ("GET", "/admin/groups", N),
                ("PUT", "/admin/groups", N),
                ("GET", "/admin/groups/{groupId}", N),
                ("DELETE", "/admin/groups/{groupId}", N),
                ("POST", "/admin/groups/{groupId}/members", N),
                ("DELETE", "/admin/groups/{groupId}/members/{userId}", N),
            ]
        ),
        case!(
            groups::groups_bad_input,
            AnyServer,
            [
                ("POST", "/admin/groups", B),
                ("GET", "/admin/groups", B),
                ("PUT", "/admin/groups", B),
                ("GET", "/admin/groups/{groupId}", B),
                ("DELETE", "/admin/groups/{groupId}", B),
                ("POST", "/admin/groups/{groupId}/members", B),
                ("DELETE", "/admin/groups/{groupId}/members/{userId}", B),
            ]
        ),
        case!(
            groups::groups_without_administer_are_denied,
            AnyServer,
            [
                ("POST", "/admin/groups", D),
                ("GET", "/admin/groups", D),
                ("PUT", "/admin/groups", D),
                ("GET", "/admin/groups/{groupId}", D),
                ("DELETE", "/admin/groups/{groupId}", D),
                ("POST", "/admin/groups/{groupId}/members", D),
                ("DELETE", "/admin/groups/{groupId}/members/{userId}", D),
            ]
        ),
        // Roles and grants
        case!(
            grants::global_roles_grant_read_and_revoke,
            AnyServer,
            [
                ("PUT", "/admin/grants/grantGlobalRoles", N),
                ("GET", "/admin/grants/getGlobalRoles", N),
                ("GET", "/admin/grants/getGlobalGrantees", N),
                ("PUT", "/admin/grants/revokeGlobalRole", N),
            ]
        ),
        case!(
            grants::roles_define_list_and_delete,
            AnyServer,
            [
                ("GET", "/admin/roles", N),
                ("PUT", "/admin/roles", N),
                ("DELETE", "/admin/roles/{roleName}", N),
            ]
        ),
        case!(
            grants::object_roles_are_inherited_and_revoked,
            AnyServer,
            [
                ("PUT", "/admin/grants/grantObjectRole/{objectId}", N),
                ("GET", "/admin/grants/getObjectRoles/{objectId}", N),
                ("GET", "/admin/grants/getObjectGrantees/{objectId}", N),
                ("PUT", "/admin/grants/revokeObjectRole/{objectId}", N),
            ]
        ),
        case!(
            grants::roles_csv_export_and_import_round_trip,
            AnyServer,
            [
                ("POST", "/admin/grants/importGlobalRolesCSV", N),
                ("POST", "/admin/grants/exportGlobalRolesCSV", N),
                ("POST", "/admin/grants/importObjectRolesCSV", N),
                ("POST", "/admin/grants/exportObjectRolesCSV", N),
            ]
        ),
        case!(
            grants::roles_csv_bad_lines_import_nothing,
            AnyServer,
            [
                ("POST", "/admin/grants/importGlobalRolesCSV", B),
                ("POST", "/admin/grants/importObjectRolesCSV", B),
            ]
        ),
        case!(
            grants::grants_bad_input,
            AnyServer,
            [
                ("PUT", "/admin/grants/grantGlobalRoles", B),
                ("GET", "/admin/grants/getGlobalRoles", B),
                ("GET", "/admin/grants/getGlobalGrantees", B),
                ("PUT", "/admin/grants/revokeGlobalRole", B),
                ("PUT", "/admin/grants/grantObjectRole/{objectId}", B),
                ("GET", "/admin/grants/getObjectRoles/{objectId}", B),
                ("GET", "/admin/grants/getObjectGrantees/{objectId}", B),
                ("PUT", "/admin/grants/revokeObjectRole/{objectId}", B),
                ("POST", "/admin/grants/exportGlobalRolesCSV", B),
                ("POST", "/admin/grants/exportObjectRolesCSV", B),
                ("PUT", "/admin/roles", B),
                ("DELETE", "/admin/roles/{roleName}", B),
            ]
        ),
        case!(
            grants::grants_without_manage_roles_are_denied,
            AnyServer,
            [
                ("GET", "/admin/grants/getGlobalGrantees", D),
                ("PUT", "/admin/grants/grantGlobalRoles", D),
                ("PUT", "/admin/grants/revokeGlobalRole", D),
                ("POST", "/admin/grants/importGlobalRolesCSV", D),
                ("POST", "/admin/grants/exportGlobalRolesCSV", D),
                ("PUT", "/admin/roles", D),
                ("DELETE", "/admin/roles/{roleName}", D),
                ("GET", "/admin/grants/getGlobalRoles", D),
                ("GET", "/admin/grants/getObjectRoles/{objectId}", D),
                ("GET", "/admin/grants/getObjectGrantees/{objectId}", D),
                ("PUT", "/admin/grants/grantObjectRole/{objectId}", D),
                ("PUT", "/admin/grants/revokeObjectRole/{objectId}", D),
                ("POST", "/admin/grants/importObjectRolesCSV", D),
                ("POST", "/admin/grants/exportObjectRolesCSV", D),
            ]
        ),
        case!(grants::roles_through_groups_reach_mql, AnyServer, []),
        case!(
            visibility::object_grants_limit_what_each_user_sees,
            AnyServer,
            []
        ),
        case!(
            visibility::entity_reads_follow_the_repository_tree,
            AnyServer,
            []
        ),
        case!(
            sight::hidden_objects_answer_like_missing_ones,
            AnyServer,
            []
        ),
        // Attribute values
        case!(
            attributes::set_attributes_custom_profile_and_system,
            AnyServer,
            [
                ("PUT", "/repository/setAttributes", N),
                ("PUT", "/repository/setCustomAttributes", N),
            ]
        ),
        case!(
            attributes::set_attributes_bad_input,
            AnyServer,
            [
                ("PUT", "/repository/setAttributes", B),
                ("PUT", "/repository/setCustomAttributes", B),
            ]
        ),
        case!(
            attributes::set_attributes_without_edit_metadata_are_denied,
            AnyServer,
            [
                ("PUT", "/repository/setAttributes", D),
                ("PUT", "/repository/setCustomAttributes", D),
            ]
        ),
        // Dashboards and the license
        case!(
            documents::dashboards_import_export_round_trip,
            AnyServer,
            [
                ("POST", "/repository/dashboard/import", N),
                ("POST", "/repository/dashboard/export", N),
            ]
        ),
        case!(
            documents::dashboards_bad_input,
            AnyServer,
            [
                ("POST", "/repository/dashboard/import", B),
                ("POST", "/repository/dashboard/export", B),
            ]
        ),
        case!(
            documents::dashboards_and_license_denied,
            AnyServer,
            [
                ("POST", "/repository/dashboard/import", D),
                ("POST", "/repository/dashboard/export", D),
                ("POST", "/License/updateLicense", D),
            ]
        ),
        case!(
            documents::license_update_and_bad_input,
            AnyServer,
            [
                ("POST", "/License/updateLicense", N),
                ("POST", "/License/updateLicense", B),
            ]
        ),
        // Backup and restore
        case!(
            backup::backup_and_restore_round_trip,
            OwnServer,
            [
                ("POST", "/repository/backup", N),
                ("POST", "/repository/restore", N),
            ]
        ),
        case!(
            backup::backup_and_restore_bad_input,
            OwnServer,
            [
                ("POST", "/repository/backup", B),
                ("POST", "/repository/restore", B),
            ]
        ),
        case!(
            backup::backup_and_restore_denied,
            AnyServer,
            [
                ("POST", "/repository/backup", D),
                ("POST", "/repository/restore", D),
            ]
        ),
        // Social curation and workflow
        case!(
            curation::curation_endorse_certify_comment_warn_watch,
            AnyServer,
            [
                ("GET", "/curation/{objectId}", N),
                ("POST", "/curation/{objectId}", N),
                ("DELETE", "/curation/{objectId}", N),
            ]
        ),
        case!(
            curation::workflow_moves_through_its_states,
            AnyServer,
            [("POST", "/workflow/{objectId}", N)]
        ),
        case!(
            curation::curation_and_workflow_bad_input,
            AnyServer,
            [
                ("GET", "/curation/{objectId}", B),
                ("POST", "/curation/{objectId}", B),
                ("DELETE", "/curation/{objectId}", B),
                ("POST", "/workflow/{objectId}", B),
            ]
        ),
        case!(
            curation::curation_and_workflow_denied,
            AnyServer,
            [
                ("GET", "/curation/{objectId}", D),
                ("POST", "/curation/{objectId}", D),
                ("DELETE", "/curation/{objectId}", D),
                ("POST", "/workflow/{objectId}", D),
            ]
        ),
        // Notifications
        case!(
            notifications::watchers_are_notified_of_model_changes,
            AnyServer,
            [
                ("GET", "/notifications", N),
                ("PUT", "/notifications/{notificationId}", N),
            ]
        ),
        case!(
            notifications::notifications_bad_input,
            AnyServer,
            [
                ("GET", "/notifications", B),
                ("PUT", "/notifications/{notificationId}", B),
            ]
        ),
        case!(
            notifications::notification_deliveries_for_administrators,
            AnyServer,
            [
                ("GET", "/admin/notificationDeliveries", N),
                ("GET", "/admin/notificationDeliveries", B),
                ("GET", "/admin/notificationDeliveries", D),
            ]
        ),
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
        case!(openlineage::events_of_real_producers_land, AnyServer, []),
        case!(
            openlineage_dbt::dbt_ol_run_lands_runs_datasets_and_lineage,
            AnyServer,
            []
        ),
        // Meta model XML
        case!(
            meta_model::meta_model_xml_import_export_round_trip,
            AnyServer,
            [
                ("POST", "/repository/metaModel/importXML", N),
                ("POST", "/repository/metaModel/exportXML", N),
                ("GET", "/repository/customAttributes/{nameOrId}", N),
            ]
        ),
        case!(
            meta_model::meta_model_xml_bad_input,
            AnyServer,
            [
                ("POST", "/repository/metaModel/importXML", B),
                ("POST", "/repository/metaModel/exportXML", B),
                ("GET", "/repository/customAttributes/{nameOrId}", B),
            ]
        ),
        case!(
            meta_model::meta_model_xml_denied,
            AnyServer,
            [
                ("POST", "/repository/metaModel/importXML", D),
                ("POST", "/repository/metaModel/exportXML", D),
                ("GET", "/repository/customAttributes/{nameOrId}", D),
            ]
        ),
        // Semantic mapping, data model and glossary
        case!(
            semantics::semantic_links_add_and_remove,
            AnyServer,
            [
                ("POST", "/semanticMapping/semanticLink", N),
                ("DELETE", "/semanticMapping/semanticLink", N),
            ]
        ),
        case!(
            semantics::semantic_links_bad_input,
            AnyServer,
            [
                ("POST", "/semanticMapping/semanticLink", B),
                ("DELETE", "/semanticMapping/semanticLink", B),
            ]
        ),
        case!(
            semantics::entity_relationships_add_and_remove,
            AnyServer,
            [
                ("POST", "/dataModel/entityRelationship", N),
                ("DELETE", "/dataModel/entityRelationship", N),
                ("POST", "/repository/createRelationship", N),
            ]
        ),
        case!(
            semantics::entity_relationships_bad_input,
            AnyServer,
            [
                ("POST", "/dataModel/entityRelationship", B),
                ("DELETE", "/dataModel/entityRelationship", B),
                ("POST", "/repository/createRelationship", B),
            ]
        ),
        case!(
            semantics::glossary_terms_classify_and_report,
            AnyServer,
            [
                ("POST", "/entities/glossary", N),
                ("PUT", "/entities/glossary/classify/{objectId}", N),
                ("PUT", "/entities/glossary/unclassify/{objectId}", N),
                ("PUT", "/entities/glossary/classify", N),
                ("PUT", "/entities/glossary/unclassify", N),
                ("GET", "/entities/reports/{termId}", N),
            ]
        ),
        case!(
            semantics::glossary_bad_input,
            AnyServer,
            [
                ("POST", "/entities/glossary", B),
                ("PUT", "/entities/glossary/classify/{objectId}", B),
                ("PUT", "/entities/glossary/unclassify/{objectId}", B),
                ("PUT", "/entities/glossary/classify", B),
                ("PUT", "/entities/glossary/unclassify", B),
                ("GET", "/entities/reports/{termId}", B),
            ]
        ),
        case!(
            semantics::semantics_without_edit_metadata_are_denied,
            AnyServer,
            [
                ("POST", "/semanticMapping/semanticLink", D),
                ("DELETE", "/semanticMapping/semanticLink", D),
                ("POST", "/dataModel/entityRelationship", D),
                ("DELETE", "/dataModel/entityRelationship", D),
                ("POST", "/repository/createRelationship", D),
                ("POST", "/entities/glossary", D),
                ("PUT", "/entities/glossary/classify/{objectId}", D),
                ("PUT", "/entities/glossary/unclassify/{objectId}", D),
                ("PUT", "/entities/glossary/classify", D),
                ("PUT", "/entities/glossary/unclassify", D),
                ("GET", "/entities/reports/{termId}", D),
            ]
        ),
        // Governance
        case!(
            governance::data_classes_list_read_and_write,
            AnyServer,
            [
                ("GET", "/repository/dataClasses/", N),
                ("GET", "/repository/dataClasses/{objectId}", N),
                ("PUT", "/repository/dataClasses/{objectId}", N),
                ("GET", "/repository/semanticTypes", N),
                ("GET", "/repository/semanticTypes/{objectId}", N),
                ("PUT", "/repository/semanticTypes/{objectId}", N),
            ]
        ),
        case!(
            governance::data_classes_bad_input,
            AnyServer,
            [
                ("GET", "/repository/dataClasses/", B),
                ("GET", "/repository/dataClasses/{objectId}", B),
                ("PUT", "/repository/dataClasses/{objectId}", B),
                ("GET", "/repository/semanticTypes", B),
                ("GET", "/repository/semanticTypes/{objectId}", B),
                ("PUT", "/repository/semanticTypes/{objectId}", B),
                ("GET", "/repository/sensitivityLabels/", B),
            ]
        ),
        case!(
            governance::sensitivity_labels_define_propose_approve,
            AnyServer,
            [
                ("GET", "/repository/sensitivityLabels/", N),
                ("PUT", "/repository/sensitivityLabels/", N),
                ("GET", "/repository/sensitivityLabels/{objectId}", N),
                ("PUT", "/repository/sensitivityLabels/{objectId}", N),
            ]
        ),
        case!(
            governance::sensitivity_labels_bad_input,
            AnyServer,
            [
                ("PUT", "/repository/sensitivityLabels/", B),
                ("GET", "/repository/sensitivityLabels/{objectId}", B),
                ("PUT", "/repository/sensitivityLabels/{objectId}", B),
            ]
        ),
        case!(
            governance::data_profiling_read_and_write,
            AnyServer,
            [
                ("GET", "/entities/DataProfiling/{objectId}", N),
                ("PUT", "/entities/DataProfiling/{objectId}", N),
                ("POST", "/entities/DataProfiling/{objectId}", N),
                ("GET", "/entities/Dataprofiling/{objectId}", N),
                ("PUT", "/entities/Dataprofiling/{objectId}", N),
                ("POST", "/entities/Dataprofiling/{objectId}", N),
            ]
        ),
        case!(
            governance::data_profiling_bad_input,
            AnyServer,
            [
                ("GET", "/entities/DataProfiling/{objectId}", B),
                ("PUT", "/entities/DataProfiling/{objectId}", B),
                ("POST", "/entities/DataProfiling/{objectId}", B),
                ("GET", "/entities/Dataprofiling/{objectId}", B),
                ("PUT", "/entities/Dataprofiling/{objectId}", B),
                ("POST", "/entities/Dataprofiling/{objectId}", B),
            ]
        ),
        case!(
            governance::governance_without_capabilities_is_denied,
            AnyServer,
            [
                ("GET", "/repository/dataClasses/", D),
                ("GET", "/repository/dataClasses/{objectId}", D),
                ("PUT", "/repository/dataClasses/{objectId}", D),
                ("GET", "/repository/semanticTypes", D),
                ("GET", "/repository/semanticTypes/{objectId}", D),
                ("PUT", "/repository/semanticTypes/{objectId}", D),
                ("GET", "/repository/sensitivityLabels/", D),
                ("PUT", "/repository/sensitivityLabels/", D),
                ("GET", "/repository/sensitivityLabels/{objectId}", D),
                ("PUT", "/repository/sensitivityLabels/{objectId}", D),
                ("GET", "/entities/DataProfiling/{objectId}", D),
                ("PUT", "/entities/DataProfiling/{objectId}", D),
                ("POST", "/entities/DataProfiling/{objectId}", D),
                ("GET", "/entities/Dataprofiling/{objectId}", D),
                ("PUT", "/entities/Dataprofiling/{objectId}", D),
                ("POST", "/entities/Dataprofiling/{objectId}", D),
            ]
        ),
        case!(
            governance::hidden_data_follows_view_data_hide_data_and_data_classes,
            AnyServer,
            []
        ),
        case!(
            users::failed_logins_are_throttled,
            AnyServer,
            [("POST", "/auth/login", B)]
        ),
        // Permissions
        case!(
            denied::reads_without_view_metadata_are_denied,
            AnyServer,
            [
                ("GET", "/entities/{objectId}", D),
                ("GET", "/entities/validateMQLQuery", D),
                ("POST", "/entities/upgradeMQLQuery", D),
                ("GET", "/entities/countMQLQuery", D),
                ("POST", "/entities/executeMQLQuery", D),
                ("POST", "/entities/getAttributeValueCounts", D),
                ("GET", "/relationships/{objectId}", D),
                ("GET", "/relationships/count/{objectId}", D),
                ("GET", "/repository/getContext", D),
                ("GET", "/configuration/listModels", D),
                ("GET", "/configurations/listConnectedModels", D),
                ("GET", "/operations/repositoryBrowse", D),
                ("POST", "/repository/model/export", D),
                ("POST", "/auth/logout", N),
            ]
        ),
        case!(
            denied::types_without_view_metadata_are_denied,
            AnyServer,
            [
                ("GET", "/types/listObjectTypes", D),
                ("GET", "/types/listEntityTypes", D),
                ("GET", "/types/listAttributeTypes", D),
                ("GET", "/types/listGroupTypes", D),
                ("GET", "/types/listProfiles", D),
                ("GET", "/types/listCategories", D),
            ]
        ),
        case!(
            denied::writes_without_manage_repository_are_denied,
            AnyServer,
            [
                ("POST", "/repository/createFolder", D),
                ("POST", "/repository/model/import", D),
            ]
        ),
        case!(
            denied::system_log_without_administer_is_denied,
            AnyServer,
            [("GET", "/admin/systemLog", D)]
        ),
        // The system log
        case!(
            system_log::system_log_records_calls_without_secrets,
            AnyServer,
            [("GET", "/admin/systemLog", N)]
        ),
        case!(
            system_log::system_log_filters_and_pages,
            AnyServer,
            [("GET", "/admin/systemLog", N)]
        ),
        case!(
            system_log::system_log_bad_parameters,
            AnyServer,
            [("GET", "/admin/systemLog", B)]
        ),
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
        // Removed methods
        case!(
            removed::removed_auth_methods_name_post_replacement,
            AnyServer,
            [
                ("GET", "/auth/login", N),
                ("GET", "/auth/loginPlainText", N),
                ("GET", "/auth/loginOAuth2", N),
            ]
        ),
    ];
    all.push(deprecated::every_deprecated_method_answers_as_its_replacement());
    all.push(deprecated::aliases_bad_input_case());
    all.push(deprecated::aliases_denied_case());
    all.push(removed::every_removed_method_answers_410());
    all.push(removed::removed_methods_ignore_input());
    all
}
