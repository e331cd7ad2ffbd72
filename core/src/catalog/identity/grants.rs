//! Roles and grants (spec section 4.6): defining roles, granting and revoking global
//! roles and object roles to users and groups, reading who holds what, and the CSV
//! import and export of both.
//!
//! Who may do what:
//! - anyone reads the role definitions and their own roles;
//! - global grants need ManageRoles globally; object grants need ManageRoles on the
//!   object (globally, or through an object role on it or an ancestor);
//! - a granter without Administer grants only roles whose every capability they hold
//!   where the role is granted, so ManageRoles cannot be turned into more rights;
//! - object roles are granted on repository objects (folders, models, ...): a model's
//!   objects inherit the roles of their model and its ancestors;
//! - no change may leave the server without an enabled administrator.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use serde::Deserialize;

use super::Identity;
use crate::auth::Caller;
use crate::catalog::Catalog;
use crate::catalog::visibility::Visible;
use crate::error::{Error, Result};
use crate::id::{ObjectId, ObjectRef};
use crate::model::{Capability, Grant, Role};
use crate::store::{Batch, GrantsOn, Op};

/// Whether a grantee is a user or a group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum GranteeKind {
    User,
    Group,
}

impl GranteeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GranteeKind::User => "USER",
            GranteeKind::Group => "GROUP",
        }
    }

    /// `USER` or `GROUP`, in any case.
    pub fn parse(text: &str) -> Result<GranteeKind> {
        match text.trim().to_ascii_uppercase().as_str() {
            "USER" => Ok(GranteeKind::User),
            "GROUP" => Ok(GranteeKind::Group),
            other => Err(Error::invalid(format!(
                "granteeType must be USER or GROUP, not '{other}'"
            ))),
        }
    }
}

/// A user or group a role is granted to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grantee {
    pub id: ObjectId,
    pub name: String,
    pub kind: GranteeKind,
}

/// How a client names a grantee: an id (`-1_<n>`) or a name, and, where a user and a
/// group share the name, which of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GranteeRef {
    pub reference: String,
    pub kind: Option<GranteeKind>,
}

/// A role held by a grantee, as the grant endpoints report it.
#[derive(Debug, Clone, PartialEq)]
pub struct RoleGrant {
    pub grantee: Grantee,
    pub role: Role,
    /// Where the grant sits: `None` on the whole server.
    pub object: Option<ObjectId>,
    /// The group through which a user holds the role (`None`: granted to them).
    pub via: Option<Grantee>,
    /// Whether the grant sits on an ancestor of the object asked about.
    pub inherited: bool,
}

/// A role definition as a client sends it (`PUT /admin/roles`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoleDefinition {
    pub name: Option<String>,
    pub description: Option<String>,
    /// Default false: an object role.
    pub global: Option<bool>,
    /// Capability names, e.g. `ViewMetadata` or `View Data`.
    #[serde(default)]
    pub capabilities: Vec<String>,
}

/// What a role CSV import changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct CsvImportSummary {
    /// Data lines read.
    pub lines: usize,
    pub added: usize,
    /// Grants the file already held.
    pub unchanged: usize,
    /// Grants revoked because a `replace` import did not list them.
    pub removed: usize,
}

/// The header of a global roles CSV file.
pub const GLOBAL_ROLES_CSV_HEADER: [&str; 3] = ["grantee", "granteeType", "role"];
/// The header of an object roles CSV file.
pub const OBJECT_ROLES_CSV_HEADER: [&str; 5] =
    ["objectId", "objectPath", "grantee", "granteeType", "role"];

/// At most this many line errors are listed in a refused CSV import.
const MAX_LISTED_ERRORS: usize = 20;

impl Identity<'_> {
    // ---- roles

    /// Every role, sorted by name (any caller).
    pub async fn roles(&self, _caller: &Caller) -> Result<Vec<Role>> {
        self.store.roles().await
    }

    /// Creates or replaces a role that is not built in (ManageRoles globally; a caller
    /// without Administer defines only roles within their own capabilities).
    pub async fn put_role(&self, caller: &Caller, definition: RoleDefinition) -> Result<Role> {
        caller.require(Capability::ManageRoles)?;
        let name = crate::catalog::identity::users::check_name(definition.name.as_deref())?;
        if Role::is_builtin(&name) {
            return Err(Error::invalid(format!(
                "'{name}' is a built-in role and cannot be changed"
            )));
        }
        if definition.capabilities.is_empty() {
            return Err(Error::missing("capabilities"));
        }
        let mut capabilities = Vec::with_capacity(definition.capabilities.len());
        for text in &definition.capabilities {
            capabilities.push(Capability::parse(text).ok_or_else(|| {
                Error::invalid(format!(
                    "'{text}' is no capability; the capabilities are {}",
                    capability_names()
                ))
            })?);
        }
        capabilities.sort();
        capabilities.dedup();
        let role = Role {
            name,
            description: definition.description.unwrap_or_default(),
            global: definition.global.unwrap_or(false),
            capabilities,
        };
        if let Some(missing) = role
            .capabilities
            .iter()
            .find(|c| !caller.has(Capability::Administer) && !caller.has(**c))
        {
            return Err(Error::forbidden(format!(
                "user '{}' cannot define a role with {missing:?}, a capability they do not hold",
                caller.name()
            )));
        }
        if let Some(existing) = self.find_role(&role.name).await.ok()
            && existing.global != role.global
            && !self.store.grants_of_role(&existing.name).await?.is_empty()
        {
            return Err(Error::invalid(format!(
                "role '{}' is granted as a{} role; revoke its grants before making it a{} role",
                role.name,
                if existing.global {
                    " global"
                } else {
                    "n object"
                },
                if role.global { " global" } else { "n object" },
            )));
        }
        self.apply_keeping_an_administrator(caller.author(), vec![Op::PutRole(role.clone())])
            .await?;
        Ok(role)
    }

    /// Deletes a role that is not built in, with every grant of it (ManageRoles
    /// globally).
    pub async fn delete_role(&self, caller: &Caller, name: &str) -> Result<()> {
        caller.require(Capability::ManageRoles)?;
        let role = self.find_role(name).await?;
        if Role::is_builtin(&role.name) {
            return Err(Error::invalid(format!(
                "'{}' is a built-in role and cannot be deleted",
                role.name
            )));
        }
        self.apply_keeping_an_administrator(caller.author(), vec![Op::DeleteRole(role.name)])
            .await
    }

    // ---- global roles

    /// The global roles of a user (granted to them, or through an enabled group) or a
    /// group; `None` means the caller. Another grantee's needs ManageRoles.
    pub async fn global_roles(
        &self,
        caller: &Caller,
        grantee: Option<&GranteeRef>,
    ) -> Result<Vec<RoleGrant>> {
        let grantee = self.grantee_or_caller(caller, grantee).await?;
        if grantee.id != caller.user() {
            caller.require(Capability::ManageRoles)?;
        }
        let roles = self.store.roles().await?;
        let mut held = Vec::new();
        for (grant, via) in self.grants_reaching(&grantee).await? {
            if grant.object.is_none()
                && let Some(role) = roles.iter().find(|r| r.name == grant.role)
            {
                held.push(RoleGrant {
                    grantee: grantee.clone(),
                    role: role.clone(),
                    object: None,
                    via,
                    inherited: false,
                });
            }
        }
        Ok(held)
    }

    /// Who holds global roles (only `role`, when given), by role then grantee name
    /// (ManageRoles globally). Groups are listed as groups, not expanded.
    pub async fn global_grantees(
        &self,
        caller: &Caller,
        role: Option<&str>,
    ) -> Result<Vec<RoleGrant>> {
        caller.require(Capability::ManageRoles)?;
        let role = match role {
            Some(name) => Some(self.find_role(name).await?.name),
            None => None,
        };
        let grants = self.store.grants_on(GrantsOn::Server).await?;
        let grants = grants
            .into_iter()
            .filter(|g| role.as_ref().is_none_or(|r| *r == g.role));
        self.describe_grants(grants, None).await
    }

    /// Grants global roles to a user or group; roles already held stay (ManageRoles
    /// globally). Returns the grantee's global roles.
    pub async fn grant_global_roles(
        &self,
        caller: &Caller,
        grantee: &GranteeRef,
        roles: &[String],
    ) -> Result<Vec<RoleGrant>> {
        caller.require(Capability::ManageRoles)?;
        if roles.is_empty() {
            return Err(Error::missing("roles"));
        }
        let grantee = self.find_grantee(grantee).await?;
        let mut batch = Batch::new();
        for name in roles {
            let role = self.find_role(name).await?;
            self.check_grantable(caller, &role, None).await?;
            batch.push(Op::AddGrant(Grant {
                grantee: grantee.id,
                role: role.name,
                object: None,
            }));
        }
        self.write(caller.author(), batch.ops).await?;
        let reference = GranteeRef {
            reference: grantee.id.to_string(),
            kind: Some(grantee.kind),
        };
        self.global_roles(caller, Some(&reference)).await
    }

    /// Revokes a global role from a user or group (ManageRoles globally); a role the
    /// grantee does not hold is NOT_FOUND.
    pub async fn revoke_global_role(
        &self,
        caller: &Caller,
        grantee: &GranteeRef,
        role: &str,
    ) -> Result<()> {
        caller.require(Capability::ManageRoles)?;
        let grantee = self.find_grantee(grantee).await?;
        let role = self.find_role(role).await?;
        self.check_grantable(caller, &role, None).await?;
        let grant = Grant {
            grantee: grantee.id,
            role: role.name,
            object: None,
        };
        if !self.store.grants_of(grantee.id).await?.contains(&grant) {
            return Err(Error::not_found(format!(
                "{} '{}' does not hold the global role '{}'",
                grantee.kind.as_str().to_lowercase(),
                grantee.name,
                grant.role
            )));
        }
        self.apply_keeping_an_administrator(caller.author(), vec![Op::RemoveGrant(grant)])
            .await
    }

    // ---- object roles

    /// The object roles a user (directly or through an enabled group) or group holds
    /// on an object, including those inherited from its ancestors; `None` means the
    /// caller. Another grantee's need ManageRoles on the object.
    pub async fn object_roles(
        &self,
        caller: &Caller,
        object: &ObjectRef,
        grantee: Option<&GranteeRef>,
    ) -> Result<Vec<RoleGrant>> {
        let object = self.find(caller, object).await?;
        let grantee = self.grantee_or_caller(caller, grantee).await?;
        if grantee.id != caller.user() {
            self.require_on(caller, Capability::ManageRoles, &object)
                .await?;
        }
        let object = object.id;
        let chain = self.grant_chain(object).await?;
        let roles = self.store.roles().await?;
        let mut held = Vec::new();
        for (grant, via) in self.grants_reaching(&grantee).await? {
            if let Some(on) = grant.object
                && chain.contains(&on)
                && let Some(role) = roles.iter().find(|r| r.name == grant.role)
            {
                held.push(RoleGrant {
                    grantee: grantee.clone(),
                    role: role.clone(),
                    object: Some(on),
                    via,
                    inherited: on != object,
                });
            }
        }
        Ok(held)
    }

    /// Who holds object roles on an object (only `role`, when given), including grants
    /// on its ancestors, nearest first (ManageRoles on the object). Groups are listed
    /// as groups.
    pub async fn object_grantees(
        &self,
        caller: &Caller,
        object: &ObjectRef,
        role: Option<&str>,
    ) -> Result<Vec<RoleGrant>> {
        let object = self.find(caller, object).await?;
        self.require_on(caller, Capability::ManageRoles, &object)
            .await?;
        let object = object.id;
        let role = match role {
            Some(name) => Some(self.find_role(name).await?.name),
            None => None,
        };
        let mut grants = Vec::new();
        for on in self.grant_chain(object).await?.into_iter().rev() {
            grants.extend(
                self.store
                    .grants_on(GrantsOn::Object(on))
                    .await?
                    .into_iter()
                    .filter(|g| role.as_ref().is_none_or(|r| *r == g.role)),
            );
        }
        self.describe_grants(grants, Some(object)).await
    }

    /// Grants an object role on a repository object (ManageRoles on it). Returns the
    /// grantee's roles on the object.
    pub async fn grant_object_role(
        &self,
        caller: &Caller,
        object: &ObjectRef,
        grantee: &GranteeRef,
        role: &str,
    ) -> Result<Vec<RoleGrant>> {
        let target = self.grant_target(caller, object).await?;
        let grantee = self.find_grantee(grantee).await?;
        let role = self.find_role(role).await?;
        self.check_grantable(caller, &role, Some(&target)).await?;
        let target = target.id;
        let grant = Grant {
            grantee: grantee.id,
            role: role.name,
            object: Some(target),
        };
        self.write(caller.author(), vec![Op::AddGrant(grant)])
            .await?;
        let reference = GranteeRef {
            reference: grantee.id.to_string(),
            kind: Some(grantee.kind),
        };
        self.object_roles(caller, &ObjectRef::Id(target), Some(&reference))
            .await
    }

    /// Revokes an object role granted on the object itself (ManageRoles on it); a
    /// grant that does not exist there is NOT_FOUND (one inherited from an ancestor is
    /// revoked on that ancestor).
    pub async fn revoke_object_role(
        &self,
        caller: &Caller,
        object: &ObjectRef,
        grantee: &GranteeRef,
        role: &str,
    ) -> Result<()> {
        let target = self.grant_target(caller, object).await?;
        let grantee = self.find_grantee(grantee).await?;
        let role = self.find_role(role).await?;
        self.check_grantable(caller, &role, Some(&target)).await?;
        let target = target.id;
        let grant = Grant {
            grantee: grantee.id,
            role: role.name,
            object: Some(target),
        };
        if !self
            .store
            .grants_on(GrantsOn::Object(target))
            .await?
            .contains(&grant)
        {
            return Err(Error::not_found(format!(
                "{} '{}' holds no role '{}' granted on {target}",
                grantee.kind.as_str().to_lowercase(),
                grantee.name,
                grant.role
            )));
        }
        self.write(caller.author(), vec![Op::RemoveGrant(grant)])
            .await
    }

    // ---- CSV

    /// Every global grant as CSV (`grantee,granteeType,role`), by role then grantee
    /// (ManageRoles globally).
    pub async fn export_global_roles_csv(&self, caller: &Caller) -> Result<Vec<u8>> {
        let grants = self.global_grantees(caller, None).await?;
        let mut out = csv::Writer::from_writer(Vec::new());
        write_row(&mut out, &GLOBAL_ROLES_CSV_HEADER)?;
        for g in &grants {
            write_row(
                &mut out,
                &[&g.grantee.name, g.grantee.kind.as_str(), &g.role.name],
            )?;
        }
        finish_csv(out)
    }

    /// Grants the global roles a CSV file lists (`grantee,granteeType,role`; the type
    /// may be empty where the name is unambiguous). With `replace`, global grants the
    /// file does not list are revoked. All or nothing: any bad line refuses the whole
    /// file, naming every bad line (ManageRoles globally).
    pub async fn import_global_roles_csv(
        &self,
        caller: &Caller,
        bytes: &[u8],
        replace: bool,
    ) -> Result<CsvImportSummary> {
        caller.require(Capability::ManageRoles)?;
        let rows = read_csv(bytes, &GLOBAL_ROLES_CSV_HEADER, &["granteeType"])?;
        let mut checked = CheckedLines::default();
        for (line, row) in &rows {
            checked.add(*line, self.global_grant_of_row(caller, row).await)?;
        }
        let wanted = checked.wanted()?;
        self.land_csv(caller, GrantsOn::Server, rows.len(), wanted, replace)
            .await
    }

    /// Every object grant (or those on `object` and its subtree) as CSV
    /// (`objectId,objectPath,grantee,granteeType,role`), by object then role then grantee
    /// (ManageRoles globally, or on `object`).
    pub async fn export_object_roles_csv(
        &self,
        caller: &Caller,
        object: Option<&ObjectRef>,
    ) -> Result<Vec<u8>> {
        let under = match object {
            Some(reference) => {
                let object = self.find(caller, reference).await?;
                self.require_on(caller, Capability::ManageRoles, &object)
                    .await?;
                Some(object.id)
            }
            None => {
                caller.require(Capability::ManageRoles)?;
                None
            }
        };
        let mut grants = self.store.grants_on(GrantsOn::AnyObject).await?;
        grants.sort_by(|a, b| (a.object, &a.role, a.grantee).cmp(&(b.object, &b.role, b.grantee)));
        let mut out = csv::Writer::from_writer(Vec::new());
        write_row(&mut out, &OBJECT_ROLES_CSV_HEADER)?;
        let mut paths: Vec<(ObjectId, Option<String>)> = Vec::new();
        for grant in grants {
            let Some(on) = grant.object else { continue };
            if let Some(root) = under
                && !self.grant_chain(on).await?.contains(&root)
            {
                continue;
            }
            let path = match paths.iter().find(|(id, _)| *id == on) {
                Some((_, path)) => path.clone(),
                None => {
                    let path = match self.stored_object(on).await? {
                        Some(o) => Some(self.shown_path(caller, &o).await?),
                        None => None,
                    };
                    paths.push((on, path.clone()));
                    path
                }
            };
            // A grant on an object deleted since (no row) is not exported.
            let Some(path) = path else { continue };
            let Some(grantee) = self.grantee_by_id(grant.grantee).await? else {
                continue;
            };
            write_row(
                &mut out,
                &[
                    &on.to_string(),
                    &path,
                    &grantee.name,
                    grantee.kind.as_str(),
                    &grant.role,
                ],
            )?;
        }
        finish_csv(out)
    }

    /// Grants the object roles a CSV file lists (`objectId,objectPath,grantee,
    /// granteeType,role`; the object by id or, with an empty id, by path). With
    /// `replace`, object grants the file does not list are revoked. All or nothing:
    /// any bad line refuses the whole file, naming every bad line (ManageRoles on each
    /// object).
    pub async fn import_object_roles_csv(
        &self,
        caller: &Caller,
        bytes: &[u8],
        replace: bool,
    ) -> Result<CsvImportSummary> {
        let rows = read_csv(
            bytes,
            &OBJECT_ROLES_CSV_HEADER,
            &["objectId", "objectPath", "granteeType"],
        )?;
        let mut checked = CheckedLines::default();
        for (line, row) in &rows {
            checked.add(*line, self.object_grant_of_row(caller, row).await)?;
        }
        let wanted = checked.wanted()?;
        self.land_csv(caller, GrantsOn::AnyObject, rows.len(), wanted, replace)
            .await
    }

    /// Lands the grants of a CSV file in one batch: those it lists that are new and,
    /// with `replace`, the revocation of those of its kind (`on`) it does not list, each
    /// checked as a revocation by the caller.
    async fn land_csv(
        &self,
        caller: &Caller,
        on: GrantsOn,
        lines: usize,
        wanted: BTreeSet<Grant>,
        replace: bool,
    ) -> Result<CsvImportSummary> {
        let existing: BTreeSet<Grant> = self.store.grants_on(on).await?.into_iter().collect();
        let mut summary = CsvImportSummary {
            lines,
            ..Default::default()
        };
        let mut batch = Batch::new();
        if replace {
            for grant in existing.difference(&wanted) {
                let object = match grant.object {
                    Some(id) => match self.visible_id(caller, id).await? {
                        Some(object) => Some(object),
                        // Grants on objects the caller cannot see are not theirs to
                        // revoke (or to learn of): they stay.
                        None => {
                            summary.unchanged += 1;
                            continue;
                        }
                    },
                    None => None,
                };
                // A grant of a role deleted since cannot be checked; it goes.
                if let Ok(role) = self.find_role(&grant.role).await {
                    self.check_grantable(caller, &role, object.as_ref()).await?;
                }
                summary.removed += 1;
                batch.push(Op::RemoveGrant(grant.clone()));
            }
        }
        for grant in wanted {
            if existing.contains(&grant) {
                summary.unchanged += 1;
            } else {
                summary.added += 1;
                batch.push(Op::AddGrant(grant));
            }
        }
        if !batch.is_empty() {
            self.apply_keeping_an_administrator(caller.author(), batch.ops)
                .await?;
        }
        Ok(summary)
    }

    async fn global_grant_of_row(&self, caller: &Caller, row: &CsvRow) -> Result<Grant> {
        let grantee = self.grantee_of_row(row, 0, 1).await?;
        let role = self.find_role(row.field(2, "role")?).await?;
        self.check_grantable(caller, &role, None).await?;
        Ok(Grant {
            grantee: grantee.id,
            role: role.name,
            object: None,
        })
    }

    async fn object_grant_of_row(&self, caller: &Caller, row: &CsvRow) -> Result<Grant> {
        let (id, path) = (row.optional(0), row.optional(1));
        let reference = match (id, path) {
            (Some(id), _) => ObjectRef::parse(id)?,
            (None, Some(path)) => ObjectRef::parse(path)?,
            (None, None) => return Err(Error::missing("objectId or objectPath")),
        };
        let target = self.grant_target(caller, &reference).await?;
        let grantee = self.grantee_of_row(row, 2, 3).await?;
        let role = self.find_role(row.field(4, "role")?).await?;
        self.check_grantable(caller, &role, Some(&target)).await?;
        if let (Some(_), Some(path)) = (id, path) {
            let actual = self.shown_path(caller, &target).await?;
            if actual != path.trim_end_matches('/') {
                return Err(Error::invalid(format!(
                    "objectId {} is at '{actual}', not at objectPath '{path}'",
                    target.id
                )));
            }
        }
        Ok(Grant {
            grantee: grantee.id,
            role: role.name,
            object: Some(target.id),
        })
    }

    async fn grantee_of_row(&self, row: &CsvRow, name: usize, kind: usize) -> Result<Grantee> {
        let reference = GranteeRef {
            reference: row.field(name, "grantee")?.to_owned(),
            kind: row.optional(kind).map(GranteeKind::parse).transpose()?,
        };
        self.find_grantee(&reference).await
    }
}

impl Catalog {
    // ---- checks and lookups

    /// The grants of a role as they reach users: a grant to an enabled group stands for
    /// one grant to each of its members (a disabled group's stand for none), each once.
    pub(crate) async fn grants_of_role_to_users(&self, role: &str) -> Result<Vec<Grant>> {
        let mut expanded = BTreeSet::new();
        for grant in self.store.grants_of_role(role).await? {
            match self.store.group(grant.grantee).await? {
                Some(group) if group.enabled => {
                    for member in self.store.members(group.id).await? {
                        expanded.insert(Grant {
                            grantee: member.id,
                            ..grant.clone()
                        });
                    }
                }
                Some(_) => {}
                None => {
                    expanded.insert(grant);
                }
            }
        }
        Ok(expanded.into_iter().collect())
    }
}

impl Identity<'_> {
    /// Fails unless the caller may grant or revoke `role` globally (`None`) or on the
    /// object: the role must be of that kind, the caller must hold ManageRoles there and,
    /// without Administer, every capability of the role there.
    async fn check_grantable(
        &self,
        caller: &Caller,
        role: &Role,
        object: Option<&Visible>,
    ) -> Result<()> {
        match object {
            None if !role.global => {
                return Err(Error::invalid(format!(
                    "'{}' is an object role; grant it on an object (grantObjectRole)",
                    role.name
                )));
            }
            Some(_) if role.global => {
                return Err(Error::invalid(format!(
                    "'{}' is a global role; grant it with grantGlobalRoles",
                    role.name
                )));
            }
            _ => {}
        }
        if caller.has(Capability::Administer) {
            return Ok(());
        }
        let held = match object {
            None => Capability::ALL
                .into_iter()
                .filter(|c| caller.has(*c))
                .collect(),
            Some(object) => self.capabilities_on(caller, object.id).await?,
        };
        let place = match object {
            None => "globally".to_owned(),
            Some(object) => format!("on {}", object.id),
        };
        if !held.contains(&Capability::ManageRoles) {
            return Err(Error::forbidden(format!(
                "user '{}' lacks the capability ManageRoles {place}",
                caller.name()
            )));
        }
        if let Some(missing) = role.capabilities.iter().find(|c| !held.contains(c)) {
            return Err(Error::forbidden(format!(
                "user '{}' cannot grant role '{}' {place}: it carries {missing:?}, which they do \
                 not hold there",
                caller.name(),
                role.name
            )));
        }
        Ok(())
    }
}

impl Catalog {
    /// The capabilities the caller holds on an object: their global ones and those of
    /// their object roles on the object's repository anchor or its ancestors.
    pub(crate) async fn capabilities_on(
        &self,
        caller: &Caller,
        object: ObjectId,
    ) -> Result<Vec<Capability>> {
        let mut held: Vec<Capability> = Capability::ALL
            .into_iter()
            .filter(|c| caller.has(*c))
            .collect();
        if caller.object_grants().is_empty() {
            return Ok(held);
        }
        for on in self.grant_chain(object).await? {
            if let Some((_, capabilities)) = caller.object_grants().iter().find(|(o, _)| *o == on) {
                held.extend(capabilities.iter().copied());
            }
        }
        held.sort();
        held.dedup();
        Ok(held)
    }

    /// Fails with PERMISSION_DENIED unless the caller holds the capability on the object.
    /// The object must be one the caller sees ([`Catalog::find`]): only then may the
    /// answer be 403 rather than "not found".
    pub(crate) async fn require_on(
        &self,
        caller: &Caller,
        capability: Capability,
        object: &Visible,
    ) -> Result<()> {
        if caller.has(capability)
            || self
                .capabilities_on(caller, object.id)
                .await?
                .contains(&capability)
        {
            return Ok(());
        }
        Err(Error::forbidden(format!(
            "user '{}' lacks the capability {capability:?} on {}",
            caller.name(),
            object.id
        )))
    }

    /// Where grants reaching an object sit: its repository anchor (the object, or the
    /// repository object of its model) and the anchor's ancestors, nearest first.
    pub(crate) async fn grant_chain(&self, object: ObjectId) -> Result<Vec<ObjectId>> {
        let mut chain = Vec::new();
        let mut next = Some(anchor(object));
        while let Some(id) = next {
            if chain.len() > 10_000 || chain.contains(&id) {
                return Err(Error::internal(format!(
                    "the ancestry of {object} has a cycle"
                )));
            }
            chain.push(id);
            next = self.stored_object(id).await?.and_then(|o| o.parent);
        }
        Ok(chain)
    }

    /// [`Catalog::grant_chain`] as of the repository version `version`
    /// ([`EntityRead::repository_version`](crate::store::EntityRead::repository_version),
    /// read before this): the chain kept from an earlier call at the same version, or
    /// read now and kept. A chain read after the version was is at least as new, so a
    /// kept chain is never older than its version says.
    pub(crate) async fn grant_chain_at(
        &self,
        object: ObjectId,
        version: i64,
    ) -> Result<Arc<[ObjectId]>> {
        let anchor = anchor(object);
        if let Some(chain) = self.chains.get(anchor, version) {
            return Ok(chain);
        }
        let chain: Arc<[ObjectId]> = self.grant_chain(anchor).await?.into();
        self.chains.keep(anchor, version, Arc::clone(&chain));
        Ok(chain)
    }
}

impl Identity<'_> {
    /// The repository object an object role is granted on; a model object is refused.
    async fn grant_target(&self, caller: &Caller, reference: &ObjectRef) -> Result<Visible> {
        let object = self.find(caller, reference).await?;
        if !object.id.is_repository() {
            return Err(Error::invalid(format!(
                "object roles are granted on repository objects (folders, models, ...); {} is \
                 an object of model -1_{} and inherits the roles granted on that model",
                object.id, object.id.model
            )));
        }
        Ok(object)
    }
}

impl Catalog {
    pub(crate) async fn find_role(&self, name: &str) -> Result<Role> {
        self.store
            .roles()
            .await?
            .into_iter()
            .find(|r| r.name == name)
            .ok_or_else(|| Error::not_found(format!("no role '{name}'")))
    }

    /// The user or group a reference names. A name that is both a user's and a
    /// group's needs the kind.
    pub(crate) async fn find_grantee(&self, reference: &GranteeRef) -> Result<Grantee> {
        let text = reference.reference.trim();
        if text.is_empty() {
            return Err(Error::missing("grantee"));
        }
        let user = || async {
            Ok::<_, Error>(self.find_user(text).await.ok().map(|u| Grantee {
                id: u.id,
                name: u.name,
                kind: GranteeKind::User,
            }))
        };
        let group = || async {
            Ok::<_, Error>(self.find_group(text).await.ok().map(|g| Grantee {
                id: g.id,
                name: g.name,
                kind: GranteeKind::Group,
            }))
        };
        let found = match reference.kind {
            Some(GranteeKind::User) => user().await?,
            Some(GranteeKind::Group) => group().await?,
            None => match (user().await?, group().await?) {
                (Some(u), Some(g)) if u.id != g.id => {
                    return Err(Error::invalid(format!(
                        "'{text}' names both a user and a group; give granteeType USER or GROUP"
                    )));
                }
                (Some(u), _) => Some(u),
                (None, g) => g,
            },
        };
        found.ok_or_else(|| {
            let what = match reference.kind {
                Some(GranteeKind::User) => "user",
                Some(GranteeKind::Group) => "group",
                None => "user or group",
            };
            Error::not_found(format!("no {what} '{text}'"))
        })
    }
}

impl Identity<'_> {
    async fn grantee_or_caller(
        &self,
        caller: &Caller,
        grantee: Option<&GranteeRef>,
    ) -> Result<Grantee> {
        match grantee {
            Some(reference) => self.find_grantee(reference).await,
            None => Ok(Grantee {
                id: caller.user(),
                name: caller.name().to_owned(),
                kind: GranteeKind::User,
            }),
        }
    }

    async fn grantee_by_id(&self, id: ObjectId) -> Result<Option<Grantee>> {
        if let Some(user) = self.store.user(id).await? {
            return Ok(Some(Grantee {
                id,
                name: user.name,
                kind: GranteeKind::User,
            }));
        }
        Ok(self.store.group(id).await?.map(|g| Grantee {
            id,
            name: g.name,
            kind: GranteeKind::Group,
        }))
    }

    /// The grants that reach a grantee, with the group each comes through: a group's own
    /// grants; a user's own grants and those of their enabled groups.
    async fn grants_reaching(&self, grantee: &Grantee) -> Result<Vec<(Grant, Option<Grantee>)>> {
        let mut reaching: Vec<(Grant, Option<Grantee>)> = self
            .store
            .grants_of(grantee.id)
            .await?
            .into_iter()
            .map(|g| (g, None))
            .collect();
        if grantee.kind == GranteeKind::User {
            for group in self.store.groups_of(grantee.id).await? {
                if !group.enabled {
                    continue;
                }
                let via = Grantee {
                    id: group.id,
                    name: group.name,
                    kind: GranteeKind::Group,
                };
                for grant in self.store.grants_of(group.id).await? {
                    reaching.push((grant, Some(via.clone())));
                }
            }
        }
        Ok(reaching)
    }

    /// Grants as [`RoleGrant`]s, by role name then grantee name (keeping the order of
    /// objects given); grants of vanished grantees or roles are left out.
    async fn describe_grants(
        &self,
        grants: impl IntoIterator<Item = Grant>,
        asked: Option<ObjectId>,
    ) -> Result<Vec<RoleGrant>> {
        let roles = self.store.roles().await?;
        let mut described = Vec::new();
        for grant in grants {
            let (Some(role), Some(grantee)) = (
                roles.iter().find(|r| r.name == grant.role),
                self.grantee_by_id(grant.grantee).await?,
            ) else {
                continue;
            };
            described.push(RoleGrant {
                grantee,
                role: role.clone(),
                object: grant.object,
                via: None,
                inherited: grant.object.is_some() && grant.object != asked,
            });
        }
        if asked.is_none() {
            described.sort_by(|a, b| {
                (&a.role.name, a.grantee.name.to_lowercase())
                    .cmp(&(&b.role.name, b.grantee.name.to_lowercase()))
            });
        }
        Ok(described)
    }
}

/// The grants of a CSV file's lines, and what was wrong with the others.
#[derive(Default)]
struct CheckedLines {
    wanted: BTreeSet<Grant>,
    errors: Vec<String>,
    denied: Vec<String>,
}

impl CheckedLines {
    /// Records a line's grant or what is wrong with it; an internal failure stops the
    /// whole import.
    fn add(&mut self, line: u64, grant: Result<Grant>) -> Result<()> {
        match grant {
            Ok(grant) => {
                self.wanted.insert(grant);
            }
            Err(e) if e.is_internal() => return Err(e),
            Err(e) if e.code == crate::ErrorCode::PermissionDenied => {
                self.denied.push(format!("line {line}: {}", e.message));
            }
            Err(e) => self.errors.push(format!("line {line}: {}", e.message)),
        }
        Ok(())
    }

    /// The grants, or INVALID_PARAMETER naming every bad line (PERMISSION_DENIED when
    /// every bad line is one the caller may not grant).
    fn wanted(self) -> Result<BTreeSet<Grant>> {
        if !self.errors.is_empty() {
            let mut all = self.errors;
            all.extend(self.denied);
            return Err(Error::invalid(listed(&all)));
        }
        if !self.denied.is_empty() {
            return Err(Error::forbidden(listed(&self.denied)));
        }
        Ok(self.wanted)
    }
}

fn capability_names() -> String {
    Capability::ALL
        .iter()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// One data line of a role CSV file, its fields in header order.
struct CsvRow(Vec<String>);

impl CsvRow {
    fn optional(&self, index: usize) -> Option<&str> {
        self.0
            .get(index)
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
    }

    fn field(&self, index: usize, name: &str) -> Result<&str> {
        self.optional(index).ok_or_else(|| Error::missing(name))
    }
}

/// The data lines of a role CSV file with their line numbers (the header is line 1),
/// fields in the order of `header`. The header must name every column of `header`
/// (in any order, case-insensitively) except those in `optional`; unknown columns are
/// refused. Empty lines are skipped.
fn read_csv(bytes: &[u8], header: &[&str], optional: &[&str]) -> Result<Vec<(u64, CsvRow)>> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::missing("the CSV file (request body)"));
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .trim(csv::Trim::All)
        .from_reader(bytes);
    let names = reader
        .headers()
        .map_err(|e| Error::invalid(format!("line 1: cannot read the CSV header: {e}")))?
        .clone();
    let mut positions = Vec::with_capacity(header.len());
    for column in header {
        let position = names.iter().position(|n| n.eq_ignore_ascii_case(column));
        if position.is_none() && !optional.contains(column) {
            return Err(Error::invalid(format!(
                "line 1: the header has no '{column}' column; it must be {}",
                header.join(",")
            )));
        }
        positions.push(position);
    }
    if let Some(unknown) = names
        .iter()
        .find(|n| !header.iter().any(|h| h.eq_ignore_ascii_case(n)))
    {
        return Err(Error::invalid(format!(
            "line 1: unknown column '{unknown}'; the columns are {}",
            header.join(",")
        )));
    }
    // The line a record starts on, counting every line of the file (the csv crate's
    // own count skips empty lines).
    let line_at = |position: Option<&csv::Position>| {
        let mut offset = position.map_or(0, |p| p.byte() as usize).min(bytes.len());
        // A record's position may be where skipped empty lines begin.
        while offset < bytes.len() && matches!(bytes[offset], b'\r' | b'\n') {
            offset += 1;
        }
        bytes[..offset].iter().filter(|b| **b == b'\n').count() as u64 + 1
    };
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = line_at(e.position());
            let reason = match e.kind() {
                csv::ErrorKind::UnequalLengths {
                    expected_len, len, ..
                } => format!("{len} fields where the header has {expected_len}"),
                _ => e.to_string(),
            };
            Error::invalid(format!("line {line}: {reason}"))
        })?;
        if record.iter().all(str::is_empty) {
            continue;
        }
        let line = line_at(record.position());
        let fields = positions
            .iter()
            .map(|p| p.and_then(|p| record.get(p)).unwrap_or("").to_owned())
            .collect();
        rows.push((line, CsvRow(fields)));
    }
    if rows.is_empty() {
        return Err(Error::invalid("the CSV file has a header but no grants"));
    }
    Ok(rows)
}

/// "nothing was imported: line 3: ...; line 5: ..." with at most [`MAX_LISTED_ERRORS`].
fn listed(errors: &[String]) -> String {
    let mut text = format!(
        "nothing was imported; {} bad line{}: ",
        errors.len(),
        if errors.len() == 1 { "" } else { "s" }
    );
    text.push_str(
        &errors
            .iter()
            .take(MAX_LISTED_ERRORS)
            .cloned()
            .collect::<Vec<_>>()
            .join("; "),
    );
    if errors.len() > MAX_LISTED_ERRORS {
        text.push_str(&format!("; and {} more", errors.len() - MAX_LISTED_ERRORS));
    }
    text
}

fn write_row(out: &mut csv::Writer<Vec<u8>>, fields: &[&str]) -> Result<()> {
    out.write_record(fields)
        .map_err(|e| Error::internal(format!("cannot write CSV: {e}")))
}

fn finish_csv(out: csv::Writer<Vec<u8>>) -> Result<Vec<u8>> {
    out.into_inner()
        .map_err(|e| Error::internal(format!("cannot write CSV: {e}")))
}

/// The repository object where the grants reaching `object` start: the object itself, or
/// its model's repository object.
fn anchor(object: ObjectId) -> ObjectId {
    ObjectId::repository(if object.is_repository() {
        object.object
    } else {
        object.model
    })
}

/// The grant chains ([`Catalog::grant_chain_at`]) read lately, by anchor, each with the
/// repository version it holds at: an object-role caller's entity reads check what they
/// may see without reading the model's ancestry again while the repository's objects
/// stay as they were (in this process or any other over the same database).
#[derive(Debug, Default)]
pub(crate) struct KeptChains(Mutex<HashMap<ObjectId, KeptChain>>);

/// A grant chain and the repository version it was read at.
type KeptChain = (i64, Arc<[ObjectId]>);

impl KeptChains {
    /// At most this many anchors; past it the chains are all dropped and read again.
    const MOST: usize = 4096;

    fn get(&self, anchor: ObjectId, version: i64) -> Option<Arc<[ObjectId]>> {
        let chains = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match chains.get(&anchor) {
            Some((kept, chain)) if *kept == version => Some(Arc::clone(chain)),
            _ => None,
        }
    }

    fn keep(&self, anchor: ObjectId, version: i64, chain: Arc<[ObjectId]>) {
        let mut chains = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if chains.len() >= Self::MOST && !chains.contains_key(&anchor) {
            chains.clear();
        }
        chains.insert(anchor, (version, chain));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_chains_answer_only_at_their_version_and_stay_bounded() {
        let chains = KeptChains::default();
        let model = ObjectId::repository(7);
        let chain: Arc<[ObjectId]> = vec![model, ObjectId::repository(2)].into();
        chains.keep(model, 5, Arc::clone(&chain));
        assert_eq!(chains.get(model, 5), Some(Arc::clone(&chain)));
        assert_eq!(chains.get(model, 6), None, "another version reads again");
        assert_eq!(chains.get(ObjectId::repository(8), 5), None);
        for n in 0..KeptChains::MOST as i64 {
            chains.keep(ObjectId::repository(1_000 + n), 5, Arc::clone(&chain));
        }
        let held = chains.0.lock().unwrap().len();
        assert!(held <= KeptChains::MOST, "{held} chains kept");
        assert_eq!(anchor(ObjectId::new(7, 3)), ObjectId::repository(7));
        assert_eq!(anchor(ObjectId::repository(9)), ObjectId::repository(9));
    }

    #[test]
    fn capabilities_parse_in_the_spec_spelling() {
        assert_eq!(Capability::parse("View Data"), Some(Capability::ViewData));
        assert_eq!(
            Capability::parse("viewmetadata"),
            Some(Capability::ViewMetadata)
        );
        assert_eq!(
            Capability::parse("manage_roles"),
            Some(Capability::ManageRoles)
        );
        assert_eq!(Capability::parse("Fly"), None);
        for c in Capability::ALL {
            assert_eq!(Capability::parse(c.as_str()), Some(c));
            assert_eq!(
                serde_json::to_value(c).unwrap_or_default(),
                serde_json::json!(c.as_str())
            );
        }
    }

    #[test]
    fn csv_lines_are_numbered_and_columns_checked() {
        let rows = read_csv(
            b"role,grantee\nViewer,ann\n\n\"Data Viewer\",\"bob, jr\"\n",
            &GLOBAL_ROLES_CSV_HEADER,
            &["granteeType"],
        )
        .unwrap_or_default();
        let lines: Vec<u64> = rows.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, [2, 4]);
        assert_eq!(rows[1].1.0, ["bob, jr", "", "Data Viewer"]);
        let err = read_csv(b"grantee,role,extra\n", &GLOBAL_ROLES_CSV_HEADER, &[])
            .err()
            .map(|e| e.message)
            .unwrap_or_default();
        assert!(err.contains("line 1"), "{err}");
        let err = read_csv(
            b"grantee,role\nann\n",
            &GLOBAL_ROLES_CSV_HEADER,
            &["granteeType"],
        )
        .err()
        .map(|e| e.message)
        .unwrap_or_default();
        assert!(err.contains("line 2"), "{err}");
    }
}
