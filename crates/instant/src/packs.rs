//! Packs: an operator assigns a printed pack to a retailer, the retailer's terminal activates it,
//! and it is settled: the retailer owes the lottery the pack's price less its commission
//! (`LOTTO_RETAILER_COMMISSION_BPS`, 5% by default), posted in the ledger from the retailer's
//! settlement account to the instant house account. A pack is settled when its retailer or an
//! operator asks, or by [`settle_due_packs`] once it has been active for
//! `LOTTO_PACK_SETTLE_AFTER_SECONDS` (30 days by default).
//!
//! Packs move only forward: printed → assigned → active → settled.

use axum::extract::State;
use chrono::{DateTime, Utc};
use domain::instant::payout::settle_pack;
use platform::auth::{Caller, Role};
use platform::openapi::Refused;
use platform::{AppError, Json, Path};
use serde::{Deserialize, Serialize};
use sqlx::Row;

use crate::InstantState;

/// `POST /v1/instant/packs/{game}/{book}/assign`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AssignPack {
    pub retailer_id: String,
}

/// A pack's state.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PackView {
    pub game: i32,
    pub book: i32,
    /// `printed`, `assigned`, `active` or `settled`.
    pub state: String,
    pub retailer_id: Option<String>,
    /// Once settled: what the retailer owed for it.
    pub settlement: Option<SettlementView>,
}

/// A settled pack's account with the lottery.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SettlementView {
    pub sales_cents: i64,
    pub commission_cents: i64,
    /// Debited from the retailer's settlement account.
    pub owed_cents: i64,
    pub settled_at: DateTime<Utc>,
}

fn pack_not_found(game: i32, book: i32) -> AppError {
    AppError::not_found("pack_not_found", format!("no pack {game:03}-{book:06}"))
}

#[utoipa::path(
    post, path = "/v1/instant/packs/{game}/{book}/assign", tag = "instant", request_body = AssignPack,
    params(("game" = i32, Path, description = "game number"), ("book" = i32, Path, description = "book number")),
    responses((status = 200, description = "assigned to the retailer", body = PackView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/packs/{game}/{book}/assign`: operators; printed → assigned.
pub async fn assign(
    State(state): State<InstantState>,
    caller: Caller,
    Path((game, book)): Path<(i32, i32)>,
    Json(request): Json<AssignPack>,
) -> Result<Json<PackView>, AppError> {
    caller.require(&[Role::Operator])?;
    // Retailers are the gateway's (which checks this one exists before the request gets here);
    // an id is at most 64 visible characters, so no request can brick a pack with a junk owner.
    let id = &request.retailer_id;
    if !(1..=64).contains(&id.len()) || !id.chars().all(|c| c.is_ascii_graphic()) {
        return Err(AppError::unprocessable("invalid_retailer", "retailer_id is 1 to 64 visible characters"));
    }
    move_pack(&state, game, book, "printed", "assigned", Some(id), None).await
}

#[utoipa::path(
    post, path = "/v1/instant/packs/{game}/{book}/activate", tag = "instant",
    params(("game" = i32, Path, description = "game number"), ("book" = i32, Path, description = "book number")),
    responses((status = 200, description = "active: its tickets can be validated", body = PackView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/packs/{game}/{book}/activate`: the terminal of the retailer it was assigned to.
pub async fn activate(
    State(state): State<InstantState>,
    caller: Caller,
    Path((game, book)): Path<(i32, i32)>,
) -> Result<Json<PackView>, AppError> {
    caller.require(&[Role::Retailer])?;
    let retailer = caller.organization().ok_or_else(platform::auth::forbidden)?;
    move_pack(&state, game, book, "assigned", "active", None, Some(retailer)).await
}

/// Locks pack `game`-`book` in `tx` and reads it; a pack of another retailer than `owner` (when
/// given) is not found.
async fn lock_pack(
    tx: &mut sqlx::PgConnection,
    game: i32,
    book: i32,
    owner: Option<&str>,
) -> Result<sqlx::postgres::PgRow, AppError> {
    let row = sqlx::query("SELECT * FROM packs WHERE game = $1 AND book = $2 FOR UPDATE")
        .bind(game)
        .bind(book)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or_else(|| pack_not_found(game, book))?;
    if owner.is_some() && row.try_get::<Option<String>, _>("retailer_id")?.as_deref() != owner {
        return Err(pack_not_found(game, book));
    }
    Ok(row)
}

/// Moves a pack `from` → `to`; a pack of another retailer is not found, one in another state is a
/// conflict, and nothing changes.
async fn move_pack(
    state: &InstantState,
    game: i32,
    book: i32,
    from: &str,
    to: &str,
    assign_to: Option<&str>,
    owner: Option<&str>,
) -> Result<Json<PackView>, AppError> {
    let mut tx = state.pool.begin().await?;
    let current: String = lock_pack(&mut tx, game, book, owner).await?.try_get("state")?;
    if current != from {
        return Err(AppError::conflict(
            format!("pack_not_{from}"),
            format!("the pack is {current}; packs move only forward (printed, assigned, active, settled)"),
        ));
    }
    let row = sqlx::query(
        "UPDATE packs SET state = $3, retailer_id = coalesce($4, retailer_id),
                assigned_at = CASE WHEN $3 = 'assigned' THEN now() ELSE assigned_at END,
                activated_at = CASE WHEN $3 = 'active' THEN now() ELSE activated_at END
          WHERE game = $1 AND book = $2 RETURNING state, retailer_id",
    )
    .bind(game)
    .bind(book)
    .bind(to)
    .bind(assign_to)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Json(PackView {
        game,
        book,
        state: row.try_get("state")?,
        retailer_id: row.try_get("retailer_id")?,
        settlement: None,
    }))
}

#[utoipa::path(
    post, path = "/v1/instant/packs/{game}/{book}/settle", tag = "instant",
    params(("game" = i32, Path, description = "game number"), ("book" = i32, Path, description = "book number")),
    responses((status = 200, description = "settled: the retailer owes its price less commission", body = PackView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/packs/{game}/{book}/settle`: the terminal of the pack's retailer, or an
/// operator; active → settled. Asking again for a settled pack answers its settlement.
pub async fn settle(
    State(state): State<InstantState>,
    caller: Caller,
    Path((game, book)): Path<(i32, i32)>,
) -> Result<Json<PackView>, AppError> {
    caller.require(&[Role::Retailer, Role::Operator])?;
    let owner = if caller.role() == Role::Retailer {
        Some(caller.organization().ok_or_else(platform::auth::forbidden)?)
    } else {
        None
    };
    settle_pack_now(&state, game, book, owner).await.map(Json)
}

/// Settles one active pack (see the module); `owner`, when given, must be its retailer.
pub async fn settle_pack_now(
    state: &InstantState,
    game: i32,
    book: i32,
    owner: Option<&str>,
) -> Result<PackView, AppError> {
    let definition = state.game(u32::try_from(game).map_err(|_| pack_not_found(game, book))?)?.clone();
    let mut tx = state.pool.begin().await?;
    let row = lock_pack(&mut tx, game, book, owner).await?;
    let current: String = row.try_get("state")?;
    let retailer: Option<String> = row.try_get("retailer_id")?;
    let view = |state: String, settlement: SettlementView| PackView {
        game,
        book,
        state,
        retailer_id: retailer.clone(),
        settlement: Some(settlement),
    };
    if current == "settled" {
        return Ok(view(
            current,
            SettlementView {
                sales_cents: row.try_get::<Option<i64>, _>("sales_cents")?.unwrap_or(0),
                commission_cents: row.try_get::<Option<i64>, _>("commission_cents")?.unwrap_or(0),
                owed_cents: row.try_get::<Option<i64>, _>("owed_cents")?.unwrap_or(0),
                settled_at: row.try_get::<Option<DateTime<Utc>>, _>("settled_at")?.unwrap_or_else(Utc::now),
            },
        ));
    }
    if current != "active" {
        return Err(AppError::conflict(
            "pack_not_active",
            format!("the pack is {current}; only an active pack is settled"),
        ));
    }
    let retailer_id =
        retailer.clone().ok_or_else(|| AppError::internal("an active pack without a retailer"))?;
    let owed = settle_pack(
        definition.ticket_numbers.tickets_per_book(),
        definition.price_cents,
        state.commission_bps,
    );
    let settled_at: DateTime<Utc> = sqlx::query_scalar(
        "UPDATE packs SET state = 'settled', settled_at = now(), sales_cents = $3, commission_cents = $4, owed_cents = $5
          WHERE game = $1 AND book = $2 RETURNING settled_at",
    )
    .bind(game)
    .bind(book)
    .bind(owed.sales_cents)
    .bind(owed.commission_cents)
    .bind(owed.owed_cents)
    .fetch_one(&mut *tx)
    .await?;
    let link = state.ledger_link()?;
    let account = crate::retailer_account(&retailer_id);
    link.ledger
        .open_accounts(&retailer_id, &[(account, ledger_api::AccountKind::RetailerSettlement)])
        .await?;
    let id = uuid::Uuid::new_v5(
        &crate::INSTANT_NAMESPACE,
        format!("instant/pack/{game}-{book}/settled").as_bytes(),
    );
    let metadata = serde_json::json!({"game": game, "book": book, "sales": owed.sales_cents, "commission": owed.commission_cents});
    link.ledger
        .batch(&[ledger_api::NewTransfer::new(id, account, link.house_account, owed.owed_cents, metadata)])
        .await?;
    tx.commit().await?;
    Ok(view(
        "settled".to_owned(),
        SettlementView {
            sales_cents: owed.sales_cents,
            commission_cents: owed.commission_cents,
            owed_cents: owed.owed_cents,
            settled_at,
        },
    ))
}

/// Settles every pack active for longer than the service's `settle_after`; returns how many.
/// Each is settled on its own, so one that fails (the ledger away) is retried on the next pass.
pub async fn settle_due_packs(state: &InstantState) -> Result<usize, AppError> {
    let due: Vec<(i32, i32)> = sqlx::query_as(
        "SELECT game, book FROM packs
          WHERE state = 'active' AND activated_at < now() - make_interval(secs => $1)
          ORDER BY activated_at LIMIT 1000",
    )
    .bind(state.settle_after.as_secs_f64())
    .fetch_all(&state.pool)
    .await?;
    let mut settled = 0usize;
    for (game, book) in due {
        match settle_pack_now(state, game, book, None).await {
            Ok(_) => settled = settled.saturating_add(1),
            Err(e) => {
                tracing::warn!(game, book, error = %e, "settling a pack failed; retried on the next pass");
            }
        }
    }
    Ok(settled)
}
