//! The audit chain of draws and outcomes, verified end to end by operators and auditors.

use axum::extract::State;
use platform::auth::{Caller, Role};
use platform::openapi::Refused;
use platform::{AppError, Json};

use crate::DrawsState;

#[utoipa::path(
    get, path = "/v1/draws/audit/verify", tag = "keno",
    responses((status = 200, description = "the audit chain walked end to end", body = platform::audit::ChainReport),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/draws/audit/verify`: operators and auditors check every outcome's chain.
pub async fn verify_audit(
    State(state): State<DrawsState>,
    caller: Caller,
) -> Result<Json<platform::audit::ChainReport>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor, Role::Service])?;
    Ok(Json(platform::audit::verify(&state.pool).await?))
}
