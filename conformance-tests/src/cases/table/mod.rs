//! The case table: every case of the HTTP suite with the routes it covers and the
//! server it needs, in parts by area of the API, in the order the cases run.

use super::{Case, N, Needs, deprecated, removed};

macro_rules! case {
    ($func:path, $needs:ident, [$(($method:literal, $path:literal, $kind:ident)),* $(,)?]) => {
        Case {
            name: stringify!($func).rsplit("::").next().unwrap_or_default().trim(),
            covers: vec![$(($method, $path, $kind)),*],
            needs: Needs::$needs,
            run: |t| Box::pin($func(t)),
        }
    };
}

mod access;
mod administration;
mod curation;
mod governance;
mod imports;
mod lineage;
mod queries;
mod repository;

/// Every case of the HTTP suite: the one place a case is registered.
pub fn cases() -> Vec<Case> {
    let mut all = [
        access::cases(),
        repository::cases(),
        queries::cases(),
        administration::cases(),
        curation::cases(),
        lineage::cases(),
        governance::cases(),
        imports::cases(),
    ]
    .concat();
    // Removed methods
    all.push(case!(
        removed::removed_auth_methods_name_post_replacement,
        AnyServer,
        [
            ("GET", "/auth/login", N),
            ("GET", "/auth/loginPlainText", N),
            ("GET", "/auth/loginOAuth2", N),
        ]
    ));
    all.push(deprecated::every_deprecated_method_answers_as_its_replacement());
    all.push(deprecated::aliases_bad_input_case());
    all.push(deprecated::aliases_denied_case());
    all.push(removed::every_removed_method_answers_410());
    all.push(removed::removed_methods_ignore_input());
    all
}
