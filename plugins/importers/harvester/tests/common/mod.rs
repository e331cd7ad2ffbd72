//! Runs the harvester as the plugin host would and collects what it sends.

// Each test file uses its own part of these helpers.
#![allow(dead_code)]

use std::collections::BTreeSet;

use lore_importer_harvester::{FORMAT, Harvester};
use lore_plugin_sdk::{
    Attribute, Error, Importer, LogLine, Object, Output, Profiling, Progress, Record, Relationship,
    Request, message,
};
use serde_json::Value;

/// What an import sent.
#[derive(Debug, Default)]
pub struct Sent {
    pub records: Vec<Record>,
    pub logs: Vec<LogLine>,
    pub progress: Vec<Progress>,
}

impl Sent {
    pub fn objects(&self) -> Vec<&Object> {
        self.records
            .iter()
            .filter_map(|r| match r {
                Record::Object(o) => Some(o),
                _ => None,
            })
            .collect()
    }

    pub fn ids(&self) -> BTreeSet<String> {
        self.objects()
            .into_iter()
            .map(|o| o.native_id.clone())
            .collect()
    }

    /// `(native id, parent, type)` of every object of a type, sorted.
    pub fn tree(&self, object_type: &str) -> Vec<(String, Option<String>)> {
        let mut found: Vec<(String, Option<String>)> = self
            .objects()
            .into_iter()
            .filter(|o| o.object_type == object_type)
            .map(|o| (o.native_id.clone(), o.parent_native_id.clone()))
            .collect();
        found.sort();
        found
    }

    pub fn object(&self, native_id: &str) -> &Object {
        self.objects()
            .into_iter()
            .find(|o| o.native_id == native_id)
            .unwrap_or_else(|| panic!("no object {native_id}"))
    }

    pub fn attribute(&self, native_id: &str, name: &str) -> Option<(&str, &str)> {
        let found: Vec<&Attribute> = self
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Attribute(a) if a.native_id == native_id && a.attribute == name => Some(a),
                _ => None,
            })
            .collect();
        assert!(found.len() <= 1, "one '{name}' of {native_id} at most");
        found
            .first()
            .map(|a| (a.value_type.as_str(), a.value.as_str()))
    }

    pub fn relationships(&self) -> Vec<&Relationship> {
        self.records
            .iter()
            .filter_map(|r| match r {
                Record::Relationship(rel) => Some(rel),
                _ => None,
            })
            .collect()
    }

    pub fn profilings(&self) -> Vec<&Profiling> {
        self.records
            .iter()
            .filter_map(|r| match r {
                Record::Profiling(p) => Some(p),
                _ => None,
            })
            .collect()
    }

    pub fn profiling(&self, native_id: &str) -> &Profiling {
        self.profilings()
            .into_iter()
            .find(|p| p.native_id == native_id)
            .unwrap_or_else(|| panic!("no profiling of {native_id}"))
    }

    pub fn profile(&self, native_id: &str) -> &Value {
        self.profiling(native_id)
            .data_profile
            .as_ref()
            .unwrap_or_else(|| panic!("no data profile of {native_id}"))
    }

    pub fn sample(&self, native_id: &str) -> &Value {
        self.profiling(native_id)
            .data_sample
            .as_ref()
            .unwrap_or_else(|| panic!("no data sample of {native_id}"))
    }

    /// Every native id a record refers to is an object's: what the archive reader checks.
    pub fn assert_references_resolve(&self) {
        let ids = self.ids();
        assert_eq!(ids.len(), self.objects().len(), "native ids are unique");
        for record in &self.records {
            let referenced: Vec<&str> = match record {
                Record::Object(o) => o.parent_native_id.as_deref().into_iter().collect(),
                Record::Attribute(a) => vec![&a.native_id],
                Record::Relationship(r) => vec![&r.source_native_id, &r.target_native_id],
                Record::Profiling(p) => vec![&p.native_id],
                _ => Vec::new(),
            };
            for id in referenced {
                assert!(ids.contains(id), "{record:?} refers to no object");
            }
        }
    }
}

/// Runs one import of format `database` with these parameters.
pub fn run(parameters: Value) -> Result<Sent, Error> {
    let request = Request {
        format: FORMAT.to_owned(),
        file: None,
        parameters: parameters.as_object().cloned().unwrap_or_default(),
    };
    let mut sent = Sent::default();
    let mut send = |kind: u32, data: &[u8]| {
        match kind {
            message::RECORDS => sent
                .records
                .extend(serde_json::from_slice::<Vec<Record>>(data).expect("a chunk of records")),
            message::LOG => sent
                .logs
                .push(serde_json::from_slice(data).expect("a log line")),
            message::PROGRESS => sent
                .progress
                .push(serde_json::from_slice(data).expect("a progress")),
            other => panic!("unexpected message kind {other}"),
        }
        true
    };
    let mut out = Output::new(&mut send);
    let result = Harvester::import(&request, &mut out).and_then(|()| out.flush());
    drop(out);
    result.map(|()| sent)
}
