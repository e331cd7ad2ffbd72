//! Social curation and workflow: users endorse, certify, comment on, warn about and
//! watch objects, and move them through a review workflow. The spec shows no endpoints
//! for these; Lore's are extensions (`/curation/{objectId}`, `/workflow/{objectId}`),
//! and what they write is what MQL's social and workflow attributes read.
//!
//! Endorsing, commenting and watching need View Metadata on the object; certifying,
//! warning and removing another user's entry, Curate. Workflow: Submit for Approval
//! needs Edit Metadata, the other actions Curate.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{Value as Json, json};

use super::Governance;
use crate::auth::Caller;
use crate::catalog::Catalog;
use crate::catalog::visibility::Visible;
use crate::error::{Error, Result};
use crate::id::ObjectId;
use crate::model::{CURATION_IDS, Capability, Curation, CurationKind, Object, User, now};
use crate::store::Op;

/// The longest comment or warning.
pub const MAX_CURATION_TEXT_CHARS: usize = 10_000;

/// The workflow state of an object that has none yet.
pub const DRAFT: &str = "Draft";

/// A step of the workflow: from which states, to which, and what it needs.
struct Step {
    action: &'static str,
    from: &'static [&'static str],
    to: &'static str,
    needs: Capability,
}

/// The workflow every model's objects follow (spec 3.2 names the actions and Approved).
const WORKFLOW: [Step; 6] = [
    Step {
        action: "Submit for Approval",
        from: &[DRAFT, "Deprecated"],
        to: "Pending Approval",
        needs: Capability::EditMetadata,
    },
    Step {
        action: "Start Review",
        from: &["Pending Approval"],
        to: "Under Review",
        needs: Capability::Curate,
    },
    Step {
        action: "Approve",
        from: &["Under Review"],
        to: "Approved",
        needs: Capability::Curate,
    },
    Step {
        action: "Discard",
        from: &["Pending Approval", "Under Review"],
        to: DRAFT,
        needs: Capability::Curate,
    },
    Step {
        action: "Mark for Deprecation",
        from: &["Approved"],
        to: "Pending Deprecation",
        needs: Capability::Curate,
    },
    Step {
        action: "Deprecate",
        from: &["Pending Deprecation"],
        to: "Deprecated",
        needs: Capability::Curate,
    },
];

/// An entry as clients read it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurationEntry {
    pub id: i64,
    pub kind: &'static str,
    pub user: Json,
    /// Comments and warnings only.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
    pub at: String,
}

/// The curation of an object.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectCuration {
    pub object_id: String,
    pub endorsed_by: Vec<Json>,
    pub certified_by: Vec<Json>,
    pub comments: Vec<CurationEntry>,
    pub warnings: Vec<CurationEntry>,
    pub watchers: Vec<Json>,
    pub workflow_state: String,
    /// The workflow actions the caller may take on the object now.
    pub my_workflow_tasks: Vec<&'static str>,
}

pub(crate) fn user_json(user: Option<&User>, id: ObjectId) -> Json {
    match user {
        Some(u) => json!({"id": u.id.to_string(), "name": u.name, "fullName": u.full_name}),
        None => json!({"id": id.to_string(), "name": Json::Null}),
    }
}

fn state_of(object: &Object) -> &str {
    object
        .workflow_state
        .as_deref()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or(DRAFT)
}

/// The capability a kind of entry needs.
fn needs(kind: CurationKind) -> Capability {
    match kind {
        CurationKind::Certification | CurationKind::Warning => Capability::Curate,
        _ => Capability::ViewMetadata,
    }
}

impl Catalog {
    /// For each workflow action, the objects on which the caller may take it now (its
    /// state allows it and the caller holds what it needs there): what MQL's My Workflow
    /// Tasks tests. Keys are folded action names.
    pub(crate) async fn workflow_task_conditions(
        &self,
        caller: &Caller,
    ) -> Result<HashMap<String, crate::mql::plan::Cond>> {
        use crate::mql::plan::{Column, Cond, Field, Lit, Test, fold};
        let state = Field::Column(Column::WorkflowState);
        let mut held: HashMap<Capability, Cond> = HashMap::new();
        let mut out = HashMap::new();
        for step in &WORKFLOW {
            let may = match held.get(&step.needs) {
                Some(c) => c.clone(),
                None => {
                    let c = self.holds_capability(caller, step.needs).await?;
                    held.insert(step.needs, c.clone());
                    c
                }
            };
            let mut states: Vec<Cond> = vec![Cond::Test(
                state.clone(),
                Test::In(step.from.iter().map(|s| Lit::Text(fold(s))).collect()),
            )];
            if step.from.contains(&DRAFT) {
                states.push(Cond::not(Cond::Has(state.clone())));
            }
            out.insert(fold(step.action), Cond::and(vec![Cond::or(states), may]));
        }
        Ok(out)
    }
}

impl Governance<'_> {
    async fn curated_object(&self, caller: &Caller, object: &str) -> Result<Visible> {
        self.find_text(caller, object).await
    }
}

impl Catalog {
    /// The actions of the workflow the caller may take on the object in its state.
    pub(crate) async fn workflow_tasks(
        &self,
        caller: &Caller,
        object: &Object,
    ) -> Result<Vec<&'static str>> {
        let held = self.capabilities_on(caller, object.id).await?;
        let state = state_of(object);
        Ok(WORKFLOW
            .iter()
            .filter(|s| s.from.contains(&state) && held.contains(&s.needs))
            .map(|s| s.action)
            .collect())
    }
}

impl Governance<'_> {
    /// `GET /curation/{objectId}`: who endorsed, certified, commented on, warned about
    /// and watches the object, its workflow state and the caller's workflow tasks (View
    /// Metadata on it).
    pub async fn object_curation(&self, caller: &Caller, object: &str) -> Result<ObjectCuration> {
        let object = self.curated_object(caller, object).await?;
        self.curation_of(caller, &object).await
    }

    async fn curation_of(&self, caller: &Caller, object: &Object) -> Result<ObjectCuration> {
        let entries = self.store.curation(object.id).await?;
        let mut users: HashMap<ObjectId, User> = HashMap::new();
        for entry in &entries {
            if let std::collections::hash_map::Entry::Vacant(slot) = users.entry(entry.user)
                && let Some(user) = self.store.user(entry.user).await?
            {
                slot.insert(user);
            }
        }
        let mut out = ObjectCuration {
            object_id: object.id.to_string(),
            endorsed_by: Vec::new(),
            certified_by: Vec::new(),
            comments: Vec::new(),
            warnings: Vec::new(),
            watchers: Vec::new(),
            workflow_state: state_of(object).to_owned(),
            my_workflow_tasks: self.workflow_tasks(caller, object).await?,
        };
        for e in entries {
            let user = user_json(users.get(&e.user), e.user);
            match e.kind {
                CurationKind::Endorsement => out.endorsed_by.push(user),
                CurationKind::Certification => out.certified_by.push(user),
                CurationKind::Watch => out.watchers.push(user),
                CurationKind::Comment | CurationKind::Warning => {
                    let entry = CurationEntry {
                        id: e.id,
                        kind: e.kind.as_str(),
                        user,
                        text: e.text,
                        at: crate::model::format_datetime(&e.at),
                    };
                    if e.kind == CurationKind::Comment {
                        out.comments.push(entry);
                    } else {
                        out.warnings.push(entry);
                    }
                }
            }
        }
        Ok(out)
    }

    /// `POST /curation/{objectId}`: the caller endorses, certifies, comments on, warns
    /// about or watches the object. Endorsing, certifying and watching twice is a no-op;
    /// comments and warnings carry a text and add up.
    pub async fn add_curation(
        &self,
        caller: &Caller,
        object: &str,
        kind: &str,
        text: Option<&str>,
    ) -> Result<ObjectCuration> {
        let kind = CurationKind::parse(kind.trim()).ok_or_else(|| {
            Error::invalid(format!(
                "kind '{kind}' is none of {}",
                CurationKind::ALL.map(CurationKind::as_str).join(", ")
            ))
        })?;
        let object = self.curated_object(caller, object).await?;
        self.require_on(caller, needs(kind), &object).await?;
        let text = text.map(str::trim).unwrap_or_default();
        if kind.once_per_user() {
            if !text.is_empty() {
                return Err(Error::invalid(format!("a {} has no text", kind.as_str())));
            }
        } else if text.is_empty() {
            return Err(Error::missing("text"));
        } else if text.chars().count() > MAX_CURATION_TEXT_CHARS {
            return Err(Error::invalid(format!(
                "a {} is at most {MAX_CURATION_TEXT_CHARS} characters",
                kind.as_str()
            )));
        }
        let existing = self.store.curation(object.id).await?;
        let held = kind.once_per_user()
            && existing
                .iter()
                .any(|e| e.kind == kind && e.user == caller.user());
        if !held {
            let id = self.store.reserve_ids(CURATION_IDS, 1).await?;
            self.write(
                caller.author(),
                vec![Op::PutCuration(Curation {
                    id,
                    object: object.id,
                    kind,
                    user: caller.user(),
                    text: text.to_owned(),
                    at: now(),
                })],
            )
            .await?;
        }
        self.curation_of(caller, &object).await
    }

    /// `DELETE /curation/{objectId}`: removes the caller's endorsement, certification or
    /// watch (`kind`), or one comment or warning by id (the author's own, or anyone's with
    /// Curate). NOT_FOUND when there is none.
    pub async fn remove_curation(
        &self,
        caller: &Caller,
        object: &str,
        kind: Option<&str>,
        entry: Option<i64>,
    ) -> Result<ObjectCuration> {
        let object = self.curated_object(caller, object).await?;
        let target = match (kind.map(str::trim).filter(|k| !k.is_empty()), entry) {
            (_, Some(id)) => {
                let found = self
                    .store
                    .curation_entry(id)
                    .await?
                    .filter(|e| e.object == object.id)
                    .ok_or_else(|| {
                        Error::not_found(format!("{} has no curation entry {id}", object.id))
                    })?;
                let capability = if found.user == caller.user() {
                    needs(found.kind)
                } else {
                    Capability::Curate
                };
                self.require_on(caller, capability, &object).await?;
                found
            }
            (Some(kind), None) => {
                let kind = CurationKind::parse(kind)
                    .filter(|k| k.once_per_user())
                    .ok_or_else(|| {
                        Error::invalid(format!(
                            "kind '{kind}' is none of endorsement, certification, watch; \
                             remove a comment or warning by its id"
                        ))
                    })?;
                self.require_on(caller, needs(kind), &object).await?;
                self.store
                    .curation(object.id)
                    .await?
                    .into_iter()
                    .find(|e| e.kind == kind && e.user == caller.user())
                    .ok_or_else(|| {
                        Error::not_found(format!("you have no {} on {}", kind.as_str(), object.id))
                    })?
            }
            (None, None) => return Err(Error::missing("kind or id")),
        };
        self.write(caller.author(), vec![Op::DeleteCuration(target.id)])
            .await?;
        self.curation_of(caller, &object).await
    }

    /// `POST /workflow/{objectId}`: takes a workflow action on the object (the actions
    /// the caller may take are its My Workflow Tasks).
    pub async fn workflow_transition(
        &self,
        caller: &Caller,
        object: &str,
        action: &str,
    ) -> Result<ObjectCuration> {
        let object = self.curated_object(caller, object).await?;
        let step = WORKFLOW
            .iter()
            .find(|s| s.action.eq_ignore_ascii_case(action.trim()))
            .ok_or_else(|| {
                Error::invalid(format!(
                    "action '{action}' is none of {}",
                    WORKFLOW
                        .iter()
                        .map(|s| s.action)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
        self.require_on(caller, step.needs, &object).await?;
        let mut object = object.into_object();
        let state = state_of(&object);
        if !step.from.contains(&state) {
            return Err(Error::conflict(format!(
                "{} is {state}; {} applies to an object that is {}",
                object.id,
                step.action,
                step.from.join(" or ")
            )));
        }
        object.workflow_state = Some(step.to.to_owned());
        object.updated_at = now();
        object.updated_by = Some(caller.user());
        self.write(caller.author(), vec![Op::PutObject(object.clone())])
            .await?;
        self.notify_watchers(
            object.id,
            caller.user(),
            format!(
                "{} took '{}' on '{}' ({}): it is {} now",
                caller.name(),
                step.action,
                object.name,
                object.id,
                step.to
            ),
        )
        .await;
        self.curation_of(caller, &object).await
    }
}
