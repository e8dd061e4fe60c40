//! Listings a page at a time (architecture §8): `?after=&limit=`, with each listing's cursor format
//! declared in the contract and read exactly as declared, so that a client (or a generator
//! reading `openapi.yaml`) knows which values the server takes: every string the declared
//! pattern matches is a cursor, and nothing else is.

use std::marker::PhantomData;

use utoipa::openapi::ObjectBuilder;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{KnownFormat, Object, SchemaFormat, Type};

use crate::AppError;

/// What a listing's `after` holds: the position of the last item of the previous page.
pub trait Cursor: Sized + std::fmt::Display {
    /// The schema of the cursor's text (a pattern, or a format), as the contract declares it.
    fn schema() -> Object;
    /// The cursor in `text`, when `text` is exactly one (what [`Cursor::schema`] declares).
    fn read(text: &str) -> Option<Self>;
}

fn pattern(regex: &str) -> Object {
    ObjectBuilder::new().schema_type(Type::String).pattern(Some(regex)).build()
}

/// A numbered listing (transfers, draws): the last item's number, 1 to 18 digits.
impl Cursor for i64 {
    fn schema() -> Object {
        pattern("^[0-9]{1,18}$")
    }

    fn read(text: &str) -> Option<Self> {
        let digits = (1..=18).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit());
        if digits { text.parse().ok() } else { None }
    }
}

/// A listing in id order: the last item's id, hyphenated.
impl Cursor for uuid::Uuid {
    fn schema() -> Object {
        pattern(UUID)
    }

    fn read(text: &str) -> Option<Self> {
        hyphenated_uuid(text)
    }
}

/// A listing by day (Powerball drawings): the last item's date, `YYYY-MM-DD`.
impl Cursor for chrono::NaiveDate {
    fn schema() -> Object {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Date)))
            .build()
    }

    fn read(text: &str) -> Option<Self> {
        let shaped =
            text.len() == 10 && text.bytes().enumerate().all(|(i, b)| matches!(i, 4 | 7) == (b == b'-'));
        if shaped { chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").ok() } else { None }
    }
}

const UUID: &str = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

/// `text` as a UUID in its hyphenated form only (the form every cursor and answer uses).
fn hyphenated_uuid(text: &str) -> Option<uuid::Uuid> {
    if text.len() == 36 { uuid::Uuid::try_parse(text).ok() } else { None }
}

/// The cursor of a listing in (time, id) order, newest or oldest first: the last item's time
/// in microseconds since 1970 and its id, `<micros>_<uuid>`. One style for every such list;
/// whole numbers, so that every text of the declared form is a position (a calendar text would
/// declare a form that also matches days no calendar has).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeIdCursor {
    pub at: chrono::DateTime<chrono::Utc>,
    pub id: uuid::Uuid,
}

impl std::fmt::Display for TimeIdCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}_{}", self.at.timestamp_micros(), self.id)
    }
}

impl Cursor for TimeIdCursor {
    fn schema() -> Object {
        pattern(&format!("^[0-9]{{1,16}}_{}", &UUID[1..]))
    }

    fn read(text: &str) -> Option<Self> {
        let (micros, id) = text.split_once('_')?;
        let at = chrono::DateTime::from_timestamp_micros(i64::read(micros).filter(|_| micros.len() <= 16)?)?;
        Some(TimeIdCursor { at, id: hyphenated_uuid(id)? })
    }
}

/// `?after=&limit=` of a listing whose cursor is a `C`. `limit` defaults to 50 and may be 1 to
/// 500. A listing with more to its query keeps these two fields and describes them with
/// [`after_schema`] and [`LIMIT_MIN`]/[`LIMIT_MAX`], then reads them through [`PageParams::new`].
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageParams<C> {
    /// The `next` cursor of the previous page.
    pub after: Option<String>,
    /// Page size, 1 to 500 (default 50).
    pub limit: Option<i64>,
    #[serde(skip)]
    cursor: PhantomData<fn() -> C>,
}

/// The smallest and largest page, as the contract declares them on every `limit`.
pub const LIMIT_MIN: i64 = 1;
pub const LIMIT_MAX: i64 = 500;

/// The schema of a `C` cursor, for a query struct's `#[param(schema_with = ...)]`.
pub fn after_schema<C: Cursor>() -> Object {
    C::schema()
}

impl<C: Cursor> PageParams<C> {
    pub const DEFAULT_LIMIT: i64 = 50;

    pub fn new(after: Option<String>, limit: Option<i64>) -> Self {
        PageParams { after, limit, cursor: PhantomData }
    }

    /// The page size, refused when out of range.
    pub fn limit(&self) -> Result<i64, AppError> {
        match self.limit {
            None => Ok(Self::DEFAULT_LIMIT),
            Some(n) if (LIMIT_MIN..=LIMIT_MAX).contains(&n) => Ok(n),
            Some(_) => Err(AppError::bad_request(
                crate::codes::INVALID_LIMIT,
                format!("limit must be {LIMIT_MIN} to {LIMIT_MAX}"),
            )),
        }
    }

    /// The cursor of the next page: the last item's, when this page came back full.
    pub fn next_cursor(&self, returned: usize, last: Option<C>) -> Option<String> {
        let full = i64::try_from(returned).is_ok_and(|n| n == self.limit().unwrap_or(Self::DEFAULT_LIMIT));
        if full { last.map(|c| c.to_string()) } else { None }
    }

    /// The cursor, refused with `invalid_cursor` when it is not one.
    pub fn after(&self) -> Result<Option<C>, AppError> {
        self.after
            .as_deref()
            .map(|s| {
                C::read(s).ok_or_else(|| {
                    AppError::bad_request(
                        crate::codes::INVALID_CURSOR,
                        "`after` is not a cursor this listing gave",
                    )
                })
            })
            .transpose()
    }
}

impl<C: Cursor> utoipa::IntoParams for PageParams<C> {
    fn into_params(parameter_in: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let place = parameter_in().unwrap_or(ParameterIn::Query);
        vec![
            ParameterBuilder::new()
                .name("after")
                .parameter_in(place.clone())
                .description(Some("The `next` cursor of the previous page."))
                .schema(Some(C::schema()))
                .build(),
            ParameterBuilder::new()
                .name("limit")
                .parameter_in(place)
                .description(Some("Page size, 1 to 500 (default 50)."))
                .schema(Some(
                    ObjectBuilder::new()
                        .schema_type(Type::Integer)
                        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
                        .minimum(Some(LIMIT_MIN))
                        .maximum(Some(LIMIT_MAX)),
                ))
                .build(),
        ]
    }
}

/// A report's window `[since, until)`: `until` now by default, `since` `default` before it;
/// refused with `invalid_window` unless `since` is before `until`.
pub fn window(
    since: Option<chrono::DateTime<chrono::Utc>>,
    until: Option<chrono::DateTime<chrono::Utc>>,
    default: chrono::Duration,
) -> Result<(chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>), AppError> {
    let until = until.unwrap_or_else(chrono::Utc::now);
    let since = since.unwrap_or(until - default);
    if since >= until {
        return Err(AppError::unprocessable(crate::codes::INVALID_WINDOW, "`since` must be before `until`"));
    }
    Ok((since, until))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_are_read_exactly_as_declared() {
        assert_eq!(i64::read("42"), Some(42));
        for bad in ["", "-1", "+1", " 1", "1234567890123456789", "4x"] {
            assert_eq!(i64::read(bad), None, "{bad:?}");
        }
        let id = uuid::Uuid::from_u128(7);
        let at = chrono::DateTime::from_timestamp_micros(1_764_892_800_123_456).unwrap();
        let cursor = TimeIdCursor { at, id };
        assert_eq!(TimeIdCursor::read(&cursor.to_string()), Some(cursor));
        assert_eq!(TimeIdCursor::read(&format!("{}_{}", 1, id.simple())), None);
        assert_eq!(TimeIdCursor::read("12345678901234567_00000000-0000-0000-0000-000000000007"), None);
        assert_eq!(uuid::Uuid::read(&id.to_string()), Some(id));
        assert_eq!(uuid::Uuid::read(&id.simple().to_string()), None);
        assert_eq!(chrono::NaiveDate::read("2026-12-05"), chrono::NaiveDate::from_ymd_opt(2026, 12, 5));
        for bad in ["2026-12-5", "+2026-12-05", "2026-02-30", "20261205"] {
            assert_eq!(chrono::NaiveDate::read(bad), None, "{bad:?}");
        }
    }
}
