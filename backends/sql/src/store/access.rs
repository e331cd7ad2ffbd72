//! [`SqlStore`]'s [`AccessStore`]: users, groups, memberships and grants.

use async_trait::async_trait;
use lore_core::model::*;
use lore_core::store::{AccessStore, GrantsOn};
use lore_core::{ObjectId, Result};

use super::SqlStore;
use crate::driver::Driver;
use crate::read::{self, group_columns, user_columns};
use crate::write::user_name_key;

#[async_trait]
impl<D: Driver> AccessStore for SqlStore<D> {
    async fn user(&self, id: ObjectId) -> Result<Option<User>> {
        let rows = self
            .rows(
                concat!(
                    "SELECT ",
                    user_columns!(),
                    " FROM users WHERE model_id = $1 AND object_id = $2"
                ),
                vec![id.model.into(), id.object.into()],
                "users",
            )
            .await?;
        read::first(rows, read::user)
    }

    async fn user_by_name(&self, name: &str) -> Result<Option<User>> {
        let rows = self
            .rows(
                concat!(
                    "SELECT ",
                    user_columns!(),
                    " FROM users WHERE name_key = $1"
                ),
                vec![user_name_key(name).into()],
                "users",
            )
            .await?;
        read::first(rows, read::user)
    }

    async fn user_by_external(&self, issuer: &str, subject: &str) -> Result<Option<User>> {
        if subject.is_empty() {
            return Ok(None);
        }
        let rows = self
            .rows(
                concat!(
                    "SELECT ",
                    user_columns!(),
                    " FROM users WHERE external_issuer = $1 AND external_subject = $2"
                ),
                vec![issuer.into(), subject.into()],
                "users",
            )
            .await?;
        read::first(rows, read::user)
    }

    async fn user_count(&self) -> Result<u64> {
        let rows = self
            .rows("SELECT COUNT(*) FROM users", Vec::new(), "users")
            .await?;
        let count = rows
            .first()
            .map(|r| r.int(0, "users"))
            .transpose()?
            .unwrap_or(0);
        Ok(u64::try_from(count).unwrap_or(0))
    }

    async fn users(&self) -> Result<Vec<User>> {
        let rows = self
            .rows(
                concat!(
                    "SELECT ",
                    user_columns!(),
                    " FROM users ORDER BY name_key, model_id, object_id"
                ),
                Vec::new(),
                "users",
            )
            .await?;
        read::all(rows, read::user)
    }

    async fn group(&self, id: ObjectId) -> Result<Option<Group>> {
        let rows = self
            .rows(
                concat!(
                    "SELECT ",
                    group_columns!(),
                    " FROM user_groups WHERE model_id = $1 AND object_id = $2"
                ),
                vec![id.model.into(), id.object.into()],
                "groups",
            )
            .await?;
        read::first(rows, read::group)
    }

    async fn group_by_name(&self, name: &str) -> Result<Option<Group>> {
        let rows = self
            .rows(
                concat!(
                    "SELECT ",
                    group_columns!(),
                    " FROM user_groups WHERE name_key = $1"
                ),
                vec![user_name_key(name).into()],
                "groups",
            )
            .await?;
        read::first(rows, read::group)
    }

    async fn groups(&self) -> Result<Vec<Group>> {
        let rows = self
            .rows(
                concat!(
                    "SELECT ",
                    group_columns!(),
                    " FROM user_groups ORDER BY name_key, model_id, object_id"
                ),
                Vec::new(),
                "groups",
            )
            .await?;
        read::all(rows, read::group)
    }

    async fn members(&self, group: ObjectId) -> Result<Vec<User>> {
        let rows = self
            .rows(
                "SELECT u.model_id, u.object_id, u.name, u.full_name, u.email, u.description, \
                 u.password_hash, u.enabled, u.created_at, u.external_issuer, u.external_subject \
                 FROM group_members m \
                 JOIN users u ON u.model_id = m.user_model AND u.object_id = m.user_object \
                 WHERE m.group_model = $1 AND m.group_object = $2 \
                 ORDER BY u.name_key, u.model_id, u.object_id",
                vec![group.model.into(), group.object.into()],
                "group members",
            )
            .await?;
        read::all(rows, read::user)
    }

    async fn groups_of(&self, user: ObjectId) -> Result<Vec<Group>> {
        let rows = self
            .rows(
                "SELECT g.model_id, g.object_id, g.name, g.description, g.enabled, g.created_at \
                 FROM group_members m \
                 JOIN user_groups g ON g.model_id = m.group_model AND g.object_id = m.group_object \
                 WHERE m.user_model = $1 AND m.user_object = $2 \
                 ORDER BY g.name_key, g.model_id, g.object_id",
                vec![user.model.into(), user.object.into()],
                "groups",
            )
            .await?;
        read::all(rows, read::group)
    }

    async fn grants_on(&self, on: GrantsOn) -> Result<Vec<Grant>> {
        macro_rules! select {
            ($filter:literal) => {
                concat!(
                    "SELECT grantee_model, grantee_object, role, model_id, object_id FROM grants WHERE ",
                    $filter
                )
            };
        }
        let (sql, params) = match on {
            GrantsOn::Server => (select!("model_id IS NULL"), Vec::new()),
            GrantsOn::Object(o) => (
                select!("model_id = $1 AND object_id = $2"),
                vec![o.model.into(), o.object.into()],
            ),
            GrantsOn::AnyObject => (select!("model_id IS NOT NULL"), Vec::new()),
        };
        let mut grants = read::all(self.rows(sql, params, "grants").await?, read::grant)?;
        grants.sort();
        Ok(grants)
    }

    async fn grants_of_role(&self, role: &str) -> Result<Vec<Grant>> {
        let rows = self
            .rows(
                "SELECT grantee_model, grantee_object, role, model_id, object_id FROM grants WHERE role = $1",
                vec![role.into()],
                "grants",
            )
            .await?;
        let mut grants = read::all(rows, read::grant)?;
        grants.sort();
        Ok(grants)
    }

    async fn grants_of(&self, grantee: ObjectId) -> Result<Vec<Grant>> {
        let rows = self
            .rows(
                "SELECT grantee_model, grantee_object, role, model_id, object_id FROM grants \
                 WHERE grantee_model = $1 AND grantee_object = $2",
                vec![grantee.model.into(), grantee.object.into()],
                "grants",
            )
            .await?;
        let mut grants = read::all(rows, read::grant)?;
        grants.sort();
        Ok(grants)
    }
}
