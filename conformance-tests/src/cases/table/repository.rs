//! The cases of the repository's content: folders and context, entities, models, types,
//! browsing, model import and export.

use crate::cases::{
    B, Case, N, Needs, browse, configuration, entities, export, import, repository, types,
};

/// The cases of this part, in the order they run.
pub(super) fn cases() -> Vec<Case> {
    vec![
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
    ]
}
