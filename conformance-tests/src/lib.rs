//! Lore's conformance suite.
//!
//! - [`store_contract`]: the `Store` contract, run directly against each backend.
//! - [`postgres`]: a fresh PostgreSQL database per run, dropped afterwards.
//! - [`harness`] and [`cases`]: the HTTP suite. Every case runs against a Lore over
//!   HTTP; [`http_suite!`] instantiates all of them for one backend in one line.
//!
//! ```ignore
//! lore_conformance::http_suite!(|| async {
//!     std::sync::Arc::new(lore_backend_memory::MemoryStore::new()) as std::sync::Arc<dyn lore_core::Store>
//! });
//! ```

pub mod cases;
pub mod harness;
pub mod postgres;
pub mod store_contract;

pub use cases::{Case, Kind, Needs};
pub use harness::{Backend, IntoBackend, Target};
/// Re-exported for [`http_suite!`]: the tests it generates need no tokio dependency.
pub use tokio;

/// Expands to one `#[tokio::test]` per case of the HTTP suite (and one test that checks
/// the list below against [`cases::cases`]).
///
/// - `http_suite!(factory)`: each test calls `factory()` (a closure returning a future)
///   for a fresh store and runs the case on a fresh server over it. The future may give
///   an `Arc<dyn Store>`, a [`Backend`] (a store plus guards kept alive until the server
///   has stopped) or an `Option` of either, `None` skipping the case with a message.
/// - `http_suite!(remote)`: each test runs against the Lore named by
///   `LORE_CONFORMANCE_URL`, `LORE_CONFORMANCE_USER` and `LORE_CONFORMANCE_PASSWORD`, or
///   skips with a message when they are not set.
#[macro_export]
macro_rules! http_suite {
    (remote) => {
        $crate::http_suite!(@all [remote]);
    };
    (@all $mode:tt) => {
        $crate::http_suite!(@expand $mode;
            login_token_works_in_both_headers,
            login_user_name_is_case_insensitive,
            login_wrong_password,
            login_missing_or_malformed_body,
            login_force_login_ends_other_sessions,
            login_plain_text_returns_bare_key,
            login_plain_text_bad_input,
            login_key_expires_after_login_timeout,
            logout_text_plain_without_body,
            logout_json_empty_object_and_old_header,
            logout_bad_keys,
            unknown_route_is_404_in_envelope,
            wrong_method_is_405,
            paths_are_case_sensitive,
            missing_or_invalid_key_is_401,
            malformed_json_is_400,
            body_over_limit_is_413,
            healthz_answers_ok,
            openapi_document_is_served,
            create_folder_root_and_nested,
            create_configuration_and_version,
            create_folder_duplicate_is_409,
            create_folder_bad_input,
            create_folder_unknown_parent_is_404,
            create_version_outside_configuration_is_400,
            create_folder_concurrent_duplicates_conflict,
            get_context_of_folders,
            get_context_of_model_object,
            get_context_bad_input,
            entity_by_id_stable_id_and_path,
            entity_fields_match_sample,
            entity_terms_labels_and_classes,
            entity_of_repository_objects,
            entity_unknown_is_404,
            entity_malformed_is_400,
            list_models_all_and_by_configuration,
            list_models_bad_configuration,
            list_connected_models,
            list_connected_models_bad_input,
            list_object_types,
            list_object_types_bad_input,
            list_entity_types_shape,
            list_entity_types_bad_input,
            list_attribute_types,
            list_attribute_types_unknown_type_is_404,
            list_group_types,
            list_group_types_unknown_type_is_404,
            list_profiles_and_categories,
            repository_browse_tree,
            repository_browse_filters,
            repository_browse_bad_input,
            import_raw_zip,
            import_multipart,
            reimport_keeps_ids,
            import_into_folder_by_id_and_path,
            import_tolerates_csv_variants,
            import_name_clash_is_409,
            import_concurrent_name_clash_conflict,
            import_not_a_zip,
            import_bad_csv_field_count,
            import_unknown_column,
            import_dangling_parent,
            import_duplicate_native_id,
            import_path_traversal,
            import_zip_bomb,
            import_unknown_object_type,
            import_empty_body,
            import_json_content_type_is_415,
            import_bad_destination,
            reimport_bad_archive_leaves_model_unchanged,
            reimport_keeps_curation,
            export_model_id_in_query_and_body,
            export_with_profiling,
            export_object_ids_restricts,
            export_import_export_is_byte_identical,
            export_unknown_model_is_404,
            export_bad_input,
            removed_auth_methods_name_post_replacement,
            every_removed_method_answers_410,
            removed_methods_ignore_input,
        );
    };
    (@expand $mode:tt; $($name:ident,)*) => {
        $( $crate::http_suite!(@one $mode $name); )*

        #[test]
        fn suite_lists_every_case() {
            assert_eq!(
                vec![$(stringify!($name)),*],
                $crate::cases::names(),
                "http_suite! and cases::cases() must list the same cases in the same order"
            );
        }
    };
    (@one [remote] $name:ident) => {
        #[$crate::tokio::test(flavor = "multi_thread", worker_threads = 2, crate = "lore_conformance::tokio")]
        async fn $name() {
            $crate::cases::run_remote(stringify!($name)).await;
        }
    };
    (@one [store $factory:expr] $name:ident) => {
        #[$crate::tokio::test(flavor = "multi_thread", worker_threads = 2, crate = "lore_conformance::tokio")]
        async fn $name() {
            $crate::cases::run_on_store(stringify!($name), $factory).await;
        }
    };
    ($factory:expr $(,)?) => {
        $crate::http_suite!(@all [store $factory]);
    };
}
