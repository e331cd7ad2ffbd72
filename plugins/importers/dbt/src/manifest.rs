//! The parts of a dbt `manifest.json` the importer reads.
//!
//! The types are deliberately lean: serde skips every field they do not name (macros,
//! docs, parent and child maps, checksums, configs...) without allocating for it, so a
//! manifest of tens of MB turns into little more than the names, descriptions, columns
//! and dependencies of its nodes. Fields are lenient (missing or `null` means empty)
//! because manifests of different dbt versions differ in what they fill in.

use std::fmt;
use std::fs::File;
use std::io::BufReader;
use std::marker::PhantomData;
use std::path::Path;

use lore_plugin_sdk::Error;
use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};

/// A whole manifest: `nodes` and `sources` in the order the file lists them.
#[derive(Debug, Deserialize)]
#[serde(expecting = "a dbt manifest (a JSON object with metadata, nodes and sources)")]
pub struct Manifest {
    pub metadata: Option<Metadata>,
    pub nodes: Option<Entries<Node>>,
    #[serde(default, deserialize_with = "or_default")]
    pub sources: Entries<Node>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Metadata {
    pub dbt_schema_version: Option<String>,
    pub dbt_version: Option<String>,
    pub generated_at: Option<String>,
    pub project_name: Option<String>,
    pub adapter_type: Option<String>,
}

/// A node of `nodes` (model, seed, snapshot, test, analysis...) or of `sources`. Its
/// unique id is the key it is listed under.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Node {
    #[serde(deserialize_with = "or_default")]
    pub resource_type: String,
    #[serde(deserialize_with = "or_default")]
    pub name: String,
    pub database: Option<String>,
    pub schema: Option<String>,
    /// The relation name of a model, seed or snapshot.
    pub alias: Option<String>,
    /// The relation name of a source table.
    pub identifier: Option<String>,
    /// The relation as compiled SQL names it, e.g. `"analytics"."staging"."orders"`.
    pub relation_name: Option<String>,
    pub package_name: Option<String>,
    pub original_file_path: Option<String>,
    pub description: Option<String>,
    #[serde(deserialize_with = "or_default")]
    pub tags: Vec<String>,
    #[serde(deserialize_with = "or_default")]
    pub columns: Entries<Column>,
    #[serde(deserialize_with = "or_default")]
    pub config: Config,
    #[serde(deserialize_with = "or_default")]
    pub depends_on: DependsOn,
    /// The version of a versioned model: a number or a string.
    pub version: Option<serde_json::Value>,
    #[serde(alias = "raw_sql")]
    pub raw_code: Option<String>,
    #[serde(alias = "compiled_sql")]
    pub compiled_code: Option<String>,
    /// Of a generic test: which test it is (`unique`, `not_null`...).
    pub test_metadata: Option<TestMetadata>,
    /// Of a test: the column it tests.
    pub column_name: Option<String>,
    /// Of a test: the node it tests.
    pub attached_node: Option<String>,
}

impl Node {
    pub fn materialized(&self) -> Option<&str> {
        self.config.materialized.as_deref()
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Config {
    pub materialized: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct DependsOn {
    #[serde(deserialize_with = "or_default")]
    pub nodes: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct TestMetadata {
    pub name: Option<String>,
}

/// A column of a node; its name is the key it is listed under.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Column {
    pub description: Option<String>,
    pub data_type: Option<String>,
    #[serde(deserialize_with = "or_default")]
    pub tags: Vec<String>,
    #[serde(deserialize_with = "or_default")]
    pub constraints: Vec<Constraint>,
}

impl Column {
    /// Whether a `not_null` or `primary_key` constraint forbids nulls.
    pub fn not_null(&self) -> bool {
        self.constraints
            .iter()
            .any(|c| matches!(c.kind.as_deref(), Some("not_null" | "primary_key")))
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Constraint {
    #[serde(rename = "type")]
    pub kind: Option<String>,
}

/// The members of a JSON object in the order of the file (a map would sort them, and
/// columns keep their manifest order as their position).
#[derive(Debug)]
pub struct Entries<T>(pub Vec<(String, T)>);

impl<T> Default for Entries<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<T> Entries<T> {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &T)> {
        self.0.iter().map(|(key, value)| (key.as_str(), value))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Entries<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor<T>(PhantomData<T>);

        impl<'de, T: Deserialize<'de>> Visitor<'de> for EntriesVisitor<T> {
            type Value = Entries<T>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }

        deserializer.deserialize_map(EntriesVisitor(PhantomData))
    }
}

/// A value that may also be `null`, which means its default.
fn or_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// A manifest checked to be one: it has `metadata` and `nodes`, and a schema version
/// (when it names one) of a manifest.
#[derive(Debug)]
pub struct Checked {
    pub metadata: Metadata,
    pub nodes: Entries<Node>,
    pub sources: Entries<Node>,
}

/// Reads and checks the manifest at `path`.
pub fn read(path: &Path) -> Result<Checked, Error> {
    let shown = path.display();
    let file = File::open(path)
        .map_err(|e| Error::new(format!("cannot read the dbt manifest '{shown}': {e}")))?;
    let manifest: Manifest = serde_json::from_reader(BufReader::with_capacity(1 << 16, file))
        .map_err(|e| Error::new(format!("'{shown}' is not a valid dbt manifest: {e}")))?;
    check(manifest).map_err(|why| Error::new(format!("'{shown}' is not a dbt manifest: {why}")))
}

fn check(manifest: Manifest) -> Result<Checked, String> {
    let Some(metadata) = manifest.metadata else {
        return Err("it has no 'metadata'".into());
    };
    if let Some(version) = &metadata.dbt_schema_version
        && !version.contains("/manifest/")
    {
        return Err(format!(
            "its metadata.dbt_schema_version is '{version}', not a manifest's \
             (https://schemas.getdbt.com/dbt/manifest/v12.json, say)"
        ));
    }
    let Some(nodes) = manifest.nodes else {
        return Err("it has no 'nodes'".into());
    };
    Ok(Checked {
        metadata,
        nodes,
        sources: manifest.sources,
    })
}
