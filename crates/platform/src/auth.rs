//! Identity on the wire: signed access tokens, the roles they carry, and the extractor with which
//! every service verifies them itself (architecture §7), so a request that reaches a service directly
//! without a valid token gets a 401 however it got there.
//!
//! Tokens are HS256 JWTs signed with `LOTTO_TOKEN_SECRET`, shared by every service of a
//! deployment. They are short-lived; the gateway also ends sessions early (logout,
//! self-exclusion) by refusing their session id at the front door.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{FromRef, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::AppError;

/// Who a caller is, which decides every route (architecture §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Player,
    /// A retailer's terminal.
    Retailer,
    Operator,
    /// Reads everything an operator reads; writes nothing.
    Auditor,
    /// Another service of the platform.
    Service,
}

impl Role {
    pub const ALL: [Role; 5] = [Role::Player, Role::Retailer, Role::Operator, Role::Auditor, Role::Service];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Player => "player",
            Role::Retailer => "retailer",
            Role::Operator => "operator",
            Role::Auditor => "auditor",
            Role::Service => "service",
        }
    }

    /// The role [`Role::as_str`] names.
    pub fn parse(text: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == text)
    }
}

/// What a token says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// The subject: a player id, terminal id, staff id or service name.
    pub sub: String,
    pub role: Role,
    /// The gateway session the token belongs to (absent on service tokens).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sid: Option<Uuid>,
    /// The organisation the subject acts for: a terminal's retailer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub org: Option<String>,
    /// Where a terminal stands, by the names people read (its receipts print them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<Place>,
    pub iat: i64,
    pub exp: i64,
    pub iss: String,
}

/// A terminal's shop and the terminal itself, as the operator named them (the gateway's
/// retailers and terminals): what a till shows and what its receipts print, instead of ids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Place {
    /// The shop's name.
    pub shop: String,
    /// The shop's address, when the operator gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// The terminal's label.
    pub terminal: String,
}

const ISSUER: &str = "lotto";
/// The shortest secret accepted: HS256 wants at least 256 bits.
pub const MIN_SECRET_BYTES: usize = 32;
/// How long a service token lives.
pub const SERVICE_TOKEN_TTL: Duration = Duration::from_secs(300);

struct Keys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
}

/// The signing and verifying keys of a deployment.
#[derive(Clone)]
pub struct TokenKeys(Arc<Keys>);

impl std::fmt::Debug for TokenKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenKeys(..)") // never print the secret
    }
}

impl TokenKeys {
    /// Keys from a shared secret of at least [`MIN_SECRET_BYTES`] bytes.
    pub fn from_secret(secret: &[u8]) -> Result<Self, String> {
        if secret.len() < MIN_SECRET_BYTES {
            return Err(format!("the token secret must be at least {MIN_SECRET_BYTES} bytes"));
        }
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 5;
        validation.set_issuer(&[ISSUER]);
        validation.set_required_spec_claims(&["exp", "iss", "sub"]);
        Ok(TokenKeys(Arc::new(Keys {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
        })))
    }

    /// Keys from a fresh random secret: for one process (the `lotto` default) and tests.
    pub fn random() -> Self {
        let secret = random_bytes::<32>();
        // 32 bytes is the minimum, so this cannot fail.
        Self::from_secret(&secret).unwrap_or_else(|_| unreachable_keys())
    }

    /// Signs a token for `sub` in `role`, valid for `ttl`.
    pub fn issue(&self, sub: &str, role: Role, sid: Option<Uuid>, ttl: Duration) -> Result<String, AppError> {
        self.issue_for(sub, role, sid, None, ttl)
    }

    /// Signs a token for `sub` acting for organisation `org` (a terminal for its retailer).
    pub fn issue_for(
        &self,
        sub: &str,
        role: Role,
        sid: Option<Uuid>,
        org: Option<&str>,
        ttl: Duration,
    ) -> Result<String, AppError> {
        self.issue_at(sub, role, sid, org, None, ttl)
    }

    /// Signs a token for `sub` acting for `org` at `place` (a terminal, by its names).
    pub fn issue_at(
        &self,
        sub: &str,
        role: Role,
        sid: Option<Uuid>,
        org: Option<&str>,
        place: Option<&Place>,
        ttl: Duration,
    ) -> Result<String, AppError> {
        let now = chrono::Utc::now().timestamp();
        let ttl = i64::try_from(ttl.as_secs()).unwrap_or(i64::MAX);
        let claims = Claims {
            sub: sub.to_owned(),
            role,
            sid,
            org: org.map(str::to_owned),
            place: place.cloned(),
            iat: now,
            exp: now.saturating_add(ttl),
            iss: ISSUER.to_owned(),
        };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.0.encoding)
            .map_err(AppError::internal)
    }

    /// A token with which service `name` calls other services.
    pub fn service_token(&self, name: &str) -> Result<String, AppError> {
        self.issue(name, Role::Service, None, SERVICE_TOKEN_TTL)
    }

    /// Checks signature, issuer and expiry.
    pub fn verify(&self, token: &str) -> Result<Claims, AppError> {
        match jsonwebtoken::decode::<Claims>(token, &self.0.decoding, &self.0.validation) {
            Ok(data) => Ok(data.claims),
            Err(e) if matches!(e.kind(), jsonwebtoken::errors::ErrorKind::ExpiredSignature) => Err(
                unauthenticated(crate::codes::TOKEN_EXPIRED, "the access token has expired; log in again"),
            ),
            Err(_) => Err(unauthenticated(crate::codes::INVALID_TOKEN, "the access token is not valid")),
        }
    }
}

fn unreachable_keys() -> TokenKeys {
    // from_secret only fails on a short secret; random() always passes 32 bytes.
    let mut validation = Validation::new(Algorithm::HS256);
    validation.set_issuer(&[ISSUER]);
    TokenKeys(Arc::new(Keys {
        encoding: EncodingKey::from_secret(&[0; 32]),
        decoding: DecodingKey::from_secret(&[0; 32]),
        validation,
    }))
}

/// `N` bytes from the operating system's generator.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    if getrandom::fill(&mut bytes).is_err() {
        // Without an OS generator nothing secure can be made; stop rather than go on predictably.
        std::process::abort();
    }
    bytes
}

/// A 401 with the `WWW-Authenticate` challenge RFC 9110 asks for.
pub fn unauthenticated(code: crate::codes::CodeName, detail: &str) -> AppError {
    AppError::new(StatusCode::UNAUTHORIZED, code, detail)
        .with_header(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"))
}

/// The verified caller of a request.
#[derive(Debug, Clone)]
pub struct Caller(pub Claims);

impl Caller {
    pub fn role(&self) -> Role {
        self.0.role
    }

    pub fn subject(&self) -> &str {
        &self.0.sub
    }

    /// The organisation the caller acts for (a terminal's retailer), if any.
    pub fn organization(&self) -> Option<&str> {
        self.0.org.as_deref()
    }

    /// Where the caller stands (a terminal's shop and label), if its token says.
    pub fn place(&self) -> Option<&Place> {
        self.0.place.as_ref()
    }

    /// 403 unless the caller has one of `roles`.
    pub fn require(&self, roles: &[Role]) -> Result<(), AppError> {
        if roles.contains(&self.0.role) { Ok(()) } else { Err(forbidden()) }
    }
}

/// The 403 every refused role gets.
pub fn forbidden() -> AppError {
    AppError::new(StatusCode::FORBIDDEN, crate::codes::FORBIDDEN, "your role may not do this")
}

/// The bearer token of a request, if it carries one: the one parser of the `Authorization`
/// header, used by every service and by the gateway's rate limiter alike. The scheme is
/// case-insensitive (RFC 9110 §11.1), so `BEARER x` and `bearer x` are `Bearer x`.
pub fn bearer_token(headers: &axum::http::HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim_start().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim()).filter(|t| !t.is_empty())
}

/// Marks a request a service received from another in the same process (no socket, no span
/// of its own: `Upstream::Local`): what it learns of its caller is not the request's caller,
/// whose span it runs in.
#[derive(Debug, Clone, Copy)]
pub struct InProcess;

/// Who asked, on the request's span (its log lines and its trace): the kind and the subject's
/// id, never the token.
pub fn record_caller(claims: &Claims) {
    let span = tracing::Span::current();
    span.record("caller_kind", claims.role.as_str());
    span.record("caller_id", claims.sub.as_str());
}

impl<S: Send + Sync> FromRequestParts<S> for Caller
where
    TokenKeys: FromRef<S>,
{
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let token = bearer_token(&parts.headers).ok_or_else(|| {
            unauthenticated(crate::codes::UNAUTHENTICATED, "send `Authorization: Bearer <access token>`")
        })?;
        let caller = TokenKeys::from_ref(state).verify(token).map(Caller)?;
        // A call from another service in this process runs in the span of the request that
        // caused it, whose caller is the one to log.
        if parts.extensions.get::<InProcess>().is_none() {
            record_caller(&caller.0);
        }
        Ok(caller)
    }
}

/// The roles a route admits, as a type: a handler that takes [`Allowed<R>`] has its caller's
/// role checked by the extractor, before its body is read, so a caller of the wrong role gets 403
/// whatever the body holds.
pub trait RoleSet: Send + Sync + 'static {
    const ROLES: &'static [Role];
}

/// A verified caller whose role is one of `R::ROLES`.
#[derive(Debug, Clone)]
pub struct Allowed<R>(pub Caller, std::marker::PhantomData<R>);

impl<R> std::ops::Deref for Allowed<R> {
    type Target = Caller;
    fn deref(&self) -> &Caller {
        &self.0
    }
}

impl<S: Send + Sync, R: RoleSet> FromRequestParts<S> for Allowed<R>
where
    TokenKeys: FromRef<S>,
{
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let caller = Caller::from_request_parts(parts, state).await?;
        caller.require(R::ROLES)?;
        Ok(Allowed(caller, std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_round_trips_and_tampering_is_refused() {
        let keys = TokenKeys::random();
        let token = keys.issue("p-1", Role::Player, Some(Uuid::nil()), Duration::from_secs(60)).unwrap();
        let claims = keys.verify(&token).unwrap();
        assert_eq!((claims.sub.as_str(), claims.role, claims.sid), ("p-1", Role::Player, Some(Uuid::nil())));

        // Change the role in the payload, keep the signature.
        let parts: Vec<&str> = token.split('.').collect();
        let forged_claims = Claims { role: Role::Operator, ..claims };
        let forged_payload = {
            use base64::Engine;
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode(serde_json::to_vec(&forged_claims).unwrap())
        };
        let forged = format!("{}.{}.{}", parts[0], forged_payload, parts[2]);
        assert_eq!(keys.verify(&forged).unwrap_err().code(), "invalid_token");
        // Another deployment's key.
        assert_eq!(TokenKeys::random().verify(&token).unwrap_err().code(), "invalid_token");
        assert_eq!(keys.verify("not.a.token").unwrap_err().code(), "invalid_token");
    }

    #[test]
    fn an_expired_token_is_refused() {
        let keys = TokenKeys::random();
        let now = chrono::Utc::now().timestamp();
        let claims = Claims {
            sub: "p".into(),
            role: Role::Player,
            sid: None,
            org: None,
            place: None,
            iat: now - 120,
            exp: now - 60,
            iss: ISSUER.into(),
        };
        let token = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &keys.0.encoding).unwrap();
        assert_eq!(keys.verify(&token).unwrap_err().code(), "token_expired");
    }

    #[test]
    fn short_secrets_are_refused() {
        assert!(TokenKeys::from_secret(b"too short").is_err());
        assert!(TokenKeys::from_secret(&[7; 32]).is_ok());
    }
}
