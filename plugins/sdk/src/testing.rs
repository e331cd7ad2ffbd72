//! Running an importer without Lore, for its tests: [`run`] collects what it sends, and
//! [`Outcome::check`] makes the checks Lore makes of a model archive that need no meta
//! model (one model, unique native ids, every reference resolving, no parent cycle), so a
//! plugin's tests catch what Lore would refuse. [`Outcome`]'s other methods find what
//! was sent: objects by native id, type or parent, attribute values, relationships,
//! labels, profiling and log lines.
//!
//! ```
//! use lore_plugin_sdk::testing;
//! # use lore_plugin_sdk::*;
//! # struct Hello;
//! # impl Importer for Hello {
//! #     fn about() -> About { About::new("hello", "1").format(Format::new("hello", "").without_file()) }
//! #     fn import(_: &Request, out: &mut Output<'_>) -> Result<(), Error> {
//! #         out.model(Model::new("Hello", "Custom Model"))?;
//! #         out.object(Object::new("hello", "Custom Object", "Hello"))
//! #     }
//! # }
//! let outcome = testing::run::<Hello>(&testing::request("hello", None, serde_json::json!({})));
//! outcome.check().expect("what Lore accepts");
//! assert_eq!(outcome.objects().count(), 1);
//! ```

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

use crate::{
    Error, Importer, Label, LogLine, Model, Object, Output, Profiling, Progress, Record,
    Relationship, Request, message,
};

/// What an importer sent, and how it ended.
#[derive(Debug)]
pub struct Outcome {
    pub result: Result<(), Error>,
    pub records: Vec<Record>,
    pub logs: Vec<LogLine>,
    pub progress: Vec<Progress>,
    /// How many chunks the records came in.
    pub chunks: usize,
}

/// A request for `format` with a file and parameters (a JSON object).
pub fn request(format: &str, file: Option<&Path>, parameters: Value) -> Request {
    Request {
        format: format.to_owned(),
        file: file.map(Path::to_path_buf),
        parameters: parameters.as_object().cloned().unwrap_or_default(),
    }
}

/// Runs the importer as the plugin host would (without a process or the C ABI between),
/// collecting every message. A message that is not what the ABI promises panics.
pub fn run<T: Importer>(request: &Request) -> Outcome {
    let mut records = Vec::new();
    let mut logs = Vec::new();
    let mut progress = Vec::new();
    let mut chunks = 0;
    let mut error = None;
    let mut send = |kind: u32, data: &[u8]| {
        match kind {
            message::RECORDS => {
                chunks += 1;
                let chunk: Vec<Record> =
                    serde_json::from_slice(data).expect("a chunk is a JSON array of records");
                records.extend(chunk);
            }
            message::LOG => logs.push(serde_json::from_slice(data).expect("a log line")),
            message::PROGRESS => progress.push(serde_json::from_slice(data).expect("progress")),
            message::ERROR => error = Some(String::from_utf8_lossy(data).into_owned()),
            other => panic!("a message of unknown kind {other}"),
        }
        true
    };
    let result = {
        let mut out = Output::new(&mut send);
        T::import(request, &mut out).and_then(|()| out.flush())
    };
    let result = match (result, error) {
        (Ok(()), None) => Ok(()),
        (Err(e), _) => Err(e),
        (Ok(()), Some(sent)) => Err(Error::new(sent)),
    };
    Outcome {
        result,
        records,
        logs,
        progress,
        chunks,
    }
}

impl Outcome {
    /// The error message of a failed import; panics when it succeeded.
    pub fn error(&self) -> String {
        match &self.result {
            Err(e) => e.0.clone(),
            Ok(()) => panic!("the import succeeded"),
        }
    }

    /// The model record, if one was sent.
    pub fn model(&self) -> Option<&Model> {
        self.records.iter().find_map(|r| match r {
            Record::Model(m) => Some(m),
            _ => None,
        })
    }

    pub fn objects(&self) -> impl Iterator<Item = &Object> {
        self.records.iter().filter_map(|r| match r {
            Record::Object(o) => Some(o),
            _ => None,
        })
    }

    /// The object of a native id; panics when none was sent.
    pub fn object(&self, native_id: &str) -> &Object {
        self.objects()
            .find(|o| o.native_id == native_id)
            .unwrap_or_else(|| panic!("no object {native_id}"))
    }

    /// Whether an object of that native id was sent.
    pub fn has_object(&self, native_id: &str) -> bool {
        self.objects().any(|o| o.native_id == native_id)
    }

    /// The objects of a type, in the order sent.
    pub fn objects_of_type(&self, object_type: &str) -> impl Iterator<Item = &Object> {
        self.objects().filter(move |o| o.object_type == object_type)
    }

    /// The children of an object (the objects whose parent it is), in the order sent.
    pub fn children(&self, parent_native_id: &str) -> impl Iterator<Item = &Object> {
        self.objects()
            .filter(move |o| o.parent_native_id.as_deref() == Some(parent_native_id))
    }

    /// One attribute value of an object: (value type, value), `None` when none was sent.
    /// Panics when two were sent (which [`check`](Self::check) refuses too).
    pub fn attribute(&self, native_id: &str, attribute: &str) -> Option<(&str, &str)> {
        let mut values = self.records.iter().filter_map(|r| match r {
            Record::Attribute(a) if a.native_id == native_id && a.attribute == attribute => {
                Some((a.value_type.as_str(), a.value.as_str()))
            }
            _ => None,
        });
        let value = values.next();
        assert!(
            values.next().is_none(),
            "{native_id} has two values of '{attribute}'"
        );
        value
    }

    /// The attribute values of an object: name → (value type, value).
    pub fn attributes(&self, native_id: &str) -> BTreeMap<String, (String, String)> {
        self.records
            .iter()
            .filter_map(|r| match r {
                Record::Attribute(a) if a.native_id == native_id => {
                    Some((a.attribute.clone(), (a.value_type.clone(), a.value.clone())))
                }
                _ => None,
            })
            .collect()
    }

    /// The relationships, in the order sent.
    pub fn relationships(&self) -> impl Iterator<Item = &Relationship> {
        self.records.iter().filter_map(|r| match r {
            Record::Relationship(r) => Some(r),
            _ => None,
        })
    }

    /// The labels and collections of every object, in the order sent.
    pub fn labels(&self) -> impl Iterator<Item = &Label> {
        self.records.iter().filter_map(|r| match r {
            Record::Label(l) => Some(l),
            _ => None,
        })
    }

    /// The profiling records, in the order sent.
    pub fn profilings(&self) -> impl Iterator<Item = &Profiling> {
        self.records.iter().filter_map(|r| match r {
            Record::Profiling(p) => Some(p),
            _ => None,
        })
    }

    /// The profiling of an object; panics when none was sent.
    pub fn profiling(&self, native_id: &str) -> &Profiling {
        self.profilings()
            .find(|p| p.native_id == native_id)
            .unwrap_or_else(|| panic!("no profiling of {native_id}"))
    }

    /// The DataProfile of an object; panics when none was sent.
    pub fn data_profile(&self, native_id: &str) -> &Value {
        self.profiling(native_id)
            .data_profile
            .as_ref()
            .unwrap_or_else(|| panic!("no data profile of {native_id}"))
    }

    /// The DataSample of an object; panics when none was sent.
    pub fn data_sample(&self, native_id: &str) -> &Value {
        self.profiling(native_id)
            .data_sample
            .as_ref()
            .unwrap_or_else(|| panic!("no data sample of {native_id}"))
    }

    /// Log lines at a level.
    pub fn log_lines(&self, level: crate::Level) -> Vec<&str> {
        self.logs
            .iter()
            .filter(|l| l.level == level)
            .map(|l| l.message.as_str())
            .collect()
    }

    /// The checks Lore makes of an archive that need no meta model: the import
    /// succeeded; exactly one model record; native ids unique and not blank; names and
    /// object types not blank; every parent, attribute, relationship end, label,
    /// classification, sensitivity label and profiling names an object sent; at most one
    /// value per attribute of an object and one profiling per object; no parent cycle;
    /// values of the known value types read.
    ///
    /// Whether Lore's meta model knows an object type, and which types the model's
    /// profile allows, is for the plugin's own tests to check.
    pub fn check(&self) -> Result<(), String> {
        if let Err(e) = &self.result {
            return Err(format!("the import failed: {e}"));
        }
        let models = self
            .records
            .iter()
            .filter(|r| matches!(r, Record::Model(_)))
            .count();
        if models != 1 {
            return Err(format!("{models} model records, not one"));
        }
        let mut parents: HashMap<&str, Option<&str>> = HashMap::new();
        for object in self.objects() {
            if object.native_id.trim().is_empty() {
                return Err(format!(
                    "an object ('{}') has a blank native id",
                    object.name
                ));
            }
            if object.name.trim().is_empty() {
                return Err(format!("object {} has no name", object.native_id));
            }
            if object.object_type.trim().is_empty() {
                return Err(format!("object {} has no object type", object.native_id));
            }
            if parents
                .insert(&object.native_id, object.parent_native_id.as_deref())
                .is_some()
            {
                return Err(format!("duplicate native id {}", object.native_id));
            }
        }
        let known = |id: &str, what: &str| {
            if parents.contains_key(id) {
                Ok(())
            } else {
                Err(format!("{what} names {id}, which no object has"))
            }
        };
        let mut values = HashSet::new();
        let mut profiled = HashSet::new();
        for record in &self.records {
            match record {
                Record::Model(_) | Record::Connection(_) => {}
                Record::Object(o) => {
                    if let Some(parent) = &o.parent_native_id {
                        known(parent, &format!("the parent of {}", o.native_id))?;
                    }
                }
                Record::Attribute(a) => {
                    known(&a.native_id, &format!("attribute '{}'", a.attribute))?;
                    if !values.insert((&a.native_id, &a.attribute)) {
                        return Err(format!(
                            "{} has two values of '{}'",
                            a.native_id, a.attribute
                        ));
                    }
                    let reads = match a.value_type.as_str() {
                        "Integer" => a.value.parse::<i64>().is_ok(),
                        "Double" => a.value.parse::<f64>().is_ok(),
                        "Boolean" => matches!(a.value.as_str(), "true" | "false"),
                        "String" | "Date" | "DateTime" | "Object" => true,
                        _ => false,
                    };
                    if !reads {
                        return Err(format!(
                            "'{}' of {} is no {}: '{}'",
                            a.attribute, a.native_id, a.value_type, a.value
                        ));
                    }
                }
                Record::Relationship(r) => {
                    known(&r.source_native_id, &format!("a {} relationship", r.kind))?;
                    known(&r.target_native_id, &format!("a {} relationship", r.kind))?;
                }
                Record::Label(l) => known(&l.native_id, &format!("label '{}'", l.value))?,
                Record::Classification(c) => {
                    known(&c.native_id, &format!("data class '{}'", c.data_class))?
                }
                Record::SensitivityLabel(l) => {
                    known(&l.native_id, &format!("sensitivity label '{}'", l.label))?
                }
                Record::Profiling(p) => {
                    known(&p.native_id, "profiling")?;
                    if !profiled.insert(&p.native_id) {
                        return Err(format!("{} has two profiling records", p.native_id));
                    }
                }
            }
        }
        for start in parents.keys() {
            let mut seen = HashSet::new();
            let mut at = Some(*start);
            while let Some(id) = at {
                if !seen.insert(id) {
                    return Err(format!("a parent cycle through {id}"));
                }
                at = parents.get(id).copied().flatten();
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{About, Attribute, Format, Label, Level};
    use serde_json::json;

    struct Cyclic;

    impl Importer for Cyclic {
        fn about() -> About {
            About::new("c", "1").format(Format::new("c", "").without_file())
        }

        fn import(request: &Request, out: &mut Output<'_>) -> Result<(), Error> {
            out.model(Model::new("M", "Custom Model"))?;
            out.object(Object::new("a", "Custom Object", "A").parent("b"))?;
            let b = Object::new("b", "Custom Object", "B");
            out.object(if request.flag("cycle") {
                b.parent("a")
            } else {
                b
            })?;
            if request.flag("dangling") {
                out.relationship(Relationship::new("lineage", "x", "a", "nowhere"))?;
            }
            if request.flag("untyped") {
                out.object(Object::new("c", " ", "C"))?;
            }
            Ok(())
        }
    }

    #[test]
    fn check_finds_what_lore_would_refuse() {
        let good = run::<Cyclic>(&request("c", None, json!({})));
        assert_eq!(good.check(), Ok(()));
        assert_eq!(good.objects().count(), 2);
        let cycle = run::<Cyclic>(&request("c", None, json!({"cycle": true})));
        assert!(
            cycle
                .check()
                .unwrap_err()
                .starts_with("a parent cycle through")
        );
        let dangling = run::<Cyclic>(&request("c", None, json!({"dangling": true})));
        assert_eq!(
            dangling.check().unwrap_err(),
            "a lineage relationship names nowhere, which no object has"
        );
        let untyped = run::<Cyclic>(&request("c", None, json!({"untyped": true})));
        assert_eq!(untyped.check().unwrap_err(), "object c has no object type");
    }

    /// A schema with two tables, a relationship between them, a label, profiling and a
    /// log line; with `twice`, one attribute value twice.
    struct Shop;

    impl Importer for Shop {
        fn about() -> About {
            About::new("shop", "1").format(Format::new("shop", "").without_file())
        }

        fn import(request: &Request, out: &mut Output<'_>) -> Result<(), Error> {
            out.model(Model::new("Shop", "Custom Model"))?;
            out.object(Object::new("s", "Schema", "S"))?;
            out.object(Object::new("s.orders", "Table", "Orders").parent("s"))?;
            out.object(Object::new("s.orders.id", "Column", "id").parent("s.orders"))?;
            out.object(Object::new("s.customers", "Table", "Customers").parent("s"))?;
            out.attribute(Attribute::integer("s.orders", "Row Count", 3))?;
            if request.flag("twice") {
                out.attribute(Attribute::integer("s.orders", "Row Count", 4))?;
            }
            out.relationship(Relationship::new(
                "entity_relationship",
                "orders_customer_fk",
                "s.orders",
                "s.customers",
            ))?;
            out.label(Label::label("s.orders.id", "key"))?;
            out.profiling(Profiling {
                native_id: "s.orders.id".into(),
                data_profile: Some(json!({"totalProfiledRows": 3})),
                data_sample: None,
            })?;
            out.log(Level::Info, "4 objects")
        }
    }

    #[test]
    fn the_outcome_finds_what_was_sent() {
        let shop = run::<Shop>(&request("shop", None, json!({})));
        assert_eq!(shop.check(), Ok(()));
        assert_eq!(shop.model().map(|m| m.name.as_str()), Some("Shop"));
        assert!(shop.has_object("s.orders.id"));
        assert!(!shop.has_object("s.orders.name"));
        let ids = |objects: Vec<&Object>| -> Vec<String> {
            objects.iter().map(|o| o.native_id.clone()).collect()
        };
        assert_eq!(
            ids(shop.objects_of_type("Table").collect()),
            ["s.orders", "s.customers"]
        );
        assert_eq!(
            ids(shop.children("s").collect()),
            ["s.orders", "s.customers"]
        );
        assert_eq!(ids(shop.children("s.orders").collect()), ["s.orders.id"]);
        assert_eq!(shop.children("s.customers").count(), 0);
        assert_eq!(
            shop.attribute("s.orders", "Row Count"),
            Some(("Integer", "3"))
        );
        assert_eq!(shop.attribute("s.orders", "Length"), None);
        assert_eq!(shop.attribute("s.customers", "Row Count"), None);
        assert_eq!(
            shop.relationships().collect::<Vec<_>>(),
            [&Relationship::new(
                "entity_relationship",
                "orders_customer_fk",
                "s.orders",
                "s.customers"
            )]
        );
        assert_eq!(
            shop.labels().collect::<Vec<_>>(),
            [&Label::label("s.orders.id", "key")]
        );
        assert_eq!(shop.profilings().count(), 1);
        assert_eq!(
            shop.data_profile("s.orders.id"),
            &json!({"totalProfiledRows": 3})
        );
        assert_eq!(shop.profiling("s.orders.id").data_sample, None);
        assert_eq!(shop.log_lines(Level::Info), ["4 objects"]);
        assert!(shop.log_lines(Level::Warn).is_empty());
    }

    #[test]
    #[should_panic(expected = "no data sample of s.orders.id")]
    fn a_missing_data_sample_panics() {
        run::<Shop>(&request("shop", None, json!({}))).data_sample("s.orders.id");
    }

    #[test]
    #[should_panic(expected = "s.orders has two values of 'Row Count'")]
    fn an_attribute_sent_twice_panics() {
        let twice = run::<Shop>(&request("shop", None, json!({"twice": true})));
        assert_eq!(
            twice.check().unwrap_err(),
            "s.orders has two values of 'Row Count'"
        );
        twice.attribute("s.orders", "Row Count");
    }
}
