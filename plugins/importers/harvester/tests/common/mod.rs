//! Runs the harvester as the plugin host would, through `lore_plugin_sdk::testing`.

// Each test file uses its own part of these helpers.
#![allow(dead_code)]

use std::collections::BTreeSet;

use lore_importer_harvester::{FORMAT, Harvester};
use lore_plugin_sdk::Level;
use lore_plugin_sdk::testing::{self, Outcome};
use serde_json::Value;

/// Runs one import of format `database` with these parameters.
pub fn run(parameters: Value) -> Outcome {
    testing::run::<Harvester>(&testing::request(FORMAT, None, parameters))
}

/// Runs a harvest that succeeds, and checks that Lore would take what it sent.
pub fn harvest(parameters: Value) -> Outcome {
    let sent = run(parameters);
    if let Err(refused) = sent.check() {
        panic!("Lore would refuse the harvest: {refused}");
    }
    sent
}

/// What the tests read of a harvest, beyond [`Outcome`]'s own helpers.
pub trait Harvest {
    /// The native ids of every object.
    fn ids(&self) -> BTreeSet<String>;

    /// `(native id, parent)` of every object of a type, sorted.
    fn tree(&self, object_type: &str) -> Vec<(String, Option<String>)>;

    /// `(name, source, target)` of every `lineage` relationship, sorted; none is sent twice.
    fn lineage(&self) -> Vec<(String, String, String)>;

    /// The log lines of a level.
    fn lines(&self, level: Level) -> Vec<String>;
}

impl Harvest for Outcome {
    fn ids(&self) -> BTreeSet<String> {
        self.objects().map(|o| o.native_id.clone()).collect()
    }

    fn tree(&self, object_type: &str) -> Vec<(String, Option<String>)> {
        let mut found: Vec<(String, Option<String>)> = self
            .objects_of_type(object_type)
            .map(|o| (o.native_id.clone(), o.parent_native_id.clone()))
            .collect();
        found.sort();
        found
    }

    fn lineage(&self) -> Vec<(String, String, String)> {
        let mut found: Vec<(String, String, String)> = self
            .relationships()
            .filter(|r| r.kind == "lineage")
            .map(|r| {
                (
                    r.name.clone(),
                    r.source_native_id.clone(),
                    r.target_native_id.clone(),
                )
            })
            .collect();
        found.sort();
        let sent = found.len();
        found.dedup();
        assert_eq!(found.len(), sent, "a lineage relationship sent twice");
        found
    }

    fn lines(&self, level: Level) -> Vec<String> {
        self.log_lines(level)
            .into_iter()
            .map(str::to_owned)
            .collect()
    }
}

/// A lineage relationship as [`Harvest::lineage`] lists it.
pub fn edge(name: &str, source: &str, target: &str) -> (String, String, String) {
    (name.to_owned(), source.to_owned(), target.to_owned())
}
