//! [`SqlStore`]'s [`DefinitionStore`]: the meta model and governance definitions added at
//! run time, and their version.

use async_trait::async_trait;
use lore_core::Result;
use lore_core::model::*;
use lore_core::store::DefinitionStore;

use super::SqlStore;
use crate::driver::Driver;
use crate::read;

#[async_trait]
impl<D: Driver> DefinitionStore for SqlStore<D> {
    async fn attribute_types(&self) -> Result<Vec<AttributeType>> {
        let rows = self
            .rows(
                "SELECT name, display_name, kind, value_type, profile, group_name, description \
                 FROM attribute_types ORDER BY name",
                Vec::new(),
                "attribute types",
            )
            .await?;
        read::all(rows, read::attribute_type)
    }

    async fn object_types(&self) -> Result<Vec<ObjectType>> {
        let rows = self
            .rows(
                "SELECT profile, name, display_name, system_type, category, attributes \
                 FROM object_types ORDER BY profile, name",
                Vec::new(),
                "object types",
            )
            .await?;
        read::all(rows, read::object_type)
    }

    async fn data_classes(&self) -> Result<Vec<DataClass>> {
        let rows = self
            .rows(
                "SELECT name, description, hide_data, definition FROM data_classes ORDER BY name",
                Vec::new(),
                "data classes",
            )
            .await?;
        read::all(rows, read::data_class)
    }

    async fn sensitivity_labels(&self) -> Result<Vec<SensitivityLabel>> {
        let rows = self
            .rows(
                "SELECT name, position, description, foreground_color, background_color, hide_data \
                 FROM sensitivity_labels ORDER BY name",
                Vec::new(),
                "sensitivity labels",
            )
            .await?;
        read::all(rows, read::sensitivity_label)
    }

    async fn roles(&self) -> Result<Vec<Role>> {
        let rows = self
            .rows(
                "SELECT name, description, global, capabilities FROM roles ORDER BY name",
                Vec::new(),
                "roles",
            )
            .await?;
        read::all(rows, read::role)
    }

    async fn meta_version(&self) -> Result<i64> {
        let rows = self
            .rows(
                "SELECT version FROM versions WHERE name = 'meta'",
                Vec::new(),
                "versions",
            )
            .await?;
        rows.first().map_or(Ok(0), |row| row.int(0, "versions"))
    }
}
