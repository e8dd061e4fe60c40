//! Extractors whose rejections are problems with stable codes, not axum's plain-text bodies.
//!
//! Handlers take `platform::Json<T>`, `platform::Path<T>` and `platform::Query<T>` instead of
//! axum's, so malformed JSON, a missing field, an oversized body or a bad path segment all
//! answer with `application/problem+json`.
//!
//! They are also the one place text from a client is refused for holding the NUL character
//! (U+0000): Postgres cannot store it in `text`, so it would otherwise fail deep inside a
//! handler. A JSON body with `\u0000` in any string or key, or a path or query with `%00`,
//! answers 422 `nul_in_text` before a handler runs.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::AppError;

/// A JSON body (request) or JSON response.
#[derive(Debug, Clone, Copy, Default)]
pub struct Json<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Json<T> {
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        if !is_json(req.headers()) {
            return Err(unsupported_media_type());
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|e| bytes_rejection(&e))?;
        if has_escaped_nul(&bytes) {
            return Err(nul_in_text());
        }
        match axum::Json::<T>::from_bytes(&bytes) {
            Ok(axum::Json(value)) => Ok(Json(value)),
            Err(rejection) => Err(json_rejection(&rejection)),
        }
    }
}

/// `application/json`, or any `application/*+json`, parameters aside.
fn is_json(headers: &HeaderMap) -> bool {
    let Some(value) = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let essence = value.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json"))
}

fn unsupported_media_type() -> AppError {
    AppError::new(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        crate::codes::UNSUPPORTED_MEDIA_TYPE,
        "the body must be JSON with `Content-Type: application/json`",
    )
}

fn bytes_rejection(rejection: &BytesRejection) -> AppError {
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        AppError::new(StatusCode::PAYLOAD_TOO_LARGE, crate::codes::BODY_TOO_LARGE, rejection.body_text())
    } else {
        AppError::bad_request(crate::codes::UNREADABLE_BODY, rejection.body_text())
    }
}

/// The one refusal of text holding U+0000.
pub fn nul_in_text() -> AppError {
    AppError::unprocessable(crate::codes::NUL_IN_TEXT, "text may not contain the NUL character (U+0000)")
}

/// True when a JSON text holds the escape `\u0000` (a NUL in a string or key; a raw NUL byte is
/// not valid JSON at all). An escaped backslash before `u0000` is text, not an escape: the
/// backslashes before the `u` must be odd in number.
pub fn has_escaped_nul(json: &[u8]) -> bool {
    json.windows(6).enumerate().any(|(at, window)| {
        window == b"\\u0000"
            && json.get(..at).unwrap_or_default().iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0
    })
}

/// True when a URI part (path or query) percent-encodes a NUL.
fn has_encoded_nul(text: &str) -> bool {
    text.as_bytes().windows(3).any(|w| w.eq_ignore_ascii_case(b"%00"))
}

impl<T: Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}

fn json_rejection(rejection: &JsonRejection) -> AppError {
    match rejection {
        JsonRejection::JsonDataError(e) => {
            AppError::new(StatusCode::UNPROCESSABLE_ENTITY, crate::codes::INVALID_BODY, e.body_text())
        }
        JsonRejection::JsonSyntaxError(e) => {
            AppError::bad_request(crate::codes::MALFORMED_JSON, e.body_text())
        }
        JsonRejection::MissingJsonContentType(_) => unsupported_media_type(),
        JsonRejection::BytesRejection(e) => bytes_rejection(e),
        other => AppError::bad_request(crate::codes::UNREADABLE_BODY, other.body_text()),
    }
}

/// Path parameters.
#[derive(Debug, Clone, Copy, Default)]
pub struct Path<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Path<T> {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        if has_encoded_nul(parts.uri.path()) {
            return Err(nul_in_text());
        }
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(value)) => Ok(Path(value)),
            Err(rejection) => Err(path_rejection(&rejection)),
        }
    }
}

fn path_rejection(rejection: &PathRejection) -> AppError {
    match rejection {
        PathRejection::FailedToDeserializePathParams(e) => {
            AppError::bad_request(crate::codes::INVALID_PATH, e.body_text())
        }
        other => AppError::internal(other.body_text()),
    }
}

/// Query-string parameters.
#[derive(Debug, Clone, Copy, Default)]
pub struct Query<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        if has_encoded_nul(parts.uri.query().unwrap_or_default()) {
            return Err(nul_in_text());
        }
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(value)) => Ok(Query(value)),
            Err(rejection) => Err(query_rejection(&rejection)),
        }
    }
}

fn query_rejection(rejection: &QueryRejection) -> AppError {
    AppError::bad_request(crate::codes::INVALID_QUERY, rejection.body_text())
}

/// The optional `Idempotency-Key` header of a POST that moves money (DESIGN §8).
///
/// A key is 1 to 255 visible ASCII characters; anything else is refused with
/// `invalid_idempotency_key` rather than silently ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdempotencyKey(pub Option<String>);

/// The header's name.
pub const IDEMPOTENCY_KEY_HEADER: &str = "idempotency-key";

impl<S: Send + Sync> FromRequestParts<S> for IdempotencyKey {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let Some(value) = parts.headers.get(IDEMPOTENCY_KEY_HEADER) else {
            return Ok(IdempotencyKey(None));
        };
        let key = value
            .to_str()
            .ok()
            .filter(|k| (1..=255).contains(&k.len()) && k.bytes().all(|b| b.is_ascii_graphic()));
        match key {
            Some(key) => Ok(IdempotencyKey(Some(key.to_owned()))),
            None => Err(AppError::bad_request(
                crate::codes::INVALID_IDEMPOTENCY_KEY,
                "Idempotency-Key must be 1 to 255 visible ASCII characters",
            )),
        }
    }
}

impl IdempotencyKey {
    /// The key, which this request must carry (a purchase, a deal: anything a retry could
    /// otherwise make twice); 400 `missing_idempotency_key` without it.
    pub fn required(&self) -> Result<&str, AppError> {
        self.0.as_deref().ok_or_else(|| {
            AppError::bad_request(crate::codes::MISSING_IDEMPOTENCY_KEY, "send an Idempotency-Key header")
        })
    }

    /// The id a request is known by: the body's `id`, else one derived from the header (the key
    /// itself when it is a UUID, else a UUIDv5 of it in `namespace`). Both, when they disagree,
    /// or neither, is a 400.
    pub fn resolve(
        &self,
        body_id: Option<uuid::Uuid>,
        namespace: &uuid::Uuid,
    ) -> Result<uuid::Uuid, AppError> {
        let from_header = self
            .0
            .as_deref()
            .map(|key| key.parse().unwrap_or_else(|_| uuid::Uuid::new_v5(namespace, key.as_bytes())));
        match (body_id, from_header) {
            (Some(a), Some(b)) if a != b => Err(AppError::bad_request(
                crate::codes::IDEMPOTENCY_KEY_MISMATCH,
                "the body's id and the Idempotency-Key header name different requests",
            )),
            (Some(id), _) | (None, Some(id)) => Ok(id),
            (None, None) => Err(AppError::bad_request(
                crate::codes::MISSING_IDEMPOTENCY_KEY,
                "send an Idempotency-Key header or an `id` in the body, so a retry cannot apply twice",
            )),
        }
    }
}

impl IdempotencyKey {
    /// The id of item `index` of a batch: its own `id`, else one derived from the header's key
    /// and its place in the batch (so a batch sent again with the same key is the same batch).
    /// Neither is a 422 `missing_field` naming the item.
    pub fn resolve_item(
        &self,
        item_id: Option<uuid::Uuid>,
        index: usize,
        namespace: &uuid::Uuid,
    ) -> Result<uuid::Uuid, AppError> {
        match (item_id, self.0.as_deref()) {
            (Some(id), _) => Ok(id),
            (None, Some(key)) => Ok(uuid::Uuid::new_v5(namespace, format!("{key}#{index}").as_bytes())),
            (None, None) => Err(AppError::unprocessable(
                crate::codes::MISSING_FIELD,
                "every transfer of a batch needs its own `id`, or the batch an Idempotency-Key header",
            )),
        }
    }
}

/// `?after=&limit=` of a listing (DESIGN §8). `limit` defaults to 50 and may be 1 to 500.
#[derive(Debug, Clone, Default, serde::Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// The `next` cursor of the previous page.
    pub after: Option<String>,
    /// Page size, 1 to 500 (default 50).
    pub limit: Option<i64>,
}

impl PageParams {
    pub const DEFAULT_LIMIT: i64 = 50;
    pub const MAX_LIMIT: i64 = 500;

    /// The page size, refused when out of range.
    pub fn limit(&self) -> Result<i64, AppError> {
        match self.limit {
            None => Ok(Self::DEFAULT_LIMIT),
            Some(n) if (1..=Self::MAX_LIMIT).contains(&n) => Ok(n),
            Some(_) => Err(AppError::bad_request(
                crate::codes::INVALID_LIMIT,
                format!("limit must be 1 to {}", Self::MAX_LIMIT),
            )),
        }
    }

    /// The cursor of the next page: the last item's, when this page came back full.
    pub fn next_cursor<C: std::fmt::Display>(&self, returned: usize, last: Option<C>) -> Option<String> {
        let full = i64::try_from(returned).is_ok_and(|n| n == self.limit().unwrap_or(Self::DEFAULT_LIMIT));
        if full { last.map(|c| c.to_string()) } else { None }
    }

    /// The cursor parsed as `T`, refused with `invalid_cursor` when it is not one.
    pub fn after<T: std::str::FromStr>(&self) -> Result<Option<T>, AppError> {
        self.after
            .as_deref()
            .map(|s| {
                s.parse().map_err(|_| {
                    AppError::bad_request(
                        crate::codes::INVALID_CURSOR,
                        "`after` is not a cursor this listing gave",
                    )
                })
            })
            .transpose()
    }
}

/// The cursor of a listing in (time, id) order, newest or oldest first: the last item's time
/// (RFC 3339, microseconds) and id, `<time>_<uuid>`. One style for every such list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeIdCursor {
    pub at: chrono::DateTime<chrono::Utc>,
    pub id: uuid::Uuid,
}

impl std::fmt::Display for TimeIdCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}_{}", self.at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true), self.id)
    }
}

impl std::str::FromStr for TimeIdCursor {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        let (at, id) = s.split_once('_').ok_or(())?;
        Ok(TimeIdCursor { at: at.parse().map_err(|_| ())?, id: id.parse().map_err(|_| ())? })
    }
}
