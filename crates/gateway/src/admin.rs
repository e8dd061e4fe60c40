//! Operators' work: staff accounts, retailers and their terminals' API keys.

use axum::extract::State;
use axum::http::StatusCode;
use axum::http::{HeaderName, HeaderValue};
use chrono::{DateTime, Utc};
use ledger_api::wire::Page;
use platform::auth::Role;
use platform::openapi::Refused;
use platform::{AppError, Json, Path};
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use uuid::Uuid;

use crate::GatewayState;
use crate::credentials::{hash_password, new_api_key, validate_password};
use crate::sessions::{Authenticated, end_sessions};
use crate::store::staff as store;

const READERS: &[Role] = &[Role::Operator, Role::Auditor];
const WRITERS: &[Role] = &[Role::Operator];

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewStaff {
    pub username: String,
    pub password: String,
    pub role: Role,
}

/// Creates an operator or auditor; `created_by` is None only for the first, made by `lotto admin`.
pub async fn create_staff(
    pool: &PgPool,
    username: &str,
    password: String,
    role: Role,
    created_by: Option<Uuid>,
) -> Result<Uuid, AppError> {
    let username = username.trim().to_lowercase();
    let valid = (3..=64).contains(&username.len())
        && username.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    if !valid {
        return Err(AppError::unprocessable(
            "invalid_username",
            "a username is 3 to 64 of a-z, 0-9, '.', '-', '_'",
        ));
    }
    if !matches!(role, Role::Operator | Role::Auditor) {
        return Err(AppError::unprocessable("invalid_role", "staff are operators or auditors"));
    }
    validate_password(&password, &username)?;
    let hash = hash_password(password).await?;
    let id = Uuid::now_v7();
    if !store::insert_staff(pool, id, &username, &hash, role.as_str(), created_by).await? {
        return Err(AppError::conflict("username_taken", "that username is taken"));
    }
    Ok(id)
}

#[utoipa::path(
    post, path = "/v1/staff", tag = "administration", request_body = NewStaff,
    responses((status = 201, description = "created", body = NewStaffView), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
/// `POST /v1/staff`: operators add a staff member (operator or auditor).
pub async fn add_staff(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Json(request): Json<NewStaff>,
) -> Result<(StatusCode, Json<NewStaffView>), AppError> {
    caller.require(WRITERS)?;
    let id = create_staff(
        &state.pool,
        &request.username,
        request.password,
        request.role,
        Some(caller.subject_id()?),
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        Json(NewStaffView { id, username: request.username.trim().to_lowercase(), role: request.role }),
    ))
}

/// A staff member just created.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct NewStaffView {
    pub id: Uuid,
    pub username: String,
    pub role: Role,
}

/// A staff member as listed.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct StaffMember {
    pub id: Uuid,
    pub username: String,
    pub role: Role,
    pub last_login_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

/// A terminal just created, with its API key: shown in this answer and nowhere else, ever.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct NewTerminalView {
    pub id: Uuid,
    pub retailer_id: Uuid,
    pub label: String,
    /// The key's first characters, by which it is found and shown later.
    pub key_prefix: String,
    pub api_key: String,
}

#[utoipa::path(
    get, path = "/v1/staff", tag = "administration",
    responses((status = 200, description = "operators and auditors, every one on one page", body = Page<StaffMember>), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
/// `GET /v1/staff`: operators list the staff.
pub async fn list_staff(
    State(state): State<GatewayState>,
    caller: Authenticated,
) -> Result<Json<Page<StaffMember>>, AppError> {
    caller.require(READERS)?;
    let items = store::list_staff(&state.pool)
        .await?
        .into_iter()
        .map(|r| {
            Ok(StaffMember {
                role: Role::parse(&r.role)
                    .ok_or_else(|| AppError::internal(format!("a stored role {:?}", r.role)))?,
                id: r.id,
                username: r.username,
                last_login_at: r.last_login_at,
                created_at: r.created_at,
            })
        })
        .collect::<Result<_, AppError>>()?;
    Ok(Json(Page { items, next: None }))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewRetailer {
    pub name: String,
    /// The shop's address, printed under its name on its tills' receipts (1 to 300 characters).
    #[serde(default)]
    #[schema(min_length = 1, max_length = 300)]
    pub address: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Retailer {
    pub id: Uuid,
    pub name: String,
    pub address: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl From<store::RetailerRow> for Retailer {
    fn from(row: store::RetailerRow) -> Self {
        Retailer { id: row.id, name: row.name, address: row.address, created_at: row.created_at }
    }
}

#[utoipa::path(
    post, path = "/v1/retailers", tag = "administration", request_body = NewRetailer,
    responses((status = 201, description = "created", body = Retailer), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
/// `POST /v1/retailers`: operators add a retailer.
pub async fn add_retailer(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Json(request): Json<NewRetailer>,
) -> Result<(StatusCode, Json<Retailer>), AppError> {
    caller.require(WRITERS)?;
    let name = request.name.trim();
    if name.is_empty() || name.len() > 200 {
        return Err(AppError::unprocessable("invalid_name", "a name is 1 to 200 characters"));
    }
    let address = request.address.as_deref().map(str::trim);
    if address.is_some_and(|a| a.is_empty() || a.chars().count() > 300) {
        return Err(AppError::unprocessable("invalid_address", "an address is 1 to 300 characters"));
    }
    let row = store::insert_retailer(&state.pool, Uuid::now_v7(), name, address).await?;
    Ok((StatusCode::CREATED, Json(Retailer::from(row))))
}

#[utoipa::path(
    get, path = "/v1/retailers", tag = "administration",
    responses((status = 200, description = "retailers, every one on one page", body = Page<Retailer>), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
/// `GET /v1/retailers`: operators list the retailers.
pub async fn list_retailers(
    State(state): State<GatewayState>,
    caller: Authenticated,
) -> Result<Json<Page<Retailer>>, AppError> {
    caller.require(READERS)?;
    let items: Vec<Retailer> =
        store::list_retailers(&state.pool).await?.into_iter().map(Retailer::from).collect();
    Ok(Json(Page { items, next: None }))
}

/// `PATCH /v1/retailers/{id}`: what changes; a field left out stays as it is.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RetailerChange {
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    /// The new address; `null` takes the address away.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, min_length = 1, max_length = 300)]
    pub address: Option<Option<String>>,
}

/// A field that is present, even as `null`, is `Some`: `null` means "no address" here.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(deserializer).map(Some)
}

#[utoipa::path(
    patch, path = "/v1/retailers/{id}", tag = "administration", request_body = RetailerChange,
    params(("id" = Uuid, Path, description = "retailer id")),
    responses((status = 200, description = "the retailer as it now stands; its tills' tokens name it so from their next renewal", body = Retailer),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `PATCH /v1/retailers/{id}`: operators rename a shop or change its address (receipts printed
/// before keep the names they printed).
pub async fn change_retailer(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
    Json(change): Json<RetailerChange>,
) -> Result<Json<Retailer>, AppError> {
    caller.require(WRITERS)?;
    let name = change.name.as_deref().map(str::trim);
    if name.is_some_and(|n| n.is_empty() || n.chars().count() > 200) {
        return Err(AppError::unprocessable("invalid_name", "a name is 1 to 200 characters"));
    }
    let address = change.address.as_ref().map(|a| a.as_deref().map(str::trim));
    if address.flatten().is_some_and(|a| a.is_empty() || a.chars().count() > 300) {
        return Err(AppError::unprocessable("invalid_address", "an address is 1 to 300 characters"));
    }
    let row = store::change_retailer(&state.pool, id, name, address)
        .await?
        .ok_or_else(|| AppError::not_found("retailer_not_found", format!("retailer {id} does not exist")))?;
    Ok(Json(Retailer::from(row)))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTerminal {
    pub label: String,
}

/// `POST /v1/retailers/{id}/terminals`: the API key is in this answer and nowhere else, ever.
#[utoipa::path(
    post, path = "/v1/retailers/{id}/terminals", tag = "administration", params(("id" = Uuid, Path, description = "retailer id")),
    request_body = NewTerminal,
    responses((status = 201, description = "created; `api_key` is shown here once and never again", body = NewTerminalView), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn add_terminal(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(retailer): Path<Uuid>,
    Json(request): Json<NewTerminal>,
) -> Result<(StatusCode, [(HeaderName, HeaderValue); 2], Json<NewTerminalView>), AppError> {
    caller.require(WRITERS)?;
    let label = request.label.trim();
    if label.is_empty() || label.len() > 200 {
        return Err(AppError::unprocessable("invalid_label", "a label is 1 to 200 characters"));
    }
    if !store::retailer_exists(&state.pool, retailer).await? {
        return Err(AppError::not_found("retailer_not_found", format!("retailer {retailer} does not exist")));
    }
    let (api_key, prefix, digest) = new_api_key();
    let id = Uuid::now_v7();
    store::insert_terminal(&state.pool, id, retailer, label, &prefix, &digest).await?;
    Ok((
        StatusCode::CREATED,
        platform::http::no_store(),
        Json(NewTerminalView {
            id,
            retailer_id: retailer,
            label: label.to_owned(),
            key_prefix: prefix,
            api_key,
        }),
    ))
}

/// `DELETE /v1/terminals/{id}`: the key stops working and the terminal's sessions end now.
#[utoipa::path(
    delete, path = "/v1/terminals/{id}", tag = "administration", params(("id" = Uuid, Path, description = "terminal id")),
    responses((status = 204, description = "revoked: the key and the terminal's sessions stop working now"), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn revoke_terminal(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
) -> Result<StatusCode, AppError> {
    caller.require(WRITERS)?;
    if !store::revoke_terminal(&state.pool, id).await? {
        return Err(AppError::not_found("terminal_not_found", format!("terminal {id} does not exist")));
    }
    end_sessions(&state, &id.to_string(), None, "key_revoked").await?;
    Ok(StatusCode::NO_CONTENT)
}
