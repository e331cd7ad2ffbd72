//! OAuth 2.0 / OpenID Connect login: turns a provider's access token into the Lore user
//! it names.
//!
//! A JWT (three dot-separated parts) is validated here: its signature against the
//! provider's JWKS (cached; an unknown key id fetches the set again, at most once per
//! [`JWKS_REFRESH_INTERVAL`], so a rotated key works without a restart), then `iss`,
//! `aud`, `exp` and `nbf` with the configured leeway. Any other token is opaque and goes
//! to the provider's introspection endpoint (RFC 7662), whose answer gets the same
//! checks. Every refusal is AUTHENTICATION_ERROR with a message that says what was wrong
//! and never repeats the token; a provider that cannot be reached is a SERVER_ERROR, and
//! every request to it has a timeout.

use std::collections::BTreeMap;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use lore_core::auth::{Authenticator, Credentials};
use lore_core::catalog::{ExternalIdentity, TokenVerifier, map_groups};
use lore_core::{Catalog, Error, ObjectId, Result};
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::sync::Mutex;

use crate::config::{ConfigError, OAuth2Settings};

/// How often an unknown key id may fetch the JWKS again.
pub const JWKS_REFRESH_INTERVAL: Duration = Duration::from_secs(10);
/// The longest any request to the provider may take, connecting included.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

type Claims = Map<String, Value>;

/// The OAuth 2.0 login method of `[auth.oauth2]`.
#[derive(Debug)]
pub struct OAuth2Login {
    issuer: String,
    audience: String,
    user_claim: String,
    groups_claim: String,
    groups: BTreeMap<String, String>,
    create_users: bool,
    link_verified_email: bool,
    client: Option<(String, String)>,
    /// The web UI's client: id and optional secret (OpenID Connect sign-in).
    browser: Option<(String, Option<String>)>,
    scopes: String,
    leeway: Duration,
    algorithms: Vec<Algorithm>,
    http: reqwest::Client,
    catalog: Catalog,
    provider: Mutex<ProviderCache>,
}

/// What was read from the provider: its discovery document and signing keys.
#[derive(Debug, Default)]
struct ProviderCache {
    discovery: Option<Discovery>,
    keys: Vec<Jwk>,
    keys_fetched: Option<Instant>,
}

#[derive(Debug, Clone, Deserialize)]
struct Discovery {
    issuer: Option<String>,
    jwks_uri: Option<String>,
    introspection_endpoint: Option<String>,
    authorization_endpoint: Option<String>,
    token_endpoint: Option<String>,
}

fn refused(message: impl Into<String>) -> Error {
    Error::authentication(message)
}

fn now_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

impl OAuth2Login {
    /// The login method the settings describe, or `None` when `auth.oauth2.enabled` is
    /// off. Nothing is fetched yet: the provider is read at the first login, so a
    /// provider that is down does not stop Lore from starting.
    pub fn from_settings(
        settings: &OAuth2Settings,
        catalog: Catalog,
    ) -> Result<Option<Self>, ConfigError> {
        if !settings.enabled {
            return Ok(None);
        }
        settings.validate()?;
        let algorithms = settings
            .algorithms
            .iter()
            .map(|name| {
                name.parse::<Algorithm>().map_err(|_| {
                    ConfigError(format!("auth.oauth2.algorithms: '{name}' is unknown"))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let http = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(|e| ConfigError(format!("cannot build the OAuth 2.0 HTTP client: {e}")))?;
        Ok(Some(Self {
            issuer: settings
                .issuer
                .clone()
                .unwrap_or_default()
                .trim()
                .to_owned(),
            audience: settings
                .audience
                .clone()
                .unwrap_or_default()
                .trim()
                .to_owned(),
            user_claim: settings.user_claim.clone(),
            groups_claim: settings.groups_claim.clone(),
            groups: settings.groups.clone(),
            create_users: settings.create_users,
            link_verified_email: settings.link_verified_email,
            client: settings
                .introspection_client_id
                .clone()
                .zip(settings.introspection_client_secret.clone()),
            browser: settings
                .client_id
                .clone()
                .filter(|id| !id.trim().is_empty())
                .map(|id| (id, settings.client_secret.clone())),
            scopes: settings.scopes.clone(),
            leeway: settings.leeway()?,
            algorithms,
            http,
            catalog,
            provider: Mutex::new(ProviderCache::default()),
        }))
    }

    /// The configured issuer: what users are linked by, with the tokens' subjects.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// Whether the first login of an unknown user creates the account.
    pub fn create_users(&self) -> bool {
        self.create_users
    }

    /// Validates an access token and answers who it names.
    async fn identity(&self, token: &str) -> Result<ExternalIdentity> {
        let token = token.trim();
        if token.is_empty() {
            return Err(Error::missing("token"));
        }
        let claims = if token.split('.').count() == 3 {
            self.jwt_claims(token).await?
        } else {
            self.introspect(token).await?
        };
        self.identity_from_claims(&claims)
    }

    /// The subject, user name, names and mapped groups of validated claims. The issuer
    /// is the configured one, which a JWT's `iss` was checked against (an introspection
    /// answer need not name it).
    fn identity_from_claims(&self, claims: &Claims) -> Result<ExternalIdentity> {
        let subject = claims
            .get("sub")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|sub| !sub.is_empty())
            .ok_or_else(|| {
                refused("the token has no 'sub' claim naming the caller's account at the provider")
            })?;
        let user_name = claims
            .get(&self.user_claim)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .ok_or_else(|| {
                refused(format!(
                    "the token has no '{}' claim naming the user (auth.oauth2.user_claim)",
                    self.user_claim
                ))
            })?;
        let text = |name: &str| {
            claims
                .get(name)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .filter(|s| !s.trim().is_empty())
        };
        let values: Vec<&str> = match claims.get(&self.groups_claim) {
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
            Some(Value::String(one)) => vec![one.as_str()],
            _ => Vec::new(),
        };
        // Some providers send the flag as a string.
        let email_verified = matches!(claims.get("email_verified"), Some(Value::Bool(true)))
            || claims.get("email_verified").and_then(Value::as_str) == Some("true");
        Ok(ExternalIdentity {
            issuer: self.issuer.clone(),
            subject: subject.to_owned(),
            user_name: user_name.to_owned(),
            full_name: text("name"),
            email: text("email"),
            email_verified,
            groups: map_groups(values, &self.groups),
            managed_groups: {
                let mut all: Vec<String> = self.groups.values().cloned().collect();
                all.sort();
                all.dedup();
                all
            },
        })
    }

    /// The web UI's client id and secret, or why there is none.
    fn browser_client(&self) -> Result<&(String, Option<String>)> {
        self.browser
            .as_ref()
            .ok_or_else(|| refused("single sign-on is not configured (auth.oauth2.client_id)"))
    }

    /// The provider's discovery document (read once).
    async fn discovered(&self) -> Result<Discovery> {
        let mut cache = self.provider.lock().await;
        self.discovery(&mut cache).await
    }

    /// Whether the web UI may sign in through the provider (a client id is set).
    pub fn offers_sign_in(&self) -> bool {
        self.browser.is_some()
    }

    /// Where the browser goes to sign in: the provider's authorization endpoint with
    /// the code flow's parameters (PKCE S256, state, nonce).
    pub async fn authorization_url(
        &self,
        redirect_uri: &str,
        state: &str,
        nonce: &str,
        code_challenge: &str,
    ) -> Result<String> {
        let (client_id, _) = self.browser_client()?;
        let discovery = self.discovered().await?;
        let endpoint = discovery.authorization_endpoint.ok_or_else(|| {
            Error::internal(
                "the OpenID provider's discovery document has no authorization_endpoint",
            )
        })?;
        let query = serde_urlencoded::to_string([
            ("response_type", "code"),
            ("client_id", client_id.as_str()),
            ("redirect_uri", redirect_uri),
            ("scope", self.scopes.as_str()),
            ("state", state),
            ("nonce", nonce),
            ("code_challenge", code_challenge),
            ("code_challenge_method", "S256"),
        ])
        .map_err(|e| Error::internal(format!("cannot write the sign-in URL: {e}")))?;
        let joiner = if endpoint.contains('?') { '&' } else { '?' };
        Ok(format!("{endpoint}{joiner}{query}"))
    }

    /// Exchanges the code the provider sent the browser back with for the ID token.
    pub async fn id_token_for_code(
        &self,
        code: &str,
        redirect_uri: &str,
        code_verifier: &str,
    ) -> Result<String> {
        let (client_id, secret) = self.browser_client()?;
        let discovery = self.discovered().await?;
        let endpoint = discovery.token_endpoint.ok_or_else(|| {
            Error::internal("the OpenID provider's discovery document has no token_endpoint")
        })?;
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("client_id", client_id.as_str()),
            ("code_verifier", code_verifier),
        ];
        if let Some(secret) = secret {
            form.push(("client_secret", secret.as_str()));
        }
        let response = self
            .http
            .post(&endpoint)
            .form(&form)
            .send()
            .await
            .map_err(|e| unreachable_provider("its token endpoint", &e))?;
        if !response.status().is_success() {
            let status = response.status();
            let body: Value = response.json().await.unwrap_or_default();
            return Err(refused(format!(
                "the provider refused the sign-in ({status}): {}",
                body["error_description"]
                    .as_str()
                    .or(body["error"].as_str())
                    .unwrap_or("no reason given")
            )));
        }
        let body: Value = read_json(response, "its token endpoint").await?;
        body["id_token"].as_str().map(str::to_owned).ok_or_else(|| {
            refused("the provider answered no id_token; is the scope 'openid' asked for?")
        })
    }

    /// Who an ID token names: signed by the provider, for Lore's client, within its
    /// time, carrying the nonce of this sign-in.
    async fn id_token_identity(&self, token: &str, nonce: &str) -> Result<ExternalIdentity> {
        let (client_id, _) = self.browser_client()?;
        let claims = self.jwt_claims_for(token, client_id).await?;
        if claims.get("nonce").and_then(Value::as_str) != Some(nonce) {
            return Err(refused(
                "the ID token does not carry this sign-in's nonce; start the sign-in again",
            ));
        }
        self.identity_from_claims(&claims)
    }

    async fn jwt_claims(&self, token: &str) -> Result<Claims> {
        self.jwt_claims_for(token, &self.audience).await
    }

    async fn jwt_claims_for(&self, token: &str, audience: &str) -> Result<Claims> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| refused("the token is not a well-formed JWT"))?;
        if !self.algorithms.contains(&header.alg) {
            return Err(refused(format!(
                "the token is signed with {:?}, which auth.oauth2.algorithms does not accept",
                header.alg
            )));
        }
        let jwk = self.signing_key(header.kid.as_deref()).await?;
        let family_matches = match &jwk.algorithm {
            AlgorithmParameters::RSA(_) => matches!(
                header.alg,
                Algorithm::RS256
                    | Algorithm::RS384
                    | Algorithm::RS512
                    | Algorithm::PS256
                    | Algorithm::PS384
                    | Algorithm::PS512
            ),
            AlgorithmParameters::EllipticCurve(_) => {
                matches!(header.alg, Algorithm::ES256 | Algorithm::ES384)
            }
            AlgorithmParameters::OctetKeyPair(_) => header.alg == Algorithm::EdDSA,
            // A symmetric or unknown key never verifies a provider's token.
            _ => false,
        };
        if !family_matches {
            return Err(refused(format!(
                "bad signature: the provider's key does not fit the token's algorithm {:?}",
                header.alg
            )));
        }
        let key = DecodingKey::from_jwk(&jwk)
            .map_err(|e| Error::internal(format!("the provider publishes an unusable key: {e}")))?;
        let mut validation = Validation::new(header.alg);
        validation.leeway = self.leeway.as_secs();
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        jsonwebtoken::decode::<Claims>(token, &key, &validation)
            .map(|data| data.claims)
            .map_err(|e| refused(jwt_refusal(e.kind(), &self.issuer, audience)))
    }

    /// The provider's key of that id; an unknown id reads the JWKS again unless it was
    /// read less than [`JWKS_REFRESH_INTERVAL`] ago.
    async fn signing_key(&self, kid: Option<&str>) -> Result<Jwk> {
        let mut cache = self.provider.lock().await;
        let find = |keys: &[Jwk]| -> Option<Jwk> {
            match kid {
                Some(kid) => keys
                    .iter()
                    .find(|k| k.common.key_id.as_deref() == Some(kid))
                    .cloned(),
                // Without a key id, only a provider with a single key is unambiguous.
                None if keys.len() == 1 => keys.first().cloned(),
                None => None,
            }
        };
        if let Some(key) = find(&cache.keys) {
            return Ok(key);
        }
        if cache
            .keys_fetched
            .is_none_or(|at| at.elapsed() >= JWKS_REFRESH_INTERVAL)
        {
            let discovery = self.discovery(&mut cache).await?;
            let uri = discovery.jwks_uri.ok_or_else(|| {
                Error::internal("the OpenID provider's discovery document has no jwks_uri")
            })?;
            let set: Value = self.get_json(&uri, "its signing keys (jwks_uri)").await?;
            cache.keys = set["keys"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|k| serde_json::from_value::<Jwk>(k.clone()).ok())
                .collect();
            cache.keys_fetched = Some(Instant::now());
            tracing::debug!(
                keys = cache.keys.len(),
                "read the OpenID provider's signing keys"
            );
            if let Some(key) = find(&cache.keys) {
                return Ok(key);
            }
        }
        Err(refused(match kid {
            Some(kid) => format!(
                "unknown key: the token is signed with key id '{kid}', which the provider does not publish"
            ),
            None => "unknown key: the token names no key id (kid) and the provider publishes several keys".to_owned(),
        }))
    }

    /// The discovery document, read once.
    async fn discovery(&self, cache: &mut ProviderCache) -> Result<Discovery> {
        if let Some(discovery) = &cache.discovery {
            return Ok(discovery.clone());
        }
        let url = format!(
            "{}/.well-known/openid-configuration",
            self.issuer.trim_end_matches('/')
        );
        let discovery: Discovery = self.get_json(&url, "its discovery document").await?;
        if discovery
            .issuer
            .as_deref()
            .is_some_and(|i| i != self.issuer)
        {
            tracing::warn!(
                configured = %self.issuer,
                announced = ?discovery.issuer,
                "the OpenID provider announces another issuer than auth.oauth2.issuer; tokens must carry the configured one"
            );
        }
        cache.discovery = Some(discovery.clone());
        Ok(discovery)
    }

    async fn get_json<T: serde::de::DeserializeOwned>(&self, url: &str, what: &str) -> Result<T> {
        let response = self
            .http
            .get(url)
            .send()
            .await
            .map_err(|e| unreachable_provider(what, &e))?;
        read_json(response, what).await
    }

    /// Asks the provider about an opaque token (RFC 7662) and checks what it answers.
    async fn introspect(&self, token: &str) -> Result<Claims> {
        let discovery = self.discovered().await?;
        let endpoint = discovery.introspection_endpoint.ok_or_else(|| {
            refused("the token is not a JWT, and the provider has no introspection endpoint for opaque tokens")
        })?;
        let mut request = self
            .http
            .post(&endpoint)
            .form(&[("token", token), ("token_type_hint", "access_token")]);
        if let Some((id, secret)) = &self.client {
            request = request.basic_auth(id, Some(secret));
        }
        let response = request
            .send()
            .await
            .map_err(|e| unreachable_provider("token introspection", &e))?;
        if matches!(response.status().as_u16(), 401 | 403) {
            return Err(Error::internal(
                "the OpenID provider refused Lore's introspection client credentials \
                 (auth.oauth2.introspection_client_id and introspection_client_secret)",
            ));
        }
        let answer: Claims = read_json(response, "token introspection").await?;
        if answer.get("active").and_then(Value::as_bool) != Some(true) {
            return Err(refused(
                "inactive token: the provider says the token is not active (expired, revoked or unknown)",
            ));
        }
        self.check_registered_claims(&answer)?;
        Ok(answer)
    }

    /// `iss`, `aud`, `exp` and `nbf` of an introspection answer, as a JWT's are checked.
    fn check_registered_claims(&self, claims: &Claims) -> Result<()> {
        if claims.get("iss").and_then(Value::as_str) != Some(self.issuer.as_str()) {
            return Err(refused(format!(
                "wrong issuer: the token was not issued by {}",
                self.issuer
            )));
        }
        let audience_matches = match claims.get("aud") {
            Some(Value::String(one)) => *one == self.audience,
            Some(Value::Array(many)) => many.iter().any(|a| a.as_str() == Some(&self.audience)),
            _ => false,
        };
        if !audience_matches {
            return Err(refused(format!(
                "wrong audience: the token is not meant for '{}'",
                self.audience
            )));
        }
        let now = now_seconds();
        let leeway = self.leeway.as_secs();
        if let Some(exp) = claims.get("exp").and_then(Value::as_u64)
            && exp.saturating_add(leeway) <= now
        {
            return Err(refused("the token has expired"));
        }
        if let Some(nbf) = claims.get("nbf").and_then(Value::as_u64)
            && nbf > now.saturating_add(leeway)
        {
            return Err(refused("the token is not yet valid (nbf is in the future)"));
        }
        Ok(())
    }
}

/// Reads a provider's JSON answer; a non-2xx status or a body that is not the expected
/// JSON is a SERVER_ERROR naming what was read.
async fn read_json<T: serde::de::DeserializeOwned>(
    response: reqwest::Response,
    what: &str,
) -> Result<T> {
    let status = response.status();
    if !status.is_success() {
        return Err(Error::internal(format!(
            "the OpenID provider answered {status} when asked for {what}"
        )));
    }
    response.json::<T>().await.map_err(|e| {
        Error::internal(format!(
            "the OpenID provider's answer for {what} is not what OpenID Connect describes: {e}"
        ))
    })
}

fn unreachable_provider(what: &str, error: &reqwest::Error) -> Error {
    let reason = if error.is_timeout() {
        "it did not answer in time".to_owned()
    } else if error.is_connect() {
        "cannot connect".to_owned()
    } else {
        error.to_string()
    };
    Error::internal(format!(
        "cannot reach the OpenID provider for {what}: {reason}"
    ))
}

/// The message of a refused JWT.
fn jwt_refusal(kind: &ErrorKind, issuer: &str, audience: &str) -> String {
    match kind {
        ErrorKind::ExpiredSignature => "the token has expired".to_owned(),
        ErrorKind::ImmatureSignature => {
            "the token is not yet valid (nbf is in the future)".to_owned()
        }
        ErrorKind::InvalidIssuer => format!("wrong issuer: the token was not issued by {issuer}"),
        ErrorKind::InvalidAudience => {
            format!("wrong audience: the token is not meant for '{audience}'")
        }
        ErrorKind::InvalidSignature => {
            "bad signature: the token's signature does not verify with the provider's key"
                .to_owned()
        }
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no '{claim}' claim"),
        ErrorKind::InvalidAlgorithm => {
            "the token's algorithm does not fit the provider's key".to_owned()
        }
        ErrorKind::InvalidClaimFormat(claim) => format!("the token's '{claim}' claim is malformed"),
        _ => "the token is not a valid JWT".to_owned(),
    }
}

/// The ID token of one browser sign-in, checked against its nonce.
#[derive(Debug)]
pub struct IdToken<'a> {
    pub login: &'a OAuth2Login,
    pub nonce: &'a str,
}

#[async_trait]
impl TokenVerifier for IdToken<'_> {
    async fn verify(&self, token: &str) -> Result<ExternalIdentity> {
        self.login.id_token_identity(token, self.nonce).await
    }

    fn creates_users(&self) -> bool {
        self.login.create_users
    }

    fn links_verified_email(&self) -> bool {
        self.login.link_verified_email
    }
}

#[async_trait]
impl TokenVerifier for OAuth2Login {
    async fn verify(&self, token: &str) -> Result<ExternalIdentity> {
        self.identity(token).await
    }

    fn creates_users(&self) -> bool {
        self.create_users
    }

    fn links_verified_email(&self) -> bool {
        self.link_verified_email
    }
}

#[async_trait]
impl Authenticator for OAuth2Login {
    fn name(&self) -> &'static str {
        "oauth2"
    }

    /// The user a bearer token names, created at the first login when
    /// `auth.oauth2.create_users` is on.
    async fn authenticate(&self, credentials: &Credentials) -> Result<ObjectId> {
        match credentials {
            Credentials::BearerToken(token) => {
                self.catalog.identity().external_user(self, token).await
            }
            Credentials::Password { .. } => Err(refused(
                "OAuth 2.0 login takes an access token, not a password",
            )),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;

    fn login(adjust: impl FnOnce(&mut OAuth2Settings)) -> OAuth2Login {
        let mut settings = OAuth2Settings {
            enabled: true,
            issuer: Some("https://id.example.org".into()),
            audience: Some("lore".into()),
            ..OAuth2Settings::default()
        };
        settings.groups = [("lore-admins", "Administrators"), ("stewards", "Stewards")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        adjust(&mut settings);
        let store = Arc::new(lore_backend_memory::MemoryStore::new());
        let catalog = Catalog::new(store, lore_core::catalog::CatalogConfig::default());
        OAuth2Login::from_settings(&settings, catalog)
            .unwrap()
            .unwrap()
    }

    fn claims(value: Value) -> Claims {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn the_group_claim_maps_to_lore_groups() {
        let login = login(|_| {});
        let identity = login
            .identity_from_claims(&claims(json!({
                "preferred_username": "ada",
                "sub": "248289761001",
                "name": "Ada Lovelace",
                "email": "ada@example.org",
                "groups": ["stewards", "unmapped", "lore-admins", "stewards"],
            })))
            .unwrap();
        assert_eq!(identity.user_name, "ada");
        assert_eq!(identity.subject, "248289761001");
        assert_eq!(identity.issuer, login.issuer());
        assert!(!identity.email_verified);
        assert_eq!(identity.full_name.as_deref(), Some("Ada Lovelace"));
        assert_eq!(identity.email.as_deref(), Some("ada@example.org"));
        assert_eq!(identity.groups, ["Administrators", "Stewards"]);
        // A single value is read too; no claim maps to no group.
        let one = login
            .identity_from_claims(&claims(
                json!({"preferred_username": "ada", "sub": "s", "groups": "stewards"}),
            ))
            .unwrap();
        assert_eq!(one.groups, ["Stewards"]);
        let none = login
            .identity_from_claims(&claims(json!({"preferred_username": "ada", "sub": "s"})))
            .unwrap();
        assert!(none.groups.is_empty());
    }

    #[test]
    fn configured_claims_are_read() {
        let login = login(|s| {
            s.user_claim = "upn".into();
            s.groups_claim = "roles".into();
        });
        let identity = login
            .identity_from_claims(&claims(json!({
                "upn": "grace", "sub": "s", "preferred_username": "other", "roles": ["lore-admins"], "groups": ["stewards"],
            })))
            .unwrap();
        assert_eq!(identity.user_name, "grace");
        assert_eq!(identity.groups, ["Administrators"]);
    }

    #[test]
    fn the_subject_is_required_and_a_verified_email_is_read_as_the_provider_writes_it() {
        let login = login(|_| {});
        let error = login
            .identity_from_claims(&claims(json!({"preferred_username": "ada"})))
            .unwrap_err();
        assert!(error.message.contains("'sub'"), "{error}");
        for (verified, expected) in [
            (json!(true), true),
            (json!("true"), true),
            (json!(false), false),
            (json!("yes"), false),
            (json!(1), false),
        ] {
            let identity = login
                .identity_from_claims(&claims(json!({
                    "preferred_username": "ada", "sub": "s", "email": "ada@example.org",
                    "email_verified": verified,
                })))
                .unwrap();
            assert_eq!(identity.email_verified, expected, "{verified}");
        }
    }

    #[test]
    fn a_token_without_the_user_claim_is_refused_not_read_from_sub() {
        let login = login(|_| {});
        let error = login
            .identity_from_claims(&claims(json!({"sub": "1234", "preferred_username": ""})))
            .unwrap_err();
        assert_eq!(error.code, lore_core::ErrorCode::AuthenticationError);
        assert!(
            error.message.contains("'preferred_username'"),
            "{}",
            error.message
        );
    }

    #[test]
    fn introspection_answers_are_checked_like_jwts() {
        let login = login(|s| s.leeway = "0".into());
        let now = now_seconds();
        let good = json!({"active": true, "iss": "https://id.example.org", "aud": ["x", "lore"], "exp": now + 60});
        login
            .check_registered_claims(&claims(good.clone()))
            .unwrap();
        let with = |field: &str, value: Value| {
            let mut c = claims(good.clone());
            c.insert(field.to_owned(), value);
            login.check_registered_claims(&c).unwrap_err().message
        };
        assert!(with("iss", json!("https://evil.example.org")).contains("wrong issuer"));
        assert!(with("aud", json!("other")).contains("wrong audience"));
        assert!(with("exp", json!(now - 5)).contains("expired"));
        assert!(with("nbf", json!(now + 300)).contains("not yet valid"));
    }

    #[tokio::test]
    async fn an_unreachable_provider_is_a_clear_error() {
        // Nothing listens on port 9 of the loopback address.
        let login = login(|s| s.issuer = Some("http://127.0.0.1:9".into()));
        let started = Instant::now();
        let error = login.identity("a.b.c").await.unwrap_err();
        assert!(started.elapsed() < REQUEST_TIMEOUT + Duration::from_secs(5));
        // A malformed JWT is refused before the provider is asked.
        assert_eq!(error.code, lore_core::ErrorCode::AuthenticationError);
        let error = login.identity("opaque-token").await.unwrap_err();
        assert_eq!(error.code, lore_core::ErrorCode::ServerError);
        assert!(
            error.message.contains("cannot reach the OpenID provider"),
            "{}",
            error.message
        );
        assert!(
            !error.message.contains("opaque-token"),
            "the token is never echoed"
        );
    }
}
