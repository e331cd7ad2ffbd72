//! Writes of what users keep and receive: worksheets, curation entries, documents,
//! notifications and their deliveries.

use lore_core::error::{Error, Result};
use lore_core::id::ObjectId;
use lore_core::model::{Curation, Delivery, Document, DocumentKind, Notification, Worksheet};

use crate::state::set_entry;

use super::{Tx, Undo};

impl Tx<'_> {
    pub(super) fn put_worksheet(&mut self, worksheet: Worksheet) -> Result<()> {
        let key = (worksheet.owner, Worksheet::name_key(&worksheet.name));
        if let Some(other) = self.state.worksheet_names.get(&key)
            && *other != worksheet.id
        {
            return Err(Error::conflict(format!(
                "a worksheet named '{}' already exists",
                worksheet.name
            )));
        }
        let id = worksheet.id;
        let old = self.state.set_worksheet(id, Some(worksheet));
        self.undo.push(Undo::Worksheet(id, old));
        Ok(())
    }

    pub(super) fn delete_worksheet(&mut self, id: ObjectId) {
        let old = self.state.set_worksheet(id, None);
        if old.is_some() {
            self.undo.push(Undo::Worksheet(id, old));
        }
    }

    pub(super) fn put_notification(&mut self, notification: Notification) {
        let id = notification.id;
        let old = set_entry(&mut self.state.notifications, id, Some(notification));
        self.undo.push(Undo::Notification(id, old));
    }

    pub(super) fn put_curation(&mut self, entry: Curation) {
        let id = entry.id;
        let old = self.state.set_curation(id, Some(entry));
        self.undo.push(Undo::Curation(id, old));
    }

    pub(super) fn remove_curation(&mut self, id: i64) {
        let old = self.state.set_curation(id, None);
        if old.is_some() {
            self.undo.push(Undo::Curation(id, old));
        }
    }

    pub(super) fn put_document(&mut self, document: Document) {
        let key = (document.kind, document.owner, document.name.clone());
        let old = set_entry(&mut self.state.documents, key.clone(), Some(document));
        self.undo.push(Undo::Document(key, old));
    }

    pub(super) fn delete_document(
        &mut self,
        kind: DocumentKind,
        owner: Option<ObjectId>,
        name: String,
    ) {
        let key = (kind, owner, name);
        let old = set_entry(&mut self.state.documents, key.clone(), None);
        if old.is_some() {
            self.undo.push(Undo::Document(key, old));
        }
    }

    pub(super) fn put_delivery(&mut self, delivery: Delivery) {
        let id = delivery.id;
        let old = self.state.deliveries.insert(id, delivery);
        self.undo.push(Undo::Delivery(id, old));
    }

    pub(super) fn update_delivery(&mut self, delivery: Delivery) {
        let id = delivery.id;
        if let Some(slot) = self.state.deliveries.get_mut(&id) {
            let old = std::mem::replace(slot, delivery);
            self.undo.push(Undo::Delivery(id, Some(old)));
        }
    }
}
