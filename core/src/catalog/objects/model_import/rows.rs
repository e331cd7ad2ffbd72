//! Pass 4 of a model import: the archive's rows of added and changed objects (attribute
//! values, relationships, tags, classifications, sensitivity labels, profiling) turned
//! into ops, each checked and added to its object's print as it goes.

use std::io::{Read, Seek};

use super::*;

/// Pass 4 over the archive's tables: the rows of added and changed objects, as ops;
/// for a new model, each row checked and added to its object's print as it goes.
pub(super) struct Rows<'a, 'c> {
    pub(super) index: &'a ObjectIndex,
    pub(super) nodes: &'a Nodes,
    pub(super) number: i64,
    pub(super) now: Timestamp,
    pub(super) user: ObjectId,
    pub(super) checks: Option<&'a mut Checks<'c>>,
    pub(super) prints: Option<&'a mut [u64]>,
}

/// The archive's tables after objects.csv: a row of an object that is written is one op.
#[derive(Debug, Clone, Copy)]
enum Detail {
    Attributes,
    Relationships,
    Tags,
    Classifications,
    SensitivityLabels,
    Profiling,
}

impl Detail {
    const ALL: [Detail; 6] = [
        Self::Attributes,
        Self::Relationships,
        Self::Tags,
        Self::Classifications,
        Self::SensitivityLabels,
        Self::Profiling,
    ];

    fn file(self) -> &'static spec::FileSpec {
        match self {
            Self::Attributes => &spec::ATTRIBUTES,
            Self::Relationships => &spec::RELATIONSHIPS,
            Self::Tags => &spec::LABELS,
            Self::Classifications => &spec::CLASSIFICATIONS,
            Self::SensitivityLabels => &spec::SENSITIVITY_LABELS,
            Self::Profiling => &spec::PROFILING,
        }
    }
}

impl<'a> Rows<'a, '_> {
    pub(super) async fn write<R: Read + Seek + Send>(
        &mut self,
        reader: &mut ArchiveReader<R>,
        stream: &mut Stream<'_>,
        meta: &MetaModel,
        profile: &str,
    ) -> Result<()> {
        self.objects(reader, stream, meta, profile).await?;
        let attribute_types = meta.attribute_index();
        let mut ignored = Plan::default();
        for detail in Detail::ALL {
            let Some(mut table) = reader.table(detail.file())? else {
                continue;
            };
            while let Some(row) = table.next_row()? {
                let op = match detail {
                    Detail::Attributes => self.attribute(&row, &attribute_types, &mut ignored)?,
                    Detail::Relationships => self.relationship(&row)?,
                    Detail::Tags => self.tag(&row)?,
                    Detail::Classifications => self.classification(&row)?,
                    Detail::SensitivityLabels => self.sensitivity_label(&row)?,
                    Detail::Profiling => self.profiling(&row)?,
                };
                if let Some(op) = op {
                    stream.push(op).await?;
                }
            }
        }
        Ok(())
    }

    /// Adds a row's print to its object's, for a new model.
    fn add(&mut self, native: &str, print: u64) {
        if let (Some(prints), Some(at)) = (self.prints.as_deref_mut(), self.index.find(native)) {
            prints[at as usize] = prints[at as usize].wrapping_add(print);
        }
    }

    fn node(&self, native: &str) -> Result<Node> {
        self.index
            .find(native)
            .map(|at| self.nodes.get(at))
            .ok_or_else(|| bad(format!("unknown object '{native}'")))
    }

    /// The id of the object a row belongs to, when that object is written.
    fn written(&self, native: &str) -> Result<Option<ObjectId>> {
        let owner = self.node(native)?;
        Ok(owner.writes().then(|| owner.id(self.number)))
    }

    /// Whether the archive has an object of that native id.
    fn known(&self) -> impl Fn(&str) -> bool + 'a {
        let index = self.index;
        move |native| index.find(native).is_some()
    }

    async fn objects<R: Read + Seek + Send>(
        &mut self,
        reader: &mut ArchiveReader<R>,
        stream: &mut Stream<'_>,
        meta: &MetaModel,
        profile: &str,
    ) -> Result<()> {
        let Some(mut table) = reader.table(&spec::OBJECTS)? else {
            return Ok(());
        };
        let (number, now) = (self.number, self.now);
        let mut types = TypeCache::default();
        let mut at = 0usize;
        while let Some(row) = table.next_row()? {
            let node = self.nodes.get(at as u32);
            let parent = self.index.parent(at as u32);
            at += 1;
            if !node.writes() {
                continue;
            }
            let row_object = object_row(&row)?;
            let object_type = types.resolve(meta, profile, &row_object.object_type, &row)?;
            let mut object = Object::new(
                node.id(number),
                ObjectKind::ModelObject,
                object_type.name.clone(),
                object_type.system_type,
                row_object.name,
            );
            object.parent = (parent != NO_PARENT).then(|| self.nodes.get(parent).id(number));
            object.stable_id = Some(stable_id(number, &row_object.native_id));
            object.native_id = Some(row_object.native_id);
            object.physical_name = row_object.physical_name;
            object.description = row_object.description;
            object.business_name = row_object.business_name;
            object.business_description = row_object.business_description;
            object.data_type = row_object.data_type;
            object.external_url = row_object.external_url;
            object.hide_data = row_object.hide_data;
            object.workflow_state = row_object.workflow_state;
            object.created_at = match node.stored() {
                true => Timestamp::from_timestamp_micros(node.stored_created).unwrap_or(now),
                false => now,
            };
            object.updated_at = now;
            object.updated_by = Some(self.user);
            stream.push(Op::PutObject(object)).await?;
        }
        Ok(())
    }

    fn attribute(
        &mut self,
        row: &archive::read::Row,
        attribute_types: &HashMap<&str, &AttributeType>,
        ignored: &mut Plan,
    ) -> Result<Option<Op>> {
        let attribute = attribute_row(row, &self.known())?;
        let owner = self.written(&attribute.native_id)?;
        let value = match self.checks.as_deref_mut() {
            Some(checks) => Some(checks.attribute(row, self.index, &attribute)?),
            None => None,
        };
        let Some(object) = owner else {
            return Ok(None);
        };
        let value = match value {
            Some(value) => value,
            None => checked_value(row, &attribute, attribute_types, ignored)?,
        };
        self.add(
            &attribute.native_id,
            attribute_print(&attribute.attribute, &value),
        );
        Ok(Some(Op::SetAttribute(AttributeValue {
            object,
            attribute: attribute.attribute,
            value,
        })))
    }

    fn relationship(&mut self, row: &archive::read::Row) -> Result<Option<Op>> {
        let relationship = relationship_row(row, &self.known())?;
        let Some(source) = self.written(&relationship.source_native_id)? else {
            return Ok(None);
        };
        let edge = Edge {
            kind: relationship.kind,
            source,
            target: self.node(&relationship.target_native_id)?.id(self.number),
            name: edge_name(relationship.kind, &relationship.name),
            origin: None,
        };
        self.add(
            &relationship.source_native_id,
            edge_print(edge.kind, &edge.name, &relationship.target_native_id),
        );
        Ok(Some(Op::AddEdge(edge)))
    }

    fn tag(&mut self, row: &archive::read::Row) -> Result<Option<Op>> {
        let tag = tag_row(row, &self.known())?;
        let Some(object) = self.written(&tag.native_id)? else {
            return Ok(None);
        };
        self.add(&tag.native_id, tag_print(tag.kind, &tag.value));
        Ok(Some(Op::AddTag(Tag {
            object,
            kind: tag.kind,
            value: tag.value,
        })))
    }

    fn classification(&mut self, row: &archive::read::Row) -> Result<Option<Op>> {
        let c = classification_row(row, &self.known())?;
        if let Some(checks) = self.checks.as_deref_mut() {
            checks.classification(&c);
        }
        let Some(object) = self.written(&c.native_id)? else {
            return Ok(None);
        };
        self.add(&c.native_id, classification_print(&c.data_class, c.status));
        Ok(Some(Op::SetClassification(Classification {
            object,
            data_class: c.data_class,
            status: c.status,
        })))
    }

    fn sensitivity_label(&mut self, row: &archive::read::Row) -> Result<Option<Op>> {
        let l = label_row(row, &self.known())?;
        if let Some(checks) = self.checks.as_deref_mut() {
            checks.label(&l);
        }
        let Some(object) = self.written(&l.native_id)? else {
            return Ok(None);
        };
        self.add(&l.native_id, label_print(&l.label, l.status));
        Ok(Some(Op::SetLabelAssignment(LabelAssignment {
            object,
            label: l.label,
            status: l.status,
        })))
    }

    fn profiling(&mut self, row: &archive::read::Row) -> Result<Option<Op>> {
        let p = profiling_row(row, &self.known())?;
        if let Some(checks) = self.checks.as_deref_mut() {
            checks.profiling(row, self.index, &p.native_id)?;
        }
        let Some(object) = self.written(&p.native_id)? else {
            return Ok(None);
        };
        self.add(
            &p.native_id,
            profiling_print(&p.data_profile, &p.data_sample),
        );
        Ok(Some(Op::SetProfiling(Profiling {
            object,
            profile: p.data_profile,
            sample: p.data_sample,
        })))
    }
}
