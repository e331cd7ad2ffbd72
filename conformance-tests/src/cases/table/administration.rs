//! The cases of administration: users and keys, roles and grants, attribute values,
//! dashboards and the license, backup and restore.

use crate::cases::{
    B, Case, D, N, Needs, attributes, backup, configuration_pins, curation_history, documents,
    grants, groups, history, history_browse, sight, users, visibility,
};

/// The cases of this part, in the order they run.
pub(super) fn cases() -> Vec<Case> {
    vec![
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
        // History
        case!(
            history::an_objects_changes_are_listed_and_read_as_of,
            AnyServer,
            [
                ("GET", "/history/objects/{objectId}", N),
                ("GET", "/entities/{objectId}", N)
            ]
        ),
        case!(
            history::a_removed_objects_history_is_read_by_its_id,
            AnyServer,
            [
                ("GET", "/history/objects/{objectId}", N),
                ("GET", "/entities/{objectId}", N)
            ]
        ),
        case!(
            history::relationships_are_read_as_of,
            AnyServer,
            [
                ("GET", "/relationships/{objectId}", N),
                ("GET", "/relationships/count/{objectId}", N),
                ("GET", "/relationships/{objectId}", B)
            ]
        ),
        case!(
            history::history_bad_input_is_refused,
            AnyServer,
            [
                ("GET", "/history/objects/{objectId}", B),
                ("GET", "/entities/{objectId}", B),
                ("GET", "/relationships/count/{objectId}", B)
            ]
        ),
        case!(
            history::a_models_versions_are_listed_and_compared,
            AnyServer,
            [
                ("GET", "/history/models/{modelId}/versions", N),
                ("GET", "/history/models/{modelId}/compare", N),
                ("GET", "/entities/{objectId}", N)
            ]
        ),
        case!(
            history::breaking_changes_are_announced_downstream,
            AnyServer,
            [
                ("POST", "/repository/model/import", N),
                ("GET", "/notifications", N),
                ("GET", "/history/objects/{objectId}/upstream", N)
            ]
        ),
        case!(
            history::model_history_bad_input_is_refused,
            AnyServer,
            [
                ("GET", "/history/models/{modelId}/versions", B),
                ("GET", "/history/models/{modelId}/compare", B)
            ]
        ),
        case!(
            history::mql_queries_are_read_as_of,
            AnyServer,
            [
                ("POST", "/entities/executeMQLQuery", N),
                ("GET", "/entities/countMQLQuery", N),
                ("POST", "/entities/getAttributeValueCounts", N),
                ("GET", "/entities/validateMQLQuery", N)
            ]
        ),
        case!(
            history::mql_as_of_bad_input_is_refused,
            AnyServer,
            [
                ("POST", "/entities/executeMQLQuery", B),
                ("GET", "/entities/countMQLQuery", B),
                ("POST", "/entities/getAttributeValueCounts", B),
                ("GET", "/entities/validateMQLQuery", B),
                ("POST", "/entities/upgradeMQLQuery", B)
            ]
        ),
        case!(
            history_browse::browse_calls_are_read_as_of,
            AnyServer,
            [
                ("GET", "/operations/repositoryBrowse", N),
                ("GET", "/configuration/listModels", N),
                ("GET", "/repository/getContext", N)
            ]
        ),
        case!(
            history_browse::browse_as_of_bad_input_is_refused,
            AnyServer,
            [
                ("GET", "/operations/repositoryBrowse", B),
                ("GET", "/configuration/listModels", B),
                ("GET", "/repository/getContext", B)
            ]
        ),
        case!(
            configuration_pins::configuration_versions_select_model_versions,
            AnyServer,
            [
                ("GET", "/history/configurations/{configurationId}/pin", N),
                ("PUT", "/history/configurations/{configurationId}/pin", N),
                ("DELETE", "/history/configurations/{configurationId}/pin", N)
            ]
        ),
        case!(
            configuration_pins::configuration_pin_bad_input_is_refused,
            AnyServer,
            [
                ("GET", "/history/configurations/{configurationId}/pin", B),
                ("PUT", "/history/configurations/{configurationId}/pin", B),
                ("DELETE", "/history/configurations/{configurationId}/pin", B),
                ("GET", "/history/configurations/{configurationId}/pin", D),
                ("PUT", "/history/configurations/{configurationId}/pin", D),
                ("DELETE", "/history/configurations/{configurationId}/pin", D)
            ]
        ),
        case!(
            history::upstream_changes_bad_input_is_refused,
            AnyServer,
            [
                ("GET", "/history/objects/{objectId}/upstream", B),
                ("GET", "/history/objects/{objectId}/upstream", D)
            ]
        ),
        case!(
            curation_history::curation_is_read_with_objects_as_of,
            AnyServer,
            [
                ("POST", "/entities/executeMQLQuery", N),
                ("POST", "/curation/{objectId}", N)
            ]
        ),
        case!(
            curation_history::curation_and_grants_are_kept_in_history,
            AnyServer,
            [
                ("GET", "/history/grants", N),
                ("GET", "/history/grants", B),
                ("GET", "/history/grants", D),
                ("GET", "/history/objects/{objectId}", N)
            ]
        ),
        case!(
            history::as_of_reads_keep_todays_sight,
            AnyServer,
            [
                ("POST", "/entities/executeMQLQuery", N),
                ("GET", "/configuration/listModels", N),
                ("GET", "/operations/repositoryBrowse", N),
                ("GET", "/repository/getContext", N)
            ]
        ),
        case!(
            history::history_without_view_metadata_is_denied,
            AnyServer,
            [
                ("GET", "/history/objects/{objectId}", D),
                ("GET", "/entities/{objectId}", D),
                ("GET", "/history/models/{modelId}/versions", D),
                ("GET", "/history/models/{modelId}/compare", D)
            ]
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
    ]
}
