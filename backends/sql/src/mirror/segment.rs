//! How the search index keeps its objects: a [`Segment`] of entries in name order, each
//! a few fixed-size numbers ([`Entry`]), with the texts they share laid end to end (names,
//! search forms) or numbered once ([`Texts`]: types, labels, data classes), and what
//! hangs on the few objects that have labels or data classes in a table of its own. About
//! 90 bytes an object, and no allocation of its own per object.
//!
//! A segment is made from a [`Draft`]: the objects' rows as they are read (in any order),
//! what hangs on them attached ([`Draft::attach`]), then laid out in name order.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use lore_core::model::{ClassificationStatus, CurationKind, ObjectKind};
use lore_core::mql::plan::{fold, search_form};
use lore_core::{ObjectId, Result};

use super::eval;
use crate::value::Row;

pub(super) const NONE: u32 = u32::MAX;
pub(super) const CERTIFIED: u8 = 1;
pub(super) const ENDORSED: u8 = 2;
pub(super) const WARNED: u8 = 4;
pub(super) const DESCRIBED: u8 = 8;

/// A kept object; its name, forms, labels and data classes are in its segment.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    pub(super) id: ObjectId,
    /// Its type's name in the segment's texts.
    pub(super) type_name: u32,
    /// Its data type in the texts ([`NONE`]: none).
    pub(super) data_type: u32,
    /// Its most restrictive approved or matched sensitivity label ([`NONE`]: none).
    pub(super) top_label: u32,
    /// Its labels and data classes in the segment's `hanging` ([`NONE`]: none).
    hanging: u32,
    pub(super) kind: ObjectKind,
    /// [`CERTIFIED`], [`ENDORSED`], [`WARNED`], [`DESCRIBED`].
    pub(super) flags: u8,
}

impl Entry {
    /// The model number (`"Model Id"`), as [`lore_core::model::Object::model_number`].
    pub(super) fn model_number(&self) -> Option<i64> {
        match self.kind {
            ObjectKind::Model => Some(self.id.content_model()),
            ObjectKind::ModelObject => Some(self.id.model),
            _ => None,
        }
    }
}

/// The labels and data classes of an entry that has some.
#[derive(Debug, Clone, Default)]
struct Hanging {
    /// Its labels in the texts, distinct, sorted.
    labels: Box<[u32]>,
    /// Its classifications whose data class exists: (the class's name in the texts,
    /// status).
    classes: Box<[(u32, ClassificationStatus)]>,
}

/// The texts entries share (types, labels, data classes): each once, with its folded
/// form for tests.
#[derive(Debug, Default, Clone)]
pub(super) struct Texts {
    pub(super) texts: Vec<Arc<str>>,
    pub(super) folded: Vec<Arc<str>>,
    numbers: HashMap<Arc<str>, u32>,
}

impl Texts {
    fn number(&mut self, text: &str) -> u32 {
        if let Some(&n) = self.numbers.get(text) {
            return n;
        }
        let n = u32::try_from(self.texts.len()).unwrap_or(NONE - 1);
        let text: Arc<str> = Arc::from(text);
        self.folded.push(Arc::from(fold(&text).as_str()));
        self.texts.push(Arc::clone(&text));
        self.numbers.insert(text, n);
        n
    }

    pub(super) fn text(&self, n: u32) -> &str {
        self.texts.get(n as usize).map_or("", |t| t)
    }
}

/// Texts laid end to end: the `i`th is `text[ends[i - 1]..ends[i]]`.
#[derive(Debug, Default)]
struct Laid<T> {
    text: T,
    ends: Vec<u32>,
}

impl<T: Default> Laid<T> {
    fn start(&self, i: usize) -> usize {
        if i == 0 { 0 } else { self.ends[i - 1] as usize }
    }

    fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.start(i)..self.ends[i] as usize
    }
}

/// A length as a 32-bit offset; `None` past 4 GiB.
fn offset(len: usize) -> Option<u32> {
    u32::try_from(len).ok()
}

impl Laid<String> {
    fn push(&mut self, text: &str) -> Option<()> {
        self.text.push_str(text);
        self.ends.push(offset(self.text.len())?);
        Some(())
    }

    fn get(&self, i: usize) -> &str {
        &self.text[self.range(i)]
    }
}

impl Laid<Vec<u8>> {
    fn push(&mut self, bytes: &[u8]) -> Option<()> {
        self.text.extend_from_slice(bytes);
        self.ends.push(offset(self.text.len())?);
        Some(())
    }

    fn get(&self, i: usize) -> &[u8] {
        &self.text[self.range(i)]
    }
}

/// Kept objects, immutable once made: the index's base (every object when it was read
/// whole) or its fresh part (the objects changed since).
#[derive(Debug)]
pub(crate) struct Segment {
    /// In name order ([`Segment::key`]).
    pub(super) entries: Vec<Entry>,
    /// The entries' names, in their order.
    names: Laid<String>,
    /// Each entry's search form of Name, `\u{1}`, that of Physical Name, then `\0`, end
    /// to end; `starts` has where each begins, and one more at the end.
    pub(super) forms: Vec<u8>,
    pub(super) starts: Vec<u32>,
    hanging: Vec<Hanging>,
    pub(super) texts: Texts,
    /// The entries' positions in id order.
    by_id: Vec<u32>,
    /// The objects of the text searches run on this segment: (columns, term) → entries.
    /// A segment never changes, so they stay true for as long as it is kept.
    pub(super) terms: Mutex<Vec<(eval::TermKey, Arc<eval::Term>)>>,
}

impl Segment {
    pub(super) fn empty() -> Self {
        Draft::default()
            .segment()
            .unwrap_or_else(|| unreachable!("an empty segment fits"))
    }

    pub(super) fn name(&self, at: u32) -> &str {
        self.names.get(at as usize)
    }

    /// The order of a segment and of a page in name order: Name, then ids.
    pub(super) fn key(&self, at: u32) -> (&str, ObjectId) {
        (self.name(at), self.entries[at as usize].id)
    }

    /// The entry's search forms, without their end.
    pub(super) fn form(&self, at: usize) -> &[u8] {
        let (start, end) = (self.starts[at] as usize, self.starts[at + 1] as usize);
        &self.forms[start..end.saturating_sub(1)]
    }

    pub(super) fn labels(&self, entry: &Entry) -> &[u32] {
        self.hanging
            .get(entry.hanging as usize)
            .map_or(&[], |h| &h.labels)
    }

    pub(super) fn classes(&self, entry: &Entry) -> &[(u32, ClassificationStatus)] {
        self.hanging
            .get(entry.hanging as usize)
            .map_or(&[], |h| &h.classes)
    }

    pub(super) fn position(&self, id: ObjectId) -> Option<u32> {
        self.by_id
            .binary_search_by_key(&id, |&at| self.entries[at as usize].id)
            .ok()
            .map(|i| self.by_id[i])
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }
}

/// Objects read for a segment, in the order they were read.
#[derive(Debug, Default)]
pub(super) struct Draft {
    entries: Vec<Entry>,
    names: Laid<String>,
    /// Each entry's forms, without the `\0` a segment ends them with.
    forms: Laid<Vec<u8>>,
    hanging: Vec<Hanging>,
    texts: Texts,
}

const WHAT: &str = "the search index";

impl Draft {
    /// A draft whose texts begin as these (so entries taken from a segment that has
    /// them keep their numbers).
    pub(super) fn with_texts(texts: Texts) -> Self {
        Self {
            texts,
            ..Self::default()
        }
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// `None` when its texts would not fit in 4 GiB.
    fn push(&mut self, entry: Entry, name: &str, forms: &[u8]) -> Option<()> {
        self.names.push(name)?;
        self.forms.push(forms)?;
        self.entries.push(entry);
        Some(())
    }

    /// Adds the objects of rows of [`super::OBJECTS`], nothing hanging on them yet;
    /// `Ok(None)` when the texts would not fit in 4 GiB.
    pub(super) fn read(&mut self, rows: Vec<Row>) -> Result<Option<()>> {
        let mut forms = Vec::new();
        for mut row in rows {
            let id = ObjectId::new(row.int(0, WHAT)?, row.int(1, WHAT)?);
            let kind = row.text(2, WHAT)?;
            let kind = ObjectKind::parse(&kind).ok_or_else(|| {
                lore_core::Error::internal(format!("object {id} has the unknown kind '{kind}'"))
            })?;
            let name = row.text(3, WHAT)?;
            let physical = row.opt_text(4, WHAT)?;
            let type_name = self.texts.number(&row.text(5, WHAT)?);
            let data_type = match row.opt_text(6, WHAT)? {
                Some(t) => self.texts.number(&t),
                None => NONE,
            };
            let flags = if row.int(7, WHAT)? != 0 { DESCRIBED } else { 0 };
            forms.clear();
            forms.extend_from_slice(search_form(&name).as_bytes());
            forms.push(1);
            if let Some(physical) = physical {
                forms.extend_from_slice(search_form(&physical).as_bytes());
            }
            let entry = Entry {
                id,
                type_name,
                data_type,
                top_label: NONE,
                hanging: NONE,
                kind,
                flags,
            };
            if self.push(entry, &name, &forms).is_none() {
                return Ok(None);
            }
        }
        Ok(Some(()))
    }

    /// Adds an entry of a segment (whose texts this draft's began as).
    pub(super) fn keep(&mut self, segment: &Segment, at: u32) -> Option<()> {
        let mut entry = segment.entries[at as usize];
        if let Some(hanging) = segment.hanging.get(entry.hanging as usize) {
            entry.hanging = offset(self.hanging.len())?;
            self.hanging.push(hanging.clone());
        }
        self.push(entry, segment.name(at), segment.form(at as usize))
    }

    /// Adds what hangs on the entries' objects (the rows of
    /// [`super::hanging_statements`]: labels, data classes, sensitivity labels,
    /// curation).
    pub(super) fn attach(&mut self, hanging: Vec<crate::driver::Outcome>) -> Result<()> {
        let mut by_id: Vec<u32> = (0..self.entries.len() as u32).collect();
        by_id.sort_unstable_by_key(|&i| self.entries[i as usize].id);
        let entries = &self.entries;
        let at = |row: &Row| -> Result<Option<usize>> {
            let id = ObjectId::new(row.int(0, WHAT)?, row.int(1, WHAT)?);
            Ok(by_id
                .binary_search_by_key(&id, |&i| entries[i as usize].id)
                .ok()
                .map(|i| by_id[i] as usize))
        };
        let mut hanging = hanging.into_iter().map(|o| o.rows);
        let mut next = || hanging.next().unwrap_or_default();
        let (labels, classes, assigned, curation) = (next(), next(), next(), next());
        let mut labels_of: HashMap<usize, Vec<u32>> = HashMap::new();
        for mut row in labels {
            if let Some(i) = at(&row)? {
                let label = self.texts.number(&row.text(2, WHAT)?);
                labels_of.entry(i).or_default().push(label);
            }
        }
        let mut classes_of: HashMap<usize, Vec<(u32, ClassificationStatus)>> = HashMap::new();
        for mut row in classes {
            let Some(status) = ClassificationStatus::parse(&row.text(3, WHAT)?) else {
                continue;
            };
            if let Some(i) = at(&row)? {
                let class = self.texts.number(&row.text(2, WHAT)?);
                classes_of.entry(i).or_default().push((class, status));
            }
        }
        // The most restrictive approved or matched label: highest position, then first
        // name.
        let mut top: HashMap<usize, (i64, String)> = HashMap::new();
        for mut row in assigned {
            let status = ClassificationStatus::parse(&row.text(3, WHAT)?);
            if !matches!(
                status,
                Some(ClassificationStatus::Matched | ClassificationStatus::Approved)
            ) {
                continue;
            }
            let Some(i) = at(&row)? else { continue };
            let (label, position) = (row.text(2, WHAT)?, row.int(4, WHAT)?);
            let better = match top.get(&i) {
                None => true,
                Some((p, best)) => position > *p || (position == *p && label < *best),
            };
            if better {
                top.insert(i, (position, label));
            }
        }
        let mut flags = Vec::new();
        for mut row in curation {
            let flag = match CurationKind::parse(&row.text(2, WHAT)?) {
                Some(CurationKind::Certification) => CERTIFIED,
                Some(CurationKind::Endorsement) => ENDORSED,
                Some(CurationKind::Warning) => WARNED,
                _ => 0,
            };
            if let Some(i) = at(&row)? {
                flags.push((i, flag));
            }
        }
        drop(by_id);
        for (i, flag) in flags {
            self.entries[i].flags |= flag;
        }
        for (i, (_, label)) in top {
            self.entries[i].top_label = self.texts.number(&label);
        }
        for (i, mut labels) in labels_of {
            labels.sort_unstable();
            labels.dedup();
            self.hanging_of(i).labels = labels.into_boxed_slice();
        }
        for (i, classes) in classes_of {
            self.hanging_of(i).classes = classes.into_boxed_slice();
        }
        Ok(())
    }

    /// What hangs on the `i`th entry, made when it has none yet.
    fn hanging_of(&mut self, i: usize) -> &mut Hanging {
        let entry = &mut self.entries[i];
        if entry.hanging == NONE {
            entry.hanging = self.hanging.len() as u32;
            self.hanging.push(Hanging::default());
        }
        &mut self.hanging[entry.hanging as usize]
    }

    /// The entries laid out in name order; `None` when their forms do not fit in 4 GiB.
    pub(super) fn segment(self) -> Option<Segment> {
        let Draft {
            entries,
            names,
            forms,
            hanging,
            texts,
        } = self;
        let mut order: Vec<u32> = (0..entries.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| {
            (names.get(a as usize), entries[a as usize].id)
                .cmp(&(names.get(b as usize), entries[b as usize].id))
        });
        let mut laid_forms = Vec::with_capacity(forms.text.len() + entries.len());
        let mut starts = Vec::with_capacity(entries.len() + 1);
        starts.push(0);
        for &i in &order {
            laid_forms.extend_from_slice(forms.get(i as usize));
            laid_forms.push(0);
            starts.push(offset(laid_forms.len())?);
        }
        drop(forms);
        let mut laid_names = Laid {
            text: String::with_capacity(names.text.len()),
            ends: Vec::with_capacity(entries.len()),
        };
        for &i in &order {
            laid_names.push(names.get(i as usize))?;
        }
        drop(names);
        let sorted: Vec<Entry> = order.iter().map(|&i| entries[i as usize]).collect();
        drop(entries);
        // Reuse the order's room for the positions in id order.
        let mut by_id = order;
        for (at, slot) in by_id.iter_mut().enumerate() {
            *slot = at as u32;
        }
        by_id.sort_unstable_by_key(|&at| sorted[at as usize].id);
        Some(Segment {
            entries: sorted,
            names: laid_names,
            forms: laid_forms,
            starts,
            hanging,
            texts,
            by_id,
            terms: Mutex::new(Vec::new()),
        })
    }
}
