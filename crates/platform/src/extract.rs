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
        // Every body the API takes is an object; serde would also read a struct from an array
        // of its fields in order (`[null, null]`), which the contract does not allow.
        if bytes.iter().find(|b| !b.is_ascii_whitespace()).is_some_and(|&b| b != b'{') {
            return Err(AppError::unprocessable(
                crate::codes::INVALID_BODY,
                "the body must be a JSON object",
            ));
        }
        match axum::Json::<T>::from_bytes(&bytes) {
            Ok(axum::Json(value)) => Ok(Json(value)),
            Err(rejection @ JsonRejection::JsonDataError(_)) => {
                whole_numbers_as_integers(&bytes).ok_or_else(|| json_rejection(&rejection)).map(Json)
            }
            Err(rejection) => Err(json_rejection(&rejection)),
        }
    }
}

/// The body read again with every whole number written as a float (`5.0`, `5e2`) taken as the
/// integer it equals, when it held one: JSON, and JSON Schema's `integer` in the contract, make
/// no difference between `5` and `5.0`, and a client whose language has only doubles writes the
/// latter. Only on the path of a body that failed, so the usual body is read once.
fn whole_numbers_as_integers<T: DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    fn mend(value: &mut serde_json::Value) -> bool {
        match value {
            serde_json::Value::Number(n) if n.is_f64() => {
                // Within ±2^53 every whole double is exact, and an i64.
                let whole = n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0);
                #[allow(clippy::cast_possible_truncation)]
                let integer = whole.map(|f| serde_json::Number::from(f as i64));
                integer.map(|i| *n = i).is_some()
            }
            serde_json::Value::Array(items) => items.iter_mut().map(mend).fold(false, |a, b| a | b),
            serde_json::Value::Object(fields) => fields.values_mut().map(mend).fold(false, |a, b| a | b),
            _ => false,
        }
    }
    let mut value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    if mend(&mut value) { serde_json::from_value(value).ok() } else { None }
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

/// A body sent as a CSV file (`text/csv`, UTF-8) or as the same rows in JSON
/// (`application/json`, read as [`Json`] reads it): for the imports a person sends as a file
/// and a generated client sends as data. Any other type is 415; a file that is not UTF-8, 400
/// `unreadable_body`; text holding U+0000, 422 `nul_in_text`.
#[derive(Debug, Clone)]
pub enum CsvOrJson<T> {
    Csv(String),
    Json(T),
}

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for CsvOrJson<T> {
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        if is_json(req.headers()) {
            return Json::<T>::from_request(req, state).await.map(|Json(rows)| CsvOrJson::Json(rows));
        }
        let essence = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.split(';').next().unwrap_or_default().trim().to_ascii_lowercase());
        if essence.as_deref() != Some("text/csv") {
            return Err(AppError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                crate::codes::UNSUPPORTED_MEDIA_TYPE,
                "the body is a CSV file (`Content-Type: text/csv`) or its rows as JSON (`application/json`)",
            ));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|e| bytes_rejection(&e))?;
        let text = String::from_utf8(bytes.to_vec()).map_err(|e| {
            AppError::bad_request(
                crate::codes::UNREADABLE_BODY,
                format!(
                    "the file is not UTF-8 text (its first byte that is not is at offset {})",
                    e.utf8_error().valid_up_to()
                ),
            )
        })?;
        if text.contains('\0') {
            return Err(nul_in_text());
        }
        Ok(CsvOrJson::Csv(text))
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

/// The optional `Idempotency-Key` header of a POST that moves money (architecture §8).
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

#[cfg(test)]
mod tests {
    use super::whole_numbers_as_integers;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Stake {
        amount: i64,
        spots: Vec<u8>,
        ratio: f64,
    }

    #[test]
    fn whole_numbers_written_as_floats_are_the_integers_they_equal() {
        let read =
            whole_numbers_as_integers::<Stake>(br#"{"amount": 500.0, "spots": [1, 2e1], "ratio": 2.0}"#);
        assert_eq!(read, Some(Stake { amount: 500, spots: vec![1, 20], ratio: 2.0 }));
        // A fraction is not a whole number, and a body with no float is left to its first refusal.
        assert_eq!(
            whole_numbers_as_integers::<Stake>(br#"{"amount": 500.5, "spots": [], "ratio": 1}"#),
            None
        );
        assert_eq!(whole_numbers_as_integers::<Stake>(br#"{"amount": "5", "spots": [], "ratio": 1}"#), None);
    }
}
