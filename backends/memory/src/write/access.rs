//! Writes of users, groups, memberships, roles and grants.

use lore_core::error::{Error, Result};
use lore_core::id::ObjectId;
use lore_core::model::{ExternalLink, Grant, Group, Membership, Role, User};

use crate::state::{DocumentKey, MIN_ID, set_entry, user_key};

use super::{Tx, Undo};

impl Tx<'_> {
    pub(super) fn put_user(&mut self, user: User) -> Result<()> {
        if let Some(other) = self.state.user_names.get(&user_key(&user.name))
            && *other != user.id
        {
            return Err(Error::conflict(format!(
                "a user named '{}' already exists",
                user.name
            )));
        }
        if let Some((issuer, subject)) = user.external.as_ref().and_then(ExternalLink::subject)
            && self.state.users.values().any(|other| {
                other.id != user.id
                    && other.external.as_ref().and_then(ExternalLink::subject)
                        == Some((issuer, subject))
            })
        {
            return Err(Error::conflict(
                "another user is already linked to that identity",
            ));
        }
        let id = user.id;
        let old = self.state.set_user(id, Some(user));
        self.undo.push(Undo::User(id, old));
        Ok(())
    }

    /// Removes a user with its grants, memberships, worksheets, curation entries,
    /// notifications, documents and sessions.
    pub(super) fn delete_user(&mut self, id: ObjectId) {
        self.revoke_all(id);
        let groups: Vec<ObjectId> = self.state.group_ids_of(id).collect();
        for group in groups {
            self.member(Membership { group, user: id }, false);
        }
        let owned: Vec<ObjectId> = self
            .state
            .worksheets
            .values()
            .filter(|w| w.owner == id)
            .map(|w| w.id)
            .collect();
        for worksheet in owned {
            let old = self.state.set_worksheet(worksheet, None);
            self.undo.push(Undo::Worksheet(worksheet, old));
        }
        let curation: Vec<i64> = self
            .state
            .curation
            .values()
            .filter(|c| c.user == id)
            .map(|c| c.id)
            .collect();
        for entry in curation {
            self.remove_curation(entry);
        }
        let notifications: Vec<i64> = self
            .state
            .notifications
            .values()
            .filter(|n| n.user == id)
            .map(|n| n.id)
            .collect();
        for notification in notifications {
            let old = set_entry(&mut self.state.notifications, notification, None);
            self.undo.push(Undo::Notification(notification, old));
        }
        let documents: Vec<DocumentKey> = self
            .state
            .documents
            .keys()
            .filter(|(_, owner, _)| *owner == Some(id))
            .cloned()
            .collect();
        for key in documents {
            let old = set_entry(&mut self.state.documents, key.clone(), None);
            self.undo.push(Undo::Document(key, old));
        }
        // Sessions need no undo: without the user they authenticate nobody, and
        // a user id is never reused.
        self.state.sessions.retain(|_, s| s.user != id);
        let old = self.state.set_user(id, None);
        if old.is_some() {
            self.undo.push(Undo::User(id, old));
        }
    }

    pub(super) fn put_group(&mut self, group: Group) -> Result<()> {
        if let Some(other) = self.state.group_names.get(&user_key(&group.name))
            && *other != group.id
        {
            return Err(Error::conflict(format!(
                "a group named '{}' already exists",
                group.name
            )));
        }
        let id = group.id;
        let old = self.state.set_group(id, Some(group));
        self.undo.push(Undo::Group(id, old));
        Ok(())
    }

    /// Removes a group with its grants and memberships.
    pub(super) fn delete_group(&mut self, id: ObjectId) {
        self.revoke_all(id);
        let members: Vec<Membership> = self
            .state
            .members
            .range(
                Membership {
                    group: id,
                    user: MIN_ID,
                }..,
            )
            .take_while(|m| m.group == id)
            .copied()
            .collect();
        for m in members {
            self.member(m, false);
        }
        let old = self.state.set_group(id, None);
        if old.is_some() {
            self.undo.push(Undo::Group(id, old));
        }
    }

    pub(super) fn add_member(&mut self, m: Membership) {
        if self.state.groups.contains_key(&m.group) && self.state.users.contains_key(&m.user) {
            self.member(m, true);
        }
    }

    pub(super) fn member(&mut self, m: Membership, present: bool) {
        let was = self.state.set_member(m, present);
        if was != present {
            self.undo.push(Undo::Member(m, was));
        }
    }

    pub(super) fn put_role(&mut self, role: Role) {
        self.state.meta_version += 1;
        let name = role.name.clone();
        let old = set_entry(&mut self.state.roles, name.clone(), Some(role));
        self.undo.push(Undo::Role(name, old));
    }

    /// Removes a role and every grant of it.
    pub(super) fn delete_role(&mut self, name: String) {
        self.state.meta_version += 1;
        let granted: Vec<Grant> = self
            .state
            .grants
            .iter()
            .filter(|g| g.role == name)
            .cloned()
            .collect();
        for grant in granted {
            self.grant(grant, false);
        }
        let old = set_entry(&mut self.state.roles, name.clone(), None);
        if old.is_some() {
            self.undo.push(Undo::Role(name, old));
        }
    }

    /// Revokes every grant the grantee holds.
    pub(super) fn revoke_all(&mut self, grantee: ObjectId) {
        let held: Vec<Grant> = self.state.grants_held(grantee).cloned().collect();
        for grant in held {
            self.grant(grant, false);
        }
    }

    pub(super) fn grant(&mut self, grant: Grant, present: bool) {
        let was = self.state.set_grant(grant.clone(), present);
        if was != present {
            self.undo.push(Undo::Grant(grant, was));
        }
    }
}
