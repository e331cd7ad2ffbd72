//! Writes of users, groups, memberships, roles and grants.

use lore_core::model::*;
use lore_core::{ObjectId, Result};

use crate::driver::Stmt;
use crate::value::SqlValue;

use super::{Context, Writer, to_json};

impl Writer {
    pub(super) fn put_user(&mut self, u: User) {
        let context = Context {
            what: format!("writing user {}", u.id).into(),
            on_unique: Some(format!("a user named '{}' already exists", u.name)),
        };
        let name_key = user_name_key(&u.name);
        // Stored as migration 29 says: no link NULL, a link at the next sign-in ''.
        let (issuer, subject) = match u.external {
            Some(ExternalLink::Subject { issuer, subject }) => (Some(issuer), Some(subject)),
            Some(ExternalLink::AtNextSignIn) => (Some(String::new()), Some(String::new())),
            None => (None, None),
        };
        self.pending.push(
            Stmt::exec(
                "INSERT INTO users (model_id, object_id, name, name_key, full_name, email, description, \
                 password_hash, enabled, created_at, external_issuer, external_subject) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
                 ON CONFLICT (model_id, object_id) DO UPDATE SET name = excluded.name, \
                 name_key = excluded.name_key, full_name = excluded.full_name, email = excluded.email, \
                 description = excluded.description, password_hash = excluded.password_hash, \
                 enabled = excluded.enabled, created_at = excluded.created_at, \
                 external_issuer = excluded.external_issuer, external_subject = excluded.external_subject",
                vec![
                    u.id.model.into(),
                    u.id.object.into(),
                    u.name.into(),
                    name_key.into(),
                    u.full_name.into(),
                    u.email.into(),
                    u.description.into(),
                    u.password_hash.into(),
                    u.enabled.into(),
                    u.created_at.into(),
                    issuer.into(),
                    subject.into(),
                ],
            ),
            context,
        );
        // Curation entries written before their user count from now on (migration 31).
        self.exec(
            "UPDATE curation SET placed = TRUE WHERE NOT placed AND user_model = $1 AND user_object = $2 \
             AND EXISTS (SELECT 1 FROM objects o WHERE o.model_id = curation.model_id \
             AND o.object_id = curation.object_id)",
            vec![u.id.model.into(), u.id.object.into()],
            format!("placing the curation of user {}", u.id),
        );
    }

    pub(super) fn delete_user(&mut self, id: ObjectId) {
        for (sql, what) in [
            (
                "DELETE FROM sessions WHERE user_model = $1 AND user_object = $2",
                "deleting the sessions of user",
            ),
            (
                "DELETE FROM grants WHERE grantee_model = $1 AND grantee_object = $2",
                "revoking the roles of user",
            ),
            (
                "DELETE FROM group_members WHERE user_model = $1 AND user_object = $2",
                "removing from their groups user",
            ),
            (
                "DELETE FROM worksheets WHERE owner_model = $1 AND owner_object = $2",
                "deleting the worksheets of user",
            ),
            (
                "DELETE FROM documents WHERE owner_model = $1 AND owner_object = $2",
                "deleting the documents of user",
            ),
            (
                "DELETE FROM curation WHERE user_model = $1 AND user_object = $2",
                "deleting the curation of user",
            ),
            (
                "DELETE FROM notifications WHERE user_model = $1 AND user_object = $2",
                "deleting the notifications of user",
            ),
            (
                "DELETE FROM users WHERE model_id = $1 AND object_id = $2",
                "deleting user",
            ),
        ] {
            self.exec(
                sql,
                vec![id.model.into(), id.object.into()],
                format!("{what} {id}"),
            );
        }
    }

    pub(super) fn put_group(&mut self, g: Group) {
        let context = Context {
            what: format!("writing group {}", g.id).into(),
            on_unique: Some(format!("a group named '{}' already exists", g.name)),
        };
        let name_key = user_name_key(&g.name);
        self.pending.push(
            Stmt::exec(
                "INSERT INTO user_groups (model_id, object_id, name, name_key, description, enabled, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7) \
                 ON CONFLICT (model_id, object_id) DO UPDATE SET name = excluded.name, \
                 name_key = excluded.name_key, description = excluded.description, \
                 enabled = excluded.enabled, created_at = excluded.created_at",
                vec![
                    g.id.model.into(),
                    g.id.object.into(),
                    g.name.into(),
                    name_key.into(),
                    g.description.into(),
                    g.enabled.into(),
                    g.created_at.into(),
                ],
            ),
            context,
        );
    }

    pub(super) fn delete_group(&mut self, id: ObjectId) {
        for (sql, what) in [
            (
                "DELETE FROM group_members WHERE group_model = $1 AND group_object = $2",
                "removing the members of group",
            ),
            (
                "DELETE FROM grants WHERE grantee_model = $1 AND grantee_object = $2",
                "revoking the roles of group",
            ),
            (
                "DELETE FROM user_groups WHERE model_id = $1 AND object_id = $2",
                "deleting group",
            ),
        ] {
            self.exec(
                sql,
                vec![id.model.into(), id.object.into()],
                format!("{what} {id}"),
            );
        }
    }

    pub(super) fn add_member(&mut self, m: Membership) {
        self.exec(
            "INSERT INTO group_members (group_model, group_object, user_model, user_object) \
             SELECT $1, $2, $3, $4 \
             WHERE EXISTS (SELECT 1 FROM user_groups WHERE model_id = $1 AND object_id = $2) \
             AND EXISTS (SELECT 1 FROM users WHERE model_id = $3 AND object_id = $4) \
             ON CONFLICT DO NOTHING",
            membership_row(m),
            format!("adding user {} to group {}", m.user, m.group),
        );
    }

    pub(super) fn remove_member(&mut self, m: Membership) {
        self.exec(
            "DELETE FROM group_members WHERE group_model = $1 AND group_object = $2 \
             AND user_model = $3 AND user_object = $4",
            membership_row(m),
            format!("removing user {} from group {}", m.user, m.group),
        );
    }

    pub(super) fn put_role(&mut self, role: Role) -> Result<()> {
        self.meta_changed = true;
        let capabilities = to_json(&role.capabilities, "a capability list")?;
        let what = format!("writing role '{}'", role.name);
        self.exec(
            "INSERT INTO roles (name, description, global, capabilities) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (name) DO UPDATE SET description = excluded.description, \
             global = excluded.global, capabilities = excluded.capabilities",
            vec![
                role.name.into(),
                role.description.into(),
                role.global.into(),
                capabilities.into(),
            ],
            what,
        );
        Ok(())
    }

    pub(super) fn delete_role(&mut self, name: String) {
        self.meta_changed = true;
        for (sql, what) in [
            (
                "DELETE FROM grants WHERE role = $1",
                "revoking every grant of role",
            ),
            ("DELETE FROM roles WHERE name = $1", "deleting role"),
        ] {
            self.exec(sql, vec![name.clone().into()], format!("{what} '{name}'"));
        }
    }

    pub(super) fn add_grant(&mut self, g: Grant) {
        let what = format!("granting role '{}' to {}", g.role, g.grantee);
        self.exec(
            "INSERT INTO grants (grantee_model, grantee_object, role, model_id, object_id, valid_from) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
            {
                let mut row = grant_row(g);
                row.push(self.stamp.into());
                row
            },
            what,
        );
    }

    pub(super) fn remove_grant(&mut self, g: Grant) {
        let what = format!("revoking role '{}' from {}", g.role, g.grantee);
        self.exec(
            "DELETE FROM grants WHERE grantee_model = $1 AND grantee_object = $2 AND role = $3 \
             AND model_id IS NOT DISTINCT FROM $4 AND object_id IS NOT DISTINCT FROM $5",
            grant_row(g),
            what,
        );
    }
}

fn grant_row(g: Grant) -> Vec<SqlValue> {
    vec![
        g.grantee.model.into(),
        g.grantee.object.into(),
        g.role.into(),
        g.object.map(|o| o.model).into(),
        g.object.map(|o| o.object).into(),
    ]
}

fn membership_row(m: Membership) -> Vec<SqlValue> {
    vec![
        m.group.model.into(),
        m.group.object.into(),
        m.user.model.into(),
        m.user.object.into(),
    ]
}

/// The key user names are unique by, case-insensitively (Unicode lowercase).
pub fn user_name_key(name: &str) -> String {
    name.to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_names_compare_case_insensitively() {
        assert_eq!(user_name_key("ÄdMin"), user_name_key("äDmin"));
    }
}
