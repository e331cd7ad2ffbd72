//! Lore's conformance suite.
//!
//! - [`store_contract`]: the `Store` contract, run directly against each backend;
//!   [`store_suite!`] instantiates every case for one backend in one line.
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
pub mod mql_gen;
pub mod oauth_provider;
pub mod plugins;
pub mod postgres;
pub mod sinks;
pub mod store_contract;
pub mod store_rules;

pub use cases::{Case, Kind, Needs};
pub use harness::{Backend, IntoBackend, Target};
/// Re-exported for [`http_suite!`] and [`store_suite!`]: the tests it generates need no tokio dependency.
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
            oauth2_token_logs_in_and_the_key_works,
            oauth2_force_login_ends_other_sessions,
            oauth2_expired_and_not_yet_valid_tokens_are_refused,
            oauth2_wrong_issuer_and_audience_are_refused,
            oauth2_wrongly_signed_tokens_are_refused,
            oauth2_rotated_key_works_after_rotation,
            oauth2_opaque_tokens_are_introspected,
            oauth2_unknown_user_is_refused_without_create_users,
            oauth2_unknown_user_is_created_with_create_users,
            oauth2_disabled_user_is_refused,
            oauth2_missing_token_or_user_claim,
            oauth2_login_not_configured,
            unknown_route_is_404_in_envelope,
            wrong_method_is_405,
            paths_are_case_sensitive,
            missing_or_invalid_key_is_401,
            malformed_json_is_400,
            body_over_limit_is_413,
            healthz_answers_ok,
            openapi_document_is_served,
            every_gated_route_needs_a_key,
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
            validate_mql_query_answers_current_syntax_and_warnings,
            validate_mql_query_refuses_invalid_queries,
            upgrade_mql_query_rewrites_earlier_syntax,
            upgrade_mql_query_refuses_invalid_queries,
            execute_mql_query_filters_orders_and_pages,
            text_search_follows_renames_and_removals,
            execute_mql_query_follows_the_multi_valued_rules,
            execute_mql_query_legacy_format_and_unknown_names,
            execute_mql_query_refuses_bad_input,
            get_attribute_value_counts_counts_values,
            get_attribute_value_counts_refuses_bad_input,
            entity_with_select_answers_mql_format,
            relationships_of_an_object,
            relationships_bad_input,
            count_mql_query_refuses_bad_input,
            worksheets_save_list_get_and_delete,
            execute_worksheet_runs_the_saved_query,
            create_worksheet_refuses_bad_input,
            worksheet_routes_refuse_bad_ids,
            execute_worksheet_refuses_bad_input,
            worksheets_of_other_users_are_not_visible,
            worksheets_without_view_metadata_are_denied,
            users_create_list_get_update_delete,
            users_bad_input,
            users_without_administer_are_denied,
            groups_create_list_get_update_delete,
            groups_bad_input,
            groups_without_administer_are_denied,
            global_roles_grant_read_and_revoke,
            roles_define_list_and_delete,
            object_roles_are_inherited_and_revoked,
            roles_csv_export_and_import_round_trip,
            roles_csv_bad_lines_import_nothing,
            grants_bad_input,
            grants_without_manage_roles_are_denied,
            roles_through_groups_reach_mql,
            object_grants_limit_what_each_user_sees,
            hidden_objects_answer_like_missing_ones,
            set_attributes_custom_profile_and_system,
            set_attributes_bad_input,
            set_attributes_without_edit_metadata_are_denied,
            dashboards_import_export_round_trip,
            dashboards_bad_input,
            dashboards_and_license_denied,
            license_update_and_bad_input,
            backup_and_restore_round_trip,
            backup_and_restore_bad_input,
            backup_and_restore_denied,
            curation_endorse_certify_comment_warn_watch,
            workflow_moves_through_its_states,
            curation_and_workflow_bad_input,
            curation_and_workflow_denied,
            watchers_are_notified_of_model_changes,
            notifications_bad_input,
            notification_deliveries_for_administrators,
            data_mapping_scripts_round_trip,
            data_mapping_scripts_bad_input,
            data_mapping_scripts_denied,
            lineage_operations_upstream_and_downstream,
            lineage_operations_bad_input,
            lineage_operations_denied,
            meta_model_xml_import_export_round_trip,
            meta_model_xml_bad_input,
            meta_model_xml_denied,
            semantic_links_add_and_remove,
            semantic_links_bad_input,
            entity_relationships_add_and_remove,
            entity_relationships_bad_input,
            glossary_terms_classify_and_report,
            glossary_bad_input,
            semantics_without_edit_metadata_are_denied,
            data_classes_list_read_and_write,
            data_classes_bad_input,
            sensitivity_labels_define_propose_approve,
            sensitivity_labels_bad_input,
            data_profiling_read_and_write,
            data_profiling_bad_input,
            governance_without_capabilities_is_denied,
            hidden_data_follows_view_data_hide_data_and_data_classes,
            failed_logins_are_throttled,
            reads_without_view_metadata_are_denied,
            types_without_view_metadata_are_denied,
            writes_without_manage_repository_are_denied,
            system_log_without_administer_is_denied,
            system_log_records_calls_without_secrets,
            system_log_filters_and_pages,
            system_log_bad_parameters,
            importers_and_import_settings,
            import_settings_bad_input,
            attachments_upload_and_download,
            attachments_bad_input,
            start_import_runs_in_the_background,
            start_import_bad_input,
            plugin_path_lands_what_the_builtin_importer_lands,
            real_importers_import_their_samples,
            broken_plugins_fail_cleanly,
            import_routes_deny_callers_without_rights,
            removed_auth_methods_name_post_replacement,
            every_deprecated_method_answers_as_its_replacement,
            deprecated_aliases_bad_input,
            deprecated_aliases_denied,
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

/// Expands to one `#[tokio::test]` per case of the Store contract (and one test that
/// checks the list below against [`store_contract::cases`]).
///
/// `store_suite!(factory)`: each test calls `factory()` (a closure returning a future)
/// for a fresh, empty store and runs the case on it. The future may give an
/// `Arc<dyn Store>`, a [`Backend`] (a store plus guards kept alive until the case is
/// done) or an `Option` of either, `None` skipping the case with a message.
///
/// ```ignore
/// lore_conformance::store_suite!(|| async {
///     std::sync::Arc::new(lore_backend_memory::MemoryStore::new()) as std::sync::Arc<dyn lore_core::Store>
/// });
/// ```
#[macro_export]
macro_rules! store_suite {
    (@expand $factory:tt; $($name:ident,)*) => {
        $( $crate::store_suite!(@one $factory $name); )*

        #[test]
        fn store_suite_lists_every_case() {
            assert_eq!(
                vec![$(stringify!($name)),*],
                $crate::store_contract::names(),
                "store_suite! and store_contract::cases() must list the same cases in the same order"
            );
        }
    };
    (@one [$factory:expr] $name:ident) => {
        #[$crate::tokio::test(flavor = "multi_thread", worker_threads = 2, crate = "lore_conformance::tokio")]
        async fn $name() {
            $crate::store_contract::run_on_store(stringify!($name), $factory).await;
        }
    };
    ($factory:expr $(,)?) => {
        $crate::store_suite!(@expand [$factory];
            fresh_store_is_empty_and_answers,
            reserve_ids_consecutive_per_id_space,
            reserve_ids_not_reused_after_failed_batch,
            reserve_ids_concurrently_never_repeat,
            reserve_ids_mixed_counts_concurrently_have_no_gaps,
            reserve_ids_overflow_is_refused_and_takes_nothing,
            objects_round_trip_and_put_replaces_whole,
            children_sorted_by_name_bytes_and_looked_up_exactly,
            children_sorted_by_name_then_id,
            parents_stay_in_their_id_space,
            stable_ids_unique_and_movable_within_a_batch,
            stable_id_clash_within_a_batch_is_a_conflict,
            stable_id_conflict_names_the_id,
            attribute_values_round_trip_and_sort_by_name,
            attribute_values_read_back_in_name_order,
            edges_once_each_sorted_and_removed_exactly,
            tags_once_each_sorted_and_removed_exactly,
            classifications_and_labels_replace_status,
            profiling_round_trips_and_replaces,
            details_cover_scope_model_and_objects,
            details_of_many_ids_sorted_by_object,
            delete_object_removes_what_hangs_on_it,
            clear_model_removes_model_objects_only,
            delete_and_clear_keep_other_models_and_repository_objects,
            definitions_round_trip_and_replace_by_name,
            lineage_walks_breadth_first_within_bounds,
            documents_round_trip_replace_and_go_with_their_owner,
            curation_round_trips_and_goes_with_object_and_user,
            curation_of_many_objects_by_object,
            notifications_newest_first_and_gone_with_their_user,
            user_names_unique_case_insensitively,
            grants_once_each_sorted_and_removed_exactly,
            sessions_expire_at_expires_at,
            session_expiring_now_is_expired,
            sessions_expire_purge_and_end_per_user,
            apply_is_atomic_on_conflict,
            apply_is_atomic_on_invalid_parent,
            apply_failing_midway_lands_nothing,
            duplicate_user_name_in_a_batch_lands_nothing,
            apply_failure_restores_every_index,
            a_large_batch_lands_whole,
            begin_lands_every_chunk_on_commit,
            begin_dropped_uncommitted_leaves_store_unchanged,
            begin_failing_chunk_lands_nothing,
            new_rows_land_as_written_and_a_clash_lands_nothing,
            reads_do_not_wait_for_an_open_transaction,
            a_dropped_transaction_leaves_nothing,
            timestamps_keep_microseconds,
            nan_and_nul_are_invalid_everywhere,
            the_same_failure_has_the_same_code,
            principal_and_meta_version,
            groups_memberships_and_grants_through_groups,
            objects_by_ids_with_details,
            model_objects_in_pages,
            worksheets_round_trip_with_names_unique_per_owner,
            a_failed_batch_leaves_worksheets_as_they_were,
            system_log_pages_newest_first_filters_counts_and_purges,
            clear_all_empties_everything_but_the_system_log,
            restore_ops_keep_their_ids_and_replace,
            a_failed_restore_lands_nothing,
            deliveries_are_claimed_once_until_their_lease_runs_out,
            a_snapshot_reads_one_moment_and_refuses_writes,
        );
    };
}
