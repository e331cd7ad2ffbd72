//! Groups of users: creating, listing, changing, disabling and deleting them, and their
//! members.
//!
//! Administrators (the Administer capability) manage every group; any user may read the
//! groups they belong to. The roles granted to an enabled group hold for each member, so
//! disabling a group takes its roles from its members at once, and no change may leave
//! the server without an enabled administrator.

use serde::Deserialize;

use super::Identity;
use crate::auth::Caller;
use crate::catalog::Catalog;
use crate::catalog::identity::users::check_name;
use crate::error::{Error, Result};
use crate::id::{ObjectId, REPOSITORY_MODEL};
use crate::model::{Capability, Group, Membership, User};
use crate::store::{Batch, Op};

/// A group to create.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewGroup {
    pub name: Option<String>,
    pub description: Option<String>,
    pub enabled: Option<bool>,
    /// Users (ids or names) to add at once.
    #[serde(default)]
    pub members: Vec<String>,
}

/// A change of a group (`PUT /admin/groups`): the group by `id` or `name`; absent
/// fields stay as they are.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupUpdate {
    pub id: Option<String>,
    pub name: Option<String>,
    pub new_name: Option<String>,
    pub description: Option<String>,
    pub enabled: Option<bool>,
    /// Replaces the members (ids or names) when given.
    pub members: Option<Vec<String>>,
}

/// A group with its members, sorted by name.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupDetails {
    pub group: Group,
    pub members: Vec<User>,
}

impl Identity<'_> {
    /// Every group, sorted by name (administrators only); with `member`, only the groups
    /// of that user (which the user may also read about themselves).
    pub async fn list_groups(&self, caller: &Caller, member: Option<&str>) -> Result<Vec<Group>> {
        match member {
            Some(reference) => {
                let user = self.find_user(reference).await?;
                if user.id != caller.user() {
                    caller.require(Capability::Administer)?;
                }
                self.store.groups_of(user.id).await
            }
            None => {
                caller.require(Capability::Administer)?;
                self.store.groups().await
            }
        }
    }

    /// A group by id (`-1_<n>`) or name with its members: administrators any, others
    /// the groups they belong to.
    pub async fn get_group(&self, caller: &Caller, reference: &str) -> Result<GroupDetails> {
        let group = self.find_group(reference).await?;
        let members = self.store.members(group.id).await?;
        if !members.iter().any(|u| u.id == caller.user()) {
            caller.require(Capability::Administer)?;
        }
        Ok(GroupDetails { group, members })
    }

    /// Creates a group, with members if given (administrators only).
    pub async fn create_group(&self, caller: &Caller, new: NewGroup) -> Result<GroupDetails> {
        caller.require(Capability::Administer)?;
        let name = check_name(new.name.as_deref())?;
        let members = self.find_users(&new.members).await?;
        let id = ObjectId::repository(self.store.reserve_ids(REPOSITORY_MODEL, 1).await?);
        let group = Group {
            id,
            name,
            description: new.description.unwrap_or_default(),
            enabled: new.enabled.unwrap_or(true),
            created_at: crate::model::now(),
        };
        let mut batch = Batch::new();
        batch.push(Op::PutGroup(group));
        for user in &members {
            batch.push(Op::AddMember(Membership {
                group: id,
                user: user.id,
            }));
        }
        self.write(caller.author(), batch.ops).await?;
        self.group_details(id).await
    }

    /// Changes a group (administrators only). Disabling it, or replacing its members,
    /// may not leave the server without an enabled administrator.
    pub async fn update_group(&self, caller: &Caller, update: GroupUpdate) -> Result<GroupDetails> {
        caller.require(Capability::Administer)?;
        let reference = update
            .id
            .as_deref()
            .or(update.name.as_deref())
            .ok_or_else(|| Error::missing("id"))?;
        let mut group = self.find_group(reference).await?;
        if let Some(name) = update.new_name.as_deref() {
            group.name = check_name(Some(name))?;
        }
        if let Some(description) = update.description {
            group.description = description;
        }
        if let Some(enabled) = update.enabled {
            group.enabled = enabled;
        }
        let mut batch = Batch::new();
        batch.push(Op::PutGroup(group.clone()));
        if let Some(references) = &update.members {
            let wanted = self.find_users(references).await?;
            let current = self.store.members(group.id).await?;
            for user in current
                .iter()
                .filter(|u| !wanted.iter().any(|w| w.id == u.id))
            {
                batch.push(Op::RemoveMember(Membership {
                    group: group.id,
                    user: user.id,
                }));
            }
            for user in &wanted {
                batch.push(Op::AddMember(Membership {
                    group: group.id,
                    user: user.id,
                }));
            }
        }
        self.apply_keeping_an_administrator(caller.author(), batch.ops)
            .await?;
        self.group_details(group.id).await
    }

    /// Adds users (ids or names) to a group (administrators only); members already in
    /// it stay.
    pub async fn add_members(
        &self,
        caller: &Caller,
        reference: &str,
        users: &[String],
    ) -> Result<GroupDetails> {
        caller.require(Capability::Administer)?;
        let group = self.find_group(reference).await?;
        if users.is_empty() {
            return Err(Error::missing("users"));
        }
        let mut batch = Batch::new();
        for user in self.find_users(users).await? {
            batch.push(Op::AddMember(Membership {
                group: group.id,
                user: user.id,
            }));
        }
        self.write(caller.author(), batch.ops).await?;
        self.group_details(group.id).await
    }

    /// Removes a user from a group (administrators only); a user who is no member is
    /// NOT_FOUND.
    pub async fn remove_member(
        &self,
        caller: &Caller,
        reference: &str,
        user: &str,
    ) -> Result<GroupDetails> {
        caller.require(Capability::Administer)?;
        let group = self.find_group(reference).await?;
        let user = self.find_user(user).await?;
        let members = self.store.members(group.id).await?;
        if !members.iter().any(|u| u.id == user.id) {
            return Err(Error::not_found(format!(
                "user '{}' is not a member of group '{}'",
                user.name, group.name
            )));
        }
        let mut batch = Batch::new();
        batch.push(Op::RemoveMember(Membership {
            group: group.id,
            user: user.id,
        }));
        self.apply_keeping_an_administrator(caller.author(), batch.ops)
            .await?;
        self.group_details(group.id).await
    }

    /// Deletes a group with its memberships and grants (administrators only).
    pub async fn delete_group(&self, caller: &Caller, reference: &str) -> Result<()> {
        caller.require(Capability::Administer)?;
        let group = self.find_group(reference).await?;
        let mut batch = Batch::new();
        batch.push(Op::DeleteGroup(group.id));
        self.apply_keeping_an_administrator(caller.author(), batch.ops)
            .await
    }
}

impl Catalog {
    /// Makes the user's memberships of the provider-managed groups (`managed`) equal
    /// `groups` (a subset of it), in one batch; a named group that does not exist yet is
    /// created, enabled and without roles. Memberships of other groups stay.
    pub(crate) async fn sync_groups(
        &self,
        user: ObjectId,
        groups: &[String],
        managed: &[String],
    ) -> Result<()> {
        let current = self.store.groups_of(user).await?;
        let mut batch = Batch::new();
        for group in &current {
            let managed = managed
                .iter()
                .any(|m| m.to_lowercase() == group.name.to_lowercase());
            let named = groups
                .iter()
                .any(|g| g.to_lowercase() == group.name.to_lowercase());
            if managed && !named {
                batch.push(Op::RemoveMember(Membership {
                    group: group.id,
                    user,
                }));
            }
        }
        for name in groups {
            if current
                .iter()
                .any(|g| g.name.to_lowercase() == name.to_lowercase())
            {
                continue;
            }
            let group = match self.store.group_by_name(name).await? {
                Some(group) => group,
                None => {
                    let id =
                        ObjectId::repository(self.store.reserve_ids(REPOSITORY_MODEL, 1).await?);
                    let group = Group {
                        id,
                        name: check_name(Some(name))?,
                        description: "Created at an OAuth 2.0 login (auth.oauth2.groups)".into(),
                        enabled: true,
                        created_at: crate::model::now(),
                    };
                    batch.push(Op::PutGroup(group.clone()));
                    group
                }
            };
            batch.push(Op::AddMember(Membership {
                group: group.id,
                user,
            }));
        }
        if batch.is_empty() {
            return Ok(());
        }
        self.write(
            crate::model::Author::by(crate::model::Source::System, user),
            batch.ops,
        )
        .await
    }

    /// The group of an id (`-1_<n>`) or a name, or OBJECT_NOT_FOUND.
    pub(crate) async fn find_group(&self, reference: &str) -> Result<Group> {
        let by_id = match reference.parse::<ObjectId>() {
            Ok(id) if id.is_repository() => self.store.group(id).await?,
            _ => None,
        };
        let found = match by_id {
            Some(group) => Some(group),
            None => self.store.group_by_name(reference).await?,
        };
        found.ok_or_else(|| Error::not_found(format!("no group '{reference}'")))
    }
}

impl Identity<'_> {
    /// The users of the references, each once, in the order given.
    async fn find_users(&self, references: &[String]) -> Result<Vec<User>> {
        let mut users: Vec<User> = Vec::with_capacity(references.len());
        for reference in references {
            let user = self.find_user(reference).await?;
            if !users.iter().any(|u| u.id == user.id) {
                users.push(user);
            }
        }
        Ok(users)
    }

    async fn group_details(&self, id: ObjectId) -> Result<GroupDetails> {
        let group = self
            .store
            .group(id)
            .await?
            .ok_or_else(|| Error::not_found(format!("no group '{id}'")))?;
        let members = self.store.members(id).await?;
        Ok(GroupDetails { group, members })
    }
}
