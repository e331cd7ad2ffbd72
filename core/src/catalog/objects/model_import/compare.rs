//! How a re-import finds what changed: each archive object's fingerprint against the
//! stored object's. The stored fingerprint is the one the import that wrote the object
//! stored ([`SetImportPrint`](crate::store::Op::SetImportPrint)), read with the
//! object's key in pages; objects whose print was dropped since (anything that changes
//! them drops it) are fingerprinted from their details. The archive's fingerprints are made while objects.csv is indexed
//! (`land_archive`) and, for the other files, here, while the stored model is read.

use std::collections::{BTreeSet, HashMap};
use std::io::{Read, Seek};

use tokio::sync::mpsc;
use xxhash_rust::xxh3::Xxh3Default;

use super::{Checks, NOT_STORED, Node, PAGE, PRINT_PAGE, carried_edge, edge_name};
use crate::archive::read::{
    ObjectIndex, attribute_row, classification_row, label_row, profiling_row, relationship_row,
    spec, tag_row,
};
use crate::archive::{self, ArchiveReader};
use crate::catalog::Catalog;
use crate::error::Result;
use crate::id::ObjectId;
use crate::model::*;
use crate::pace::YieldEvery;
use crate::store::Details;

/// What [`Catalog::match_stored`] finds.
pub(super) struct Matched {
    /// A node per archive object.
    pub(super) nodes: Vec<Node>,
    /// The stored objects the archive no longer has, with their parents.
    pub(super) vanished: Vec<(ObjectId, Option<ObjectId>)>,
    /// The nodes whose stored fingerprint was computed from details, not read.
    pub(super) reprint: Vec<u32>,
}

/// The kinds of detail an archive carries: those it has a file for. A re-import replaces
/// these on changed objects and leaves the others as they are, so what users added to
/// objects (labels, classifications, sensitivity labels...) survives an importer that
/// does not produce that kind.
#[derive(Debug, Clone, Copy)]
pub(super) struct Carried {
    pub(super) attributes: bool,
    pub(super) relationships: bool,
    pub(super) tags: bool,
    pub(super) classifications: bool,
    pub(super) labels: bool,
    pub(super) profiling: bool,
}

impl Carried {
    /// The mask stored with a print: the parts it covers and [`PRINT_VERSION`].
    pub(super) fn mask(self) -> u32 {
        let parts = [
            self.attributes,
            self.relationships,
            self.tags,
            self.classifications,
            self.labels,
            self.profiling,
        ];
        let bits = parts.iter().enumerate().fold(0u32, |bits, (at, carried)| {
            bits | (u32::from(*carried) << at)
        });
        bits | PRINT_VERSION << 16
    }

    pub(super) fn of<R: Read + Seek>(reader: &ArchiveReader<R>) -> Self {
        Self {
            attributes: reader.has(&spec::ATTRIBUTES),
            relationships: reader.has(&spec::RELATIONSHIPS),
            tags: reader.has(&spec::LABELS),
            classifications: reader.has(&spec::CLASSIFICATIONS),
            labels: reader.has(&spec::SENSITIVITY_LABELS),
            profiling: reader.has(&spec::PROFILING),
        }
    }
}

impl Catalog {
    /// Matches the stored objects of model `number` with the archive's by native id:
    /// one node per archive object, in the index's numbering (those the model lacks
    /// still without a number), with the stored object's fingerprint: its stored print
    /// where the store has one of the parts the archive carries, else computed from its
    /// details. Also answers the stored objects the archive no longer has, and the nodes
    /// whose print was computed (to be stored).
    pub(super) async fn match_stored(
        &self,
        number: i64,
        index: &ObjectIndex,
        carried: Carried,
    ) -> Result<Matched> {
        let unmatched = Node {
            object: 0,
            stored_created: NOT_STORED,
            stored_fingerprint: 0,
            fingerprint: 0,
        };
        let mask = carried.mask();
        let mut matched = Matched {
            nodes: vec![unmatched; index.len()],
            vanished: Vec::new(),
            reprint: Vec::new(),
        };
        let nodes = &mut matched.nodes;
        // A task of its own reads the pages, a few ahead: the database and the decoding
        // of its rows work while this task fingerprints the archive.
        let (pages, mut queue) = mpsc::channel::<Result<Vec<PrintedObject>>>(4);
        let store = self.store.clone();
        tokio::spawn(async move {
            let mut after = None;
            loop {
                let page = store.model_prints_page(number, after, PRINT_PAGE).await;
                after = match &page {
                    Ok(page) => page.last().map(|o| o.id.object),
                    Err(_) => None,
                };
                // Stops at the end, after an error, or when the import stopped reading.
                if pages.send(page).await.is_err() || after.is_none() {
                    break;
                }
            }
        });
        while let Some(page) = queue.recv().await {
            let page = page?;
            // Objects without a print of these parts: fingerprinted from their details.
            let unprinted: Vec<ObjectId> = page
                .iter()
                .filter(|o| !matches!(o.print, Some((m, _)) if m == mask))
                .map(|o| o.id)
                .collect();
            let mut computed = HashMap::new();
            for ids in unprinted.chunks(PAGE) {
                let (objects, details) = self.stored_with_details(ids).await?;
                // The native ids of their parents and of the targets of their edges.
                let mut natives: HashMap<ObjectId, String> =
                    objects.iter().map(|o| (o.id, native_key(o))).collect();
                let referred: BTreeSet<ObjectId> = objects
                    .iter()
                    .filter_map(|o| o.parent)
                    .chain(
                        details
                            .edges
                            .iter()
                            .filter(|e| carried_edge(e, number))
                            .map(|e| e.target),
                    )
                    .filter(|id| !natives.contains_key(id))
                    .collect();
                if !referred.is_empty() {
                    let referred: Vec<ObjectId> = referred.into_iter().collect();
                    for o in self.stored_objects(&referred).await? {
                        natives.insert(o.id, native_key(&o));
                    }
                }
                computed.extend(stored_fingerprints(
                    &objects, &details, &natives, number, carried,
                ));
            }
            for object in page {
                let key = match &object.native_id {
                    Some(native) => index.find(native),
                    None => index.find(&format!("#{}", object.id.object)),
                };
                match key {
                    Some(at) if !nodes[at as usize].stored() => {
                        let print = match object.print {
                            Some((m, print)) if m == mask => print,
                            _ => {
                                matched.reprint.push(at);
                                computed.get(&object.id).copied().unwrap_or_default()
                            }
                        };
                        nodes[at as usize] = Node {
                            object: object.id.object,
                            stored_created: object.created_at.timestamp_micros(),
                            stored_fingerprint: print,
                            fingerprint: 0,
                        };
                    }
                    _ => matched.vanished.push((object.id, object.parent)),
                }
            }
        }
        Ok(matched)
    }
}

/// Reads every file but objects.csv and connections.csv once: runs `checks` on every
/// row and adds each row's fingerprint to its object's in `prints`. Gives way to the
/// other tasks of the import now and then, so the stored model is read meanwhile.
pub(super) async fn fingerprint_details<R: Read + Seek>(
    reader: &mut ArchiveReader<R>,
    index: &ObjectIndex,
    prints: &mut [u64],
    checks: &mut Checks<'_>,
) -> Result<()> {
    const YIELD_EVERY: u32 = 2_048;
    let known = |native: &str| index.find(native).is_some();
    let mut add = |native: &str, print: u64| {
        let at = index.find(native).unwrap_or_default() as usize;
        prints[at] = prints[at].wrapping_add(print);
    };
    let mut pace = YieldEvery::new(YIELD_EVERY);
    let mut next = async |table: &mut archive::read::Table<'_, R>| {
        pace.tick().await;
        table.next_row()
    };
    if let Some(mut table) = reader.table(&spec::ATTRIBUTES)? {
        while let Some(row) = next(&mut table).await? {
            let attribute = attribute_row(&row, &known)?;
            let value = checks.attribute(&row, index, &attribute)?;
            add(
                &attribute.native_id,
                attribute_print(&attribute.attribute, &value),
            );
        }
    }
    if let Some(mut table) = reader.table(&spec::RELATIONSHIPS)? {
        while let Some(row) = next(&mut table).await? {
            let relationship = relationship_row(&row, &known)?;
            let name = edge_name(relationship.kind, &relationship.name);
            add(
                &relationship.source_native_id,
                edge_print(relationship.kind, &name, &relationship.target_native_id),
            );
        }
    }
    if let Some(mut table) = reader.table(&spec::LABELS)? {
        while let Some(row) = next(&mut table).await? {
            let tag = tag_row(&row, &known)?;
            add(&tag.native_id, tag_print(tag.kind, &tag.value));
        }
    }
    if let Some(mut table) = reader.table(&spec::CLASSIFICATIONS)? {
        while let Some(row) = next(&mut table).await? {
            let c = classification_row(&row, &known)?;
            checks.classification(&c);
            add(&c.native_id, classification_print(&c.data_class, c.status));
        }
    }
    if let Some(mut table) = reader.table(&spec::SENSITIVITY_LABELS)? {
        while let Some(row) = next(&mut table).await? {
            let l = label_row(&row, &known)?;
            checks.label(&l);
            add(&l.native_id, label_print(&l.label, l.status));
        }
    }
    if let Some(mut table) = reader.table(&spec::PROFILING)? {
        while let Some(row) = next(&mut table).await? {
            let p = profiling_row(&row, &known)?;
            checks.profiling(&row, index, &p.native_id)?;
            add(
                &p.native_id,
                profiling_print(&p.data_profile, &p.data_sample),
            );
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Fingerprints: a hash of everything the archive carries for one object, the same for
// the stored object and the archive's rows. Row hashes are added, so row order does not
// matter. They are stored (`Op::SetImportPrint`), so the hash is XXH3 over parts
// written out explicitly (lengths before strings, fixed codes): the same on every
// machine and build. A change of what goes in must change [`PRINT_VERSION`].

/// The version of the fingerprint, in the high half of a print's mask: prints of
/// another version are never compared.
const PRINT_VERSION: u32 = 1;

/// A fingerprint being written.
struct Print(Xxh3Default);

impl Print {
    fn of(part: &str) -> Self {
        let mut print = Self(Xxh3Default::new());
        print.str(part);
        print
    }
    fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.update(bytes);
        self
    }
    fn str(&mut self, text: &str) -> &mut Self {
        self.bytes(&(text.len() as u64).to_le_bytes())
            .bytes(text.as_bytes())
    }
    fn text(&mut self, text: Option<&str>) -> &mut Self {
        match text {
            None => self.bytes(&[0]),
            Some(text) => self.bytes(&[1]).str(text),
        }
    }
    fn finish(&self) -> u64 {
        self.0.digest()
    }
}

/// The print of an object's own fields; its parent by native id.
pub(super) fn object_print(
    object_type: &TypeName,
    parent: Option<&str>,
    name: &str,
    texts: [&Option<String>; 7],
    hide_data: bool,
) -> u64 {
    let mut print = Print::of("object");
    print
        .str(&object_type.profile)
        .str(&object_type.name)
        .text(parent)
        .str(name);
    for text in texts {
        print.text(text.as_deref());
    }
    print.bytes(&[u8::from(hide_data)]).finish()
}

pub(super) fn attribute_print(attribute: &str, value: &Value) -> u64 {
    let kind = match value {
        Value::Boolean(_) => 0u8,
        Value::Integer(_) => 1,
        Value::Double(_) => 2,
        Value::DateTime(_) => 3,
        Value::Text(_) => 4,
    };
    Print::of("attribute")
        .str(attribute)
        .bytes(&[kind])
        .str(&value.to_text())
        .finish()
}

/// The print of an edge of the model; its target by native id.
pub(super) fn edge_print(kind: EdgeKind, name: &str, target: &str) -> u64 {
    Print::of("edge")
        .str(kind.as_str())
        .str(name)
        .str(target)
        .finish()
}

pub(super) fn tag_print(kind: TagKind, value: &str) -> u64 {
    Print::of("tag").str(kind.as_str()).str(value).finish()
}

pub(super) fn classification_print(data_class: &str, status: ClassificationStatus) -> u64 {
    Print::of("classification")
        .str(data_class)
        .str(status.as_str())
        .finish()
}

pub(super) fn label_print(label: &str, status: ClassificationStatus) -> u64 {
    Print::of("label").str(label).str(status.as_str()).finish()
}

pub(super) fn profiling_print(profile: &Option<DataProfile>, sample: &Option<DataSample>) -> u64 {
    if profile.is_none() && sample.is_none() {
        return 0;
    }
    Print::of("profiling")
        .str(&serde_json::to_string(profile).unwrap_or_default())
        .str(&serde_json::to_string(sample).unwrap_or_default())
        .finish()
}

/// The fingerprints of stored objects of model `number`, from their details.
/// `natives` holds the native id ([`native_key`]) of every parent and carried edge
/// target among them.
fn stored_fingerprints(
    objects: &[Object],
    details: &Details,
    natives: &HashMap<ObjectId, String>,
    number: i64,
    carried: Carried,
) -> HashMap<ObjectId, u64> {
    let native = |id: ObjectId| natives.get(&id).map_or("", String::as_str);
    let mut prints: HashMap<ObjectId, u64> = objects
        .iter()
        .map(|o| {
            let texts = [
                &o.physical_name,
                &o.description,
                &o.business_name,
                &o.business_description,
                &o.data_type,
                &o.external_url,
                &o.workflow_state,
            ];
            (
                o.id,
                object_print(
                    &o.object_type,
                    o.parent.map(native),
                    &o.name,
                    texts,
                    o.hide_data,
                ),
            )
        })
        .collect();
    let mut add = |object: ObjectId, hash: u64| {
        if let Some(print) = prints.get_mut(&object) {
            *print = print.wrapping_add(hash);
        }
    };
    // Only what the archive carries counts: the rest is left as it is.
    for a in details.attributes.iter().filter(|_| carried.attributes) {
        add(a.object, attribute_print(&a.attribute, &a.value));
    }
    for e in details.edges.iter().filter(|_| carried.relationships) {
        if carried_edge(e, number) {
            add(e.source, edge_print(e.kind, &e.name, native(e.target)));
        }
    }
    for t in details.tags.iter().filter(|_| carried.tags) {
        add(t.object, tag_print(t.kind, &t.value));
    }
    for c in details
        .classifications
        .iter()
        .filter(|_| carried.classifications)
    {
        add(c.object, classification_print(&c.data_class, c.status));
    }
    for l in details.labels.iter().filter(|_| carried.labels) {
        add(l.object, label_print(&l.label, l.status));
    }
    for p in details.profiling.iter().filter(|_| carried.profiling) {
        add(p.object, profiling_print(&p.profile, &p.sample));
    }
    prints
}

/// What an archive calls a stored object: its native id, or `#<number>` without one.
fn native_key(object: &Object) -> String {
    match &object.native_id {
        Some(native) => native.clone(),
        None => format!("#{}", object.id.object),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PINNED_TAG_PRINT: u64 = 5_882_609_374_058_338_073;

    #[test]
    fn row_order_does_not_change_a_fingerprint() {
        let a = attribute_print("Row Count", &Value::Integer(3));
        let b = tag_print(TagKind::Label, "PII");
        assert_eq!(a.wrapping_add(b), b.wrapping_add(a));
        assert_ne!(a, attribute_print("Row Count", &Value::Text("3".into())));
        assert_ne!(
            edge_print(EdgeKind::Lineage, "x", "a"),
            edge_print(EdgeKind::Lineage, "x", "b")
        );
    }

    /// Prints are stored: the same parts must give the same number in every build. A
    /// change of what goes into a print must change `PRINT_VERSION` and this value.
    #[test]
    fn a_print_is_the_same_in_every_build() {
        assert_eq!(tag_print(TagKind::Label, "PII"), PINNED_TAG_PRINT);
        // Lengths go before strings: moving a character between parts is a change.
        let print = |a: &str, b: &str| Print::of("x").str(a).str(b).finish();
        assert_ne!(print("ab", "c"), print("a", "bc"));
        let none: [&Option<String>; 7] = [&None; 7];
        let type_name = TypeName::new("Database", "Table");
        assert_ne!(
            object_print(&type_name, None, "t", none, false),
            object_print(&type_name, Some(""), "t", none, false),
        );
    }
}
