//! [`SqlStore`]'s [`SessionStore`]: the principal of an API key, sessions and failed
//! logins.

use async_trait::async_trait;
use lore_core::model::*;
use lore_core::store::{Principal, SessionCheck, SessionStore, micros, prepare_session};
use lore_core::{ObjectId, Result};

use super::SqlStore;
use crate::driver::{Driver, Stmt};
use crate::read;
use crate::union::Part;
use crate::value::{ColType, Row, SqlValue};
use crate::write::{Context, Pending};

#[async_trait]
impl<D: Driver> SessionStore for SqlStore<D> {
    async fn principal(&self, key_hash: &str, now: Timestamp) -> Result<Option<Principal>> {
        // One statement, one row per grant: the session and user repeat on each. The
        // user's own grants, then (UNION ALL) those of their enabled groups, each part
        // reading the grants by grantee through their index.
        let rows = self
            .rows(
                "SELECT s.key_hash, s.user_model, s.user_object, s.created_at, s.expires_at, s.last_seen_at, \
                     u.model_id, u.object_id, u.name, u.full_name, u.email, u.description, u.password_hash, \
                     u.enabled, u.created_at, u.external_issuer, u.external_subject, \
                     g.grantee_model, g.grantee_object, g.role, g.model_id, g.object_id, \
                     r.name, r.description, r.global, r.capabilities, \
                     (SELECT version FROM versions WHERE name = 'meta'), \
                     (SELECT version FROM versions WHERE name = 'access') \
                     FROM sessions s \
                     JOIN users u ON u.model_id = s.user_model AND u.object_id = s.user_object \
                     LEFT JOIN grants g ON g.grantee_model = s.user_model AND g.grantee_object = s.user_object \
                     LEFT JOIN roles r ON r.name = g.role \
                     WHERE s.key_hash = $1 AND s.expires_at > $2 \
                     UNION ALL \
                     SELECT s.key_hash, s.user_model, s.user_object, s.created_at, s.expires_at, s.last_seen_at, \
                     u.model_id, u.object_id, u.name, u.full_name, u.email, u.description, u.password_hash, \
                     u.enabled, u.created_at, u.external_issuer, u.external_subject, \
                     g.grantee_model, g.grantee_object, g.role, g.model_id, g.object_id, \
                     r.name, r.description, r.global, r.capabilities, \
                     (SELECT version FROM versions WHERE name = 'meta'), \
                     (SELECT version FROM versions WHERE name = 'access') \
                     FROM sessions s \
                     JOIN users u ON u.model_id = s.user_model AND u.object_id = s.user_object \
                     JOIN group_members m ON m.user_model = s.user_model AND m.user_object = s.user_object \
                     JOIN user_groups ug ON ug.model_id = m.group_model AND ug.object_id = m.group_object \
                     JOIN grants g ON g.grantee_model = m.group_model AND g.grantee_object = m.group_object \
                     LEFT JOIN roles r ON r.name = g.role \
                     WHERE s.key_hash = $1 AND s.expires_at > $2 AND ug.enabled",
                vec![key_hash.into(), now.into()],
                "the caller of a session",
            )
            .await?;
        let Some(first) = rows.first() else {
            return Ok(None);
        };
        let session = read::session(first.columns(0..6))?;
        let user = read::user(first.columns(6..17))?;
        let meta_version = first.opt_int(26, "versions")?.unwrap_or(0);
        let access_version = first.opt_int(27, "versions")?.unwrap_or(0);
        let mut grants = Vec::new();
        let mut roles: Vec<Role> = Vec::new();
        for row in &rows {
            if row.opt_int(17, "grants")?.is_none() {
                continue;
            }
            grants.push(read::grant(row.columns(17..22))?);
            // a grant of a role that is not stored joins no role
            if !matches!(row.0.get(22), None | Some(SqlValue::Null)) {
                let role = read::role(row.columns(22..26))?;
                if !roles.iter().any(|r| r.name == role.name) {
                    roles.push(role);
                }
            }
        }
        grants.sort();
        roles.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Some(Principal {
            session,
            user,
            grants,
            roles,
            meta_version,
            access_version,
        }))
    }

    async fn session_check(&self, key_hash: &str, now: Timestamp) -> Result<Option<SessionCheck>> {
        static SQL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        let query = Stmt::query(
            SQL.get_or_init(|| session_check_part(1).query()).as_str(),
            vec![key_hash.into(), now.into()],
        );
        let rows = self.short_rows(query, "the session of a key").await?;
        rows.into_iter().next().map(session_check).transpose()
    }

    async fn put_session(&self, mut session: Session) -> Result<()> {
        prepare_session(&mut session)?;
        let what = format!("writing a session of {}", session.user);
        self.write_one(
            "INSERT INTO sessions (key_hash, user_model, user_object, created_at, expires_at, last_seen_at) \
             VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (key_hash) DO UPDATE SET user_model = excluded.user_model, \
             user_object = excluded.user_object, created_at = excluded.created_at, \
             expires_at = excluded.expires_at, last_seen_at = excluded.last_seen_at",
            vec![
                session.key_hash.into(),
                session.user.model.into(),
                session.user.object.into(),
                session.created_at.into(),
                session.expires_at.into(),
                session.last_seen_at.into(),
            ],
            &what,
        )
        .await?;
        Ok(())
    }

    async fn session(&self, key_hash: &str, now: Timestamp) -> Result<Option<Session>> {
        let rows = self
            .rows(
                "SELECT key_hash, user_model, user_object, created_at, expires_at, last_seen_at \
                 FROM sessions WHERE key_hash = $1 AND expires_at > $2",
                vec![key_hash.into(), now.into()],
                "sessions",
            )
            .await?;
        read::first(rows, read::session)
    }

    async fn delete_session(&self, key_hash: &str) -> Result<()> {
        self.write_one(
            "DELETE FROM sessions WHERE key_hash = $1",
            vec![key_hash.into()],
            "deleting a session",
        )
        .await?;
        Ok(())
    }

    async fn delete_sessions_of(&self, user: ObjectId) -> Result<u64> {
        self.write_one(
            "DELETE FROM sessions WHERE user_model = $1 AND user_object = $2",
            vec![user.model.into(), user.object.into()],
            &format!("deleting the sessions of {user}"),
        )
        .await
    }

    async fn purge_sessions(&self, now: Timestamp) -> Result<u64> {
        self.write_one(
            "DELETE FROM sessions WHERE expires_at <= $1",
            vec![now.into()],
            "purging expired sessions",
        )
        .await
    }

    async fn touch_session(&self, key_hash: &str, now: Timestamp) -> Result<()> {
        self.write_one(
            "UPDATE sessions SET last_seen_at = $2 WHERE key_hash = $1",
            vec![key_hash.into(), micros(now).into()],
            "recording the use of a session",
        )
        .await?;
        Ok(())
    }

    async fn login_failures(&self, subjects: &[String]) -> Result<Vec<LoginFailures>> {
        if subjects.is_empty() {
            return Ok(Vec::new());
        }
        let list: Vec<String> = (1..=subjects.len()).map(|i| format!("${i}")).collect();
        let rows = self
            .rows_of(
                Stmt::query(
                    format!(
                        "SELECT subject, failures, last_at FROM login_failures WHERE subject IN ({})",
                        list.join(", ")
                    ),
                    subjects.iter().map(|s| s.as_str().into()).collect(),
                ),
                "failed logins",
            )
            .await?;
        read::all(rows, read::login_failures)
    }

    async fn add_login_failure(
        &self,
        subjects: &[String],
        now: Timestamp,
        restart_before: Timestamp,
    ) -> Result<()> {
        let mut pending = Pending::default();
        for subject in subjects {
            pending.push(
                Stmt::exec(
                    "INSERT INTO login_failures (subject, failures, last_at) VALUES ($1, 1, $2) \
                     ON CONFLICT (subject) DO UPDATE SET last_at = excluded.last_at, failures = \
                     CASE WHEN login_failures.last_at <= $3 THEN 1 ELSE login_failures.failures + 1 END",
                    vec![
                        subject.as_str().into(),
                        micros(now).into(),
                        micros(restart_before).into(),
                    ],
                ),
                Context::of("counting a failed login"),
            );
        }
        self.write_now(pending).await?;
        Ok(())
    }

    async fn clear_login_failures(&self, subjects: &[String]) -> Result<()> {
        let mut pending = Pending::default();
        for subject in subjects {
            pending.push(
                Stmt::exec(
                    "DELETE FROM login_failures WHERE subject = $1",
                    vec![subject.as_str().into()],
                ),
                Context::of("forgetting failed logins"),
            );
        }
        self.write_now(pending).await?;
        Ok(())
    }
}

/// The live session of the key hash `$n` at `$n+1`, with the access and meta versions:
/// [`SessionStore::session_check`] as a part of a union read ([`session_check`] reads
/// its rows).
pub(super) fn session_check_part(n: usize) -> Part {
    Part {
        columns: SESSION_CHECK,
        from: format!(
            "FROM (SELECT key_hash, user_model, user_object, created_at, expires_at, last_seen_at, \
             (SELECT version FROM versions WHERE name = 'access') AS access_version, \
             (SELECT version FROM versions WHERE name = 'meta') AS meta_version \
             FROM sessions WHERE key_hash = ${n} AND expires_at > ${}) t",
            n + 1
        ),
    }
}

const SESSION_CHECK: &[(&str, ColType)] = &[
    ("key_hash", ColType::Text),
    ("user_model", ColType::Int),
    ("user_object", ColType::Int),
    ("created_at", ColType::Int),
    ("expires_at", ColType::Int),
    ("last_seen_at", ColType::Int),
    ("access_version", ColType::Int),
    ("meta_version", ColType::Int),
];

/// A row of [`session_check_part`].
pub(super) fn session_check(row: Row) -> Result<SessionCheck> {
    Ok(SessionCheck {
        session: read::session(row.columns(0..6))?,
        access_version: row.opt_int(6, "versions")?.unwrap_or(0),
        meta_version: row.opt_int(7, "versions")?.unwrap_or(0),
    })
}
