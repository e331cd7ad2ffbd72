//! The cases of the meta model XML, semantic mapping and the glossary, governance,
//! permissions and the system log.

use crate::cases::{
    B, Case, D, N, Needs, denied, governance, meta_model, semantics, system_log, users,
};

/// The cases of this part, in the order they run.
pub(super) fn cases() -> Vec<Case> {
    vec![
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
    ]
}
