//! Keeping the server administrable: no change of users, groups, roles or grants may
//! leave it without an enabled user who holds the Administer capability globally
//! (directly or through an enabled group).

use std::collections::{BTreeMap, BTreeSet};

use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::id::ObjectId;
use crate::model::{Capability, Grant, User};
use crate::store::{Batch, Op};

impl Catalog {
    /// Applies the batch unless it would leave no enabled administrator.
    ///
    /// The check reads the administrators before the write, so two administrators who
    /// remove each other at the same moment can both succeed; each alone cannot remove
    /// the last one.
    pub(crate) async fn apply_keeping_an_administrator(
        &self,
        author: crate::model::Author,
        ops: Vec<Op>,
    ) -> Result<()> {
        let batch = Batch::by(author, ops);
        let before = self.administrators_after(&Batch::new()).await?;
        if !before.is_empty() && self.administrators_after(&batch).await?.is_empty() {
            return Err(Error::invalid(
                "the change would leave no enabled administrator (a user holding a global role \
                 with the Administer capability, directly or through an enabled group)",
            ));
        }
        self.write(batch.author, batch.ops).await
    }

    /// The enabled users who would hold Administer globally once the batch is applied.
    async fn administrators_after(&self, batch: &Batch) -> Result<BTreeSet<ObjectId>> {
        let mut admin_roles: BTreeSet<String> = self
            .store
            .roles()
            .await?
            .into_iter()
            .filter(|r| r.global && r.capabilities.contains(&Capability::Administer))
            .map(|r| r.name)
            .collect();
        for op in &batch.ops {
            if let Op::PutRole(role) = op {
                if role.global && role.capabilities.contains(&Capability::Administer) {
                    admin_roles.insert(role.name.clone());
                } else {
                    admin_roles.remove(&role.name);
                }
            }
        }
        let mut grants: BTreeSet<Grant> = BTreeSet::new();
        for role in &admin_roles {
            grants.extend(
                self.store
                    .grants_of_role(role)
                    .await?
                    .into_iter()
                    .filter(|g| g.object.is_none()),
            );
        }
        // Users and groups as the batch leaves them: None when deleted.
        let mut users: BTreeMap<ObjectId, Option<User>> = BTreeMap::new();
        let mut groups: BTreeMap<ObjectId, Option<bool>> = BTreeMap::new();
        let mut added: BTreeSet<(ObjectId, ObjectId)> = BTreeSet::new();
        let mut removed: BTreeSet<(ObjectId, ObjectId)> = BTreeSet::new();
        for op in &batch.ops {
            match op {
                Op::AddGrant(g) if g.object.is_none() && admin_roles.contains(&g.role) => {
                    grants.insert(g.clone());
                }
                Op::RemoveGrant(g) => {
                    grants.remove(g);
                }
                Op::PutUser(u) => {
                    users.insert(u.id, Some(u.clone()));
                }
                Op::DeleteUser(id) => {
                    users.insert(*id, None);
                    grants.retain(|g| g.grantee != *id);
                }
                Op::PutGroup(g) => {
                    groups.insert(g.id, Some(g.enabled));
                }
                Op::DeleteGroup(id) => {
                    groups.insert(*id, None);
                    grants.retain(|g| g.grantee != *id);
                }
                Op::AddMember(m) => {
                    removed.remove(&(m.group, m.user));
                    added.insert((m.group, m.user));
                }
                Op::RemoveMember(m) => {
                    added.remove(&(m.group, m.user));
                    removed.insert((m.group, m.user));
                }
                _ => {}
            }
        }
        let grantees: BTreeSet<ObjectId> = grants.iter().map(|g| g.grantee).collect();
        let mut candidates: BTreeSet<ObjectId> = BTreeSet::new();
        for grantee in grantees {
            let group_enabled = match groups.get(&grantee) {
                Some(state) => *state,
                None => self.store.group(grantee).await?.map(|g| g.enabled),
            };
            match group_enabled {
                Some(true) => {
                    let members = self.store.members(grantee).await?;
                    candidates.extend(
                        members
                            .iter()
                            .map(|u| u.id)
                            .filter(|u| !removed.contains(&(grantee, *u))),
                    );
                    candidates.extend(added.iter().filter(|(g, _)| *g == grantee).map(|(_, u)| *u));
                }
                Some(false) => {}
                None => {
                    candidates.insert(grantee);
                }
            }
        }
        let mut administrators = BTreeSet::new();
        for id in candidates {
            let user = match users.get(&id) {
                Some(state) => state.clone(),
                None => self.store.user(id).await?,
            };
            if user.is_some_and(|u| u.enabled) {
                administrators.insert(id);
            }
        }
        Ok(administrators)
    }
}
