//! Login, logout, sessions and the first administrator.

use super::Identity;
use crate::auth::{
    Caller, hash_api_key, hash_password, new_api_key, new_password, verify_login_password,
};
use crate::catalog::Catalog;
use crate::error::{Error, ErrorCode, Result};
use crate::id::{ObjectId, REPOSITORY_MODEL};
use crate::model::{
    ADMINISTRATOR_ROLE, ADMINISTRATOR_USER, Author, Capability, Grant, LoginFailures, Role,
    Session, Timestamp, User,
};
use crate::store::{Batch, Op, SessionCheck};

/// What start-up did to an empty store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bootstrap {
    /// The store already had users.
    Existing,
    /// The administrator was created with the password from the environment.
    CreatedWithGivenPassword,
    /// The administrator was created with this generated password (print it once).
    CreatedWithGeneratedPassword(String),
}

impl Identity<'_> {
    /// Prepares a store at start-up: writes the built-in roles that are missing or differ
    /// from this version's definitions and, when the store has no users, creates the
    /// `Administrator` account. Safe to run from several processes.
    pub async fn bootstrap(&self, admin_password: Option<&str>) -> Result<Bootstrap> {
        let existing = self.store.roles().await?;
        let missing: Vec<Op> = Role::builtin()
            .into_iter()
            .filter(|r| !existing.contains(r))
            .map(Op::PutRole)
            .collect();
        if !missing.is_empty() {
            self.write(Author::system(), missing).await?;
        }
        if self.store.user_count().await? > 0 {
            return Ok(Bootstrap::Existing);
        }
        let (password, outcome) = match admin_password.filter(|p| !p.is_empty()) {
            Some(p) => (p.to_owned(), Bootstrap::CreatedWithGivenPassword),
            None => {
                let p = new_password();
                (p.clone(), Bootstrap::CreatedWithGeneratedPassword(p))
            }
        };
        let id = ObjectId::repository(self.store.reserve_ids(REPOSITORY_MODEL, 1).await?);
        let user = User {
            id,
            name: ADMINISTRATOR_USER.to_owned(),
            full_name: "Administrator".to_owned(),
            email: String::new(),
            description: "Created at first start".to_owned(),
            password_hash: Some(hash_password(&password)?),
            enabled: true,
            created_at: crate::model::now(),
            external: None,
        };
        let mut batch = Batch::new();
        batch.push(Op::PutUser(user));
        batch.push(Op::AddGrant(Grant {
            grantee: id,
            role: ADMINISTRATOR_ROLE.to_owned(),
            object: None,
        }));
        match self.write(Author::system(), batch.ops).await {
            Ok(()) => Ok(outcome),
            // Another process created the administrator first.
            Err(e) if e.code == ErrorCode::Conflict => Ok(Bootstrap::Existing),
            Err(e) => Err(e),
        }
    }

    /// Checks a user name and password and opens a session; returns the API key.
    /// With `force`, the user's other sessions end. The same as [`Identity::login_from`]
    /// from an unknown address.
    pub async fn login(&self, user_name: &str, password: &str, force: bool) -> Result<String> {
        self.login_from(user_name, password, force, None).await
    }

    /// [`Identity::login`] from a client address, which failed logins are counted
    /// against (see [`THROTTLES`]): after a few failures for one user name from one
    /// address, and after many from one address, further attempts are refused with
    /// TOO_MANY_LOGIN_ATTEMPTS for a while that doubles with each failure, up to 15
    /// minutes. A stranger cannot lock a real user out: the locks bind the failing
    /// address, never the user name alone.
    pub async fn login_from(
        &self,
        user_name: &str,
        password: &str,
        force: bool,
        address: Option<&str>,
    ) -> Result<String> {
        if user_name.is_empty() {
            return Err(Error::missing("user"));
        }
        let now = crate::model::now();
        let subjects = throttle_subjects(user_name, address);
        let counted = self.unless_locked(&subjects, now).await?;
        let user = self.store.user_by_name(user_name).await?;
        let hash = user
            .as_ref()
            .filter(|u| u.enabled)
            .and_then(|u| u.password_hash.as_deref());
        let verified = verify_login_password(password, hash);
        let proven = user.filter(|_| verified);
        let Some(user) = proven else {
            self.store
                .add_login_failure(&subjects, now, now - FAILURE_MEMORY)
                .await?;
            return Err(Error::authentication("invalid user name or password"));
        };
        if !counted.is_empty() {
            // The address keeps its count: one success must not reset a scan of many
            // user names.
            let pair: Vec<String> = subjects
                .into_iter()
                .filter(|s| s.starts_with("pair:"))
                .collect();
            self.store.clear_login_failures(&pair).await?;
        }
        self.open_session(user.id, force).await
    }
}

impl Catalog {
    /// The failures counted against `subjects`, or TOO_MANY_LOGIN_ATTEMPTS when one of
    /// them is locked at `now`.
    async fn unless_locked(
        &self,
        subjects: &[String],
        now: Timestamp,
    ) -> Result<Vec<LoginFailures>> {
        let counted = self.store.login_failures(subjects).await?;
        for failures in &counted {
            if let Some(wait) = locked_for(failures, now) {
                return Err(Error::new(
                    ErrorCode::TooManyLoginAttempts,
                    format!(
                        "too many failed logins {}; try again in {} s",
                        if failures.subject.starts_with("pair:") {
                            "for this user name from this address"
                        } else {
                            "from this address"
                        },
                        wait.num_seconds().max(1)
                    ),
                ));
            }
        }
        Ok(counted)
    }

    /// A login through another method than a password (a provider's token), throttled
    /// by the client's address like password logins: refused before `attempt` runs
    /// while the address is locked, and a refusal (AUTHENTICATION_ERROR) counts as a
    /// failed login of the address.
    pub(in crate::catalog) async fn throttled<T>(
        &self,
        address: Option<&str>,
        attempt: impl std::future::Future<Output = Result<T>>,
    ) -> Result<T> {
        let now = crate::model::now();
        let subjects = vec![address_subject(address)];
        self.unless_locked(&subjects, now).await?;
        let outcome = attempt.await;
        if let Err(e) = &outcome
            && e.code == ErrorCode::AuthenticationError
        {
            self.store
                .add_login_failure(&subjects, now, now - FAILURE_MEMORY)
                .await?;
        }
        outcome
    }

    /// Opens a session for a user a login method has proven.
    pub(crate) async fn open_session(&self, user: ObjectId, force: bool) -> Result<String> {
        let now = crate::model::now();
        if force {
            self.store.delete_sessions_of(user).await?;
        }
        self.store.purge_sessions(now).await?;
        let timeout = chrono::Duration::from_std(self.config.login_timeout)
            .map_err(|_| Error::internal("the login timeout is out of range"))?;
        let key = new_api_key();
        self.store
            .put_session(Session {
                key_hash: hash_api_key(&key),
                user,
                created_at: now,
                expires_at: now + timeout,
                last_seen_at: now,
            })
            .await?;
        Ok(key)
    }

    /// The caller of the command line (`lore user ...`, `lore group ...`), which reaches
    /// the store directly: whoever can open the store's database already controls it,
    /// so the command line holds every capability. It is no user (its id is `-1_0`,
    /// which no user has), so rules about oneself never match it.
    pub(crate) fn command_line_operator(&self) -> Caller {
        Caller::new(
            ObjectId::repository(0),
            "lore (command line)".to_owned(),
            Capability::ALL.to_vec(),
            Vec::new(),
            0,
        )
    }
}

impl Identity<'_> {
    /// Ends the session of the key; the key fails afterwards.
    pub async fn logout(&self, key: &str) -> Result<()> {
        let key_hash = hash_api_key(key);
        self.callers.forget(&key_hash);
        self.store.delete_session(&key_hash).await
    }

    /// The caller an API key belongs to, or AUTHENTICATION_ERROR: the key must exist,
    /// be within the login timeout and the idle timeout, and belong to an enabled user.
    /// A use is recorded at most once a minute (once a tenth of the idle timeout, when
    /// that is shorter), so a busy key costs no write per call.
    ///
    /// A key seen lately costs one small read: its session and the store's access
    /// version, against which the caller read before is still the key's (a logout, a
    /// disabled user or a changed grant in any process moves them). Otherwise the whole
    /// principal is read.
    pub async fn authenticate(&self, key: &str) -> Result<Caller> {
        let now = crate::model::now();
        let key_hash = hash_api_key(key);
        if self.callers.knows(&key_hash) {
            let check = self.store.session_check(&key_hash, now).await?;
            if let Some(caller) = self.known_caller(&key_hash, check, now).await? {
                return Ok(caller);
            }
        }
        self.read_caller(key_hash, now).await
    }
}

impl Catalog {
    /// The caller known for the key hash, if a check read for it (`None`: no live
    /// session) says it is still the key's: AUTHENTICATION_ERROR when the session is
    /// gone, `None` when the key is unknown here or what its caller holds has changed
    /// since (then its principal is to be read again).
    pub(in crate::catalog) async fn known_caller(
        &self,
        key_hash: &str,
        check: Option<SessionCheck>,
        now: Timestamp,
    ) -> Result<Option<Caller>> {
        let Some(known) = self.callers.get(key_hash) else {
            return Ok(None);
        };
        let Some(check) = check else {
            self.callers.forget(key_hash);
            return Err(refused());
        };
        if check.access_version != known.access_version || check.session.user != known.caller.user()
        {
            self.callers.forget(key_hash);
            return Ok(None);
        }
        self.admit(key_hash.to_owned(), &check.session, now).await?;
        Ok(Some(known.caller.at_meta_version(check.meta_version)))
    }
}

impl Identity<'_> {
    /// The caller of the key hash read whole from the store, and remembered.
    async fn read_caller(&self, key_hash: String, now: Timestamp) -> Result<Caller> {
        let principal = self
            .store
            .principal(&key_hash, now)
            .await?
            .filter(|p| p.user.enabled)
            .ok_or_else(refused)?;
        let (session, access_version) = (principal.session.clone(), principal.access_version);
        let caller = caller_of(principal);
        self.admit(key_hash.clone(), &session, now).await?;
        self.callers.remember(
            key_hash,
            KnownCaller {
                // Not this request's: what it works out of its sight stays with it.
                caller: caller.clone().at_meta_version(caller.meta_version()),
                access_version,
            },
        );
        Ok(caller)
    }
}

impl Catalog {
    /// Refuses a session unused for longer than the idle timeout (and ends it), and
    /// records its use when due.
    async fn admit(&self, key_hash: String, session: &Session, now: Timestamp) -> Result<()> {
        let idle = chrono::Duration::from_std(self.config.idle_timeout)
            .map_err(|_| Error::internal("the idle timeout is out of range"))?;
        let unused = now - session.last_seen_at;
        if unused >= idle {
            self.callers.forget(&key_hash);
            self.store.delete_session(&key_hash).await?;
            return Err(Error::authentication(
                "the API key has not been used for longer than the idle timeout; log in again",
            ));
        }
        if unused >= (idle / 10).min(chrono::Duration::minutes(1)) {
            self.touch_in_background(key_hash, now);
        }
        Ok(())
    }
}

fn refused() -> Error {
    Error::authentication("the API key is invalid or has expired; log in again")
}

/// The caller a principal makes: its global capabilities, and per object the
/// capabilities of the object roles held there.
fn caller_of(principal: crate::store::Principal) -> Caller {
    caller_from(
        principal.user,
        &principal.grants,
        &principal.roles,
        principal.meta_version,
    )
}

impl Catalog {
    /// The viewer a message is written for: an enabled user as a call of theirs would
    /// be, with the grants they hold now, directly or through their enabled groups.
    /// Used only to judge what a notification to them may name (their sight), never to
    /// act for them. `None` for a user who does not exist or is disabled.
    pub(crate) async fn reader_of(&self, user: ObjectId) -> Result<Option<Caller>> {
        let Some(user) = self.store.user(user).await?.filter(|u| u.enabled) else {
            return Ok(None);
        };
        let mut grants = self.store.grants_of(user.id).await?;
        for group in self.store.groups_of(user.id).await? {
            if group.enabled {
                grants.extend(self.store.grants_of(group.id).await?);
            }
        }
        grants.sort();
        grants.dedup();
        let mut roles = self.store.roles().await?;
        roles.retain(|r| grants.iter().any(|g| g.role == r.name));
        let meta_version = self.store.meta_version().await?;
        Ok(Some(caller_from(user, &grants, &roles, meta_version)))
    }
}

/// The caller of a user with these grants (theirs and their groups') of these roles.
fn caller_from(
    user: crate::model::User,
    grants: &[crate::model::Grant],
    roles: &[crate::model::Role],
    meta_version: i64,
) -> Caller {
    let principal = Held { grants, roles };
    let mut capabilities: Vec<Capability> = principal
        .grants
        .iter()
        .filter(|g| g.object.is_none())
        .filter_map(|g| {
            principal
                .roles
                .iter()
                .find(|r| r.name == g.role && r.global)
        })
        .flat_map(|r| r.capabilities.iter().copied())
        .collect();
    capabilities.sort();
    capabilities.dedup();
    let mut object_grants: Vec<(ObjectId, Vec<Capability>)> = Vec::new();
    for grant in principal.grants {
        let Some(object) = grant.object else { continue };
        let Some(role) = principal
            .roles
            .iter()
            .find(|r| r.name == grant.role && !r.global)
        else {
            continue;
        };
        match object_grants.iter_mut().find(|(o, _)| *o == object) {
            Some((_, held)) => {
                held.extend(role.capabilities.iter().copied());
                held.sort();
                held.dedup();
            }
            None => object_grants.push((object, role.capabilities.clone())),
        }
    }
    Caller::new(
        user.id,
        user.name,
        capabilities,
        object_grants,
        meta_version,
    )
}

/// What a user holds, as [`caller_from`] reads it.
struct Held<'h> {
    grants: &'h [crate::model::Grant],
    roles: &'h [crate::model::Role],
}

/// A key's caller as read at an access version.
#[derive(Debug, Clone)]
pub(in crate::catalog) struct KnownCaller {
    caller: Caller,
    access_version: i64,
}

/// The callers of keys seen lately, by key hash. Bounded: past [`KnownCallers::LIMIT`]
/// keys it starts again empty, which costs each key one principal read.
#[derive(Debug, Default)]
pub(in crate::catalog) struct KnownCallers(
    std::sync::Mutex<std::collections::HashMap<String, KnownCaller>>,
);

impl KnownCallers {
    const LIMIT: usize = 10_000;

    fn known(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, KnownCaller>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn get(&self, key_hash: &str) -> Option<KnownCaller> {
        self.known().get(key_hash).cloned()
    }

    fn remember(&self, key_hash: String, caller: KnownCaller) {
        let mut known = self.known();
        if known.len() >= Self::LIMIT && !known.contains_key(&key_hash) {
            known.clear();
        }
        known.insert(key_hash, caller);
    }

    pub(in crate::catalog) fn knows(&self, key_hash: &str) -> bool {
        self.known().contains_key(key_hash)
    }

    fn forget(&self, key_hash: &str) {
        self.known().remove(key_hash);
    }
}

impl Catalog {
    /// Records the use of a session without making the call wait for it: on SQLite the
    /// write waits for the writer (an import holds it for seconds), and a read must not.
    /// Best effort: when the write fails (the database's disk full) a later call records
    /// the use. One write per session at a time.
    fn touch_in_background(&self, key_hash: String, now: crate::model::Timestamp) {
        if !pending(&self.touching).insert(key_hash.clone()) {
            return;
        }
        let catalog = self.clone();
        tokio::spawn(async move {
            if let Err(e) = catalog.store.touch_session(&key_hash, now).await {
                tracing::warn!(error = %e.chain(), "could not record the use of a session");
            }
            pending(&catalog.touching).remove(&key_hash);
        });
    }
}

/// The sessions being touched; a panic while the lock was held leaves a valid set.
fn pending(
    touching: &std::sync::Mutex<std::collections::HashSet<String>>,
) -> std::sync::MutexGuard<'_, std::collections::HashSet<String>> {
    touching
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// How failed logins are throttled: per subject kind, the failures that pass freely and
/// the longest wait. After `free` failures each further one doubles the wait (1 s, 2 s,
/// 4 s, ...) counted from the last failure, up to `longest`.
pub const THROTTLES: [(&str, u32, i64); 2] = [
    // one user name from one address
    ("pair:", 5, 15 * 60),
    // one address, whatever the user names
    ("addr:", 30, 15 * 60),
];

/// A counter restarts when its last failure is this old.
const FAILURE_MEMORY: chrono::Duration = chrono::Duration::hours(1);

fn throttle_subjects(user_name: &str, address: Option<&str>) -> Vec<String> {
    vec![
        format!(
            "pair:{}|{}",
            user_name.to_lowercase(),
            address.unwrap_or("unknown")
        ),
        address_subject(address),
    ]
}

/// The subject of one address, whatever the user names.
fn address_subject(address: Option<&str>) -> String {
    format!("addr:{}", address.unwrap_or("unknown"))
}

/// How much longer the subject is locked out at `now`, if it is.
fn locked_for(failures: &LoginFailures, now: Timestamp) -> Option<chrono::Duration> {
    let (_, free, longest) = THROTTLES
        .iter()
        .find(|(prefix, _, _)| failures.subject.starts_with(prefix))?;
    if failures.failures < *free || failures.last_at <= now - FAILURE_MEMORY {
        return None;
    }
    let doublings = (failures.failures - free).min(30);
    let wait = chrono::Duration::seconds((1i64 << doublings).min(*longest));
    let until = failures.last_at + wait;
    (until > now).then(|| until - now)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failures(subject: &str, n: u32, ago_s: i64, now: Timestamp) -> LoginFailures {
        LoginFailures {
            subject: subject.to_owned(),
            failures: n,
            last_at: now - chrono::Duration::seconds(ago_s),
        }
    }

    #[test]
    fn locks_double_from_the_last_failure_up_to_a_limit() {
        let now = crate::model::now();
        assert_eq!(locked_for(&failures("pair:a|x", 4, 0, now), now), None);
        assert_eq!(
            locked_for(&failures("pair:a|x", 5, 0, now), now),
            Some(chrono::Duration::seconds(1))
        );
        assert_eq!(
            locked_for(&failures("pair:a|x", 8, 3, now), now),
            Some(chrono::Duration::seconds(5))
        );
        assert_eq!(locked_for(&failures("pair:a|x", 8, 8, now), now), None);
        assert_eq!(
            locked_for(&failures("pair:a|x", 60, 0, now), now),
            Some(chrono::Duration::seconds(15 * 60))
        );
        // an old counter no longer locks
        assert_eq!(locked_for(&failures("pair:a|x", 60, 3601, now), now), None);
        assert_eq!(locked_for(&failures("addr:x", 29, 0, now), now), None);
        assert!(locked_for(&failures("addr:x", 30, 0, now), now).is_some());
    }

    #[test]
    fn subjects_bind_the_address() {
        assert_eq!(
            throttle_subjects("Ann", Some("10.0.0.1")),
            ["pair:ann|10.0.0.1", "addr:10.0.0.1"]
        );
        assert_eq!(throttle_subjects("ann", None)[1], "addr:unknown");
    }
}
