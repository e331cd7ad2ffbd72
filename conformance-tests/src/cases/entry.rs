//! What the registry ([`cases`](super::cases)) holds: a case, the routes it covers and
//! the server it needs.

use std::future::Future;
use std::pin::Pin;

use crate::harness::Target;

/// What a case exercises on a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// The route doing its job.
    Normal,
    /// The route refusing bad input (missing, malformed or unknown values, bad keys).
    BadInput,
    /// The route refusing a logged-in caller without the capability it needs: 403
    /// PERMISSION_DENIED.
    Denied,
}

/// What server a case needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// Any Lore, shared with other cases: the case only touches what it creates.
    AnyServer,
    /// A server of its own (the case ends the administrator's other sessions): skipped
    /// on remote targets.
    OwnServer,
    /// A server of its own started with `server.max_body_mib = 1` and
    /// `server.max_upload_mib = 1`: skipped remotely.
    SmallBodyLimit,
    /// A server of its own started with `auth.login_timeout = "5s"`: skipped remotely.
    ShortSessions,
    /// A server of its own whose `[auth.oauth2]` points at an OpenID provider the case
    /// starts ([`Target::provider`]), unknown users refused: skipped remotely.
    OAuth2Provider,
    /// As [`Needs::OAuth2Provider`], with `auth.oauth2.create_users = true`.
    OAuth2ProviderCreatingUsers,
    /// A server of its own with the suite's plugins configured ([`crate::plugins`]),
    /// short operation heartbeats and a 5 s limit on the misbehaving plugin: skipped
    /// remotely.
    Plugins,
}

pub type CaseFuture<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;
pub type CaseFn = for<'a> fn(&'a Target) -> CaseFuture<'a>;

/// One case of the suite.
#[derive(Debug, Clone)]
pub struct Case {
    /// The test name (the function's name).
    pub name: &'static str,
    /// `(METHOD, OpenAPI path, kind)` of every route the case exercises.
    pub covers: Vec<(&'static str, &'static str, Kind)>,
    pub needs: Needs,
    pub run: CaseFn,
}
