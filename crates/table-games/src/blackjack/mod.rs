//! Blackjack over the API: a player's table and shoe, rounds played as sagas through the ledger,
//! game recall, the Blazing 7's meter, and the math.
//!
//! A round (DESIGN §4):
//!
//! 1. recorded `open` with its bets (one round in play per table);
//! 2. ledger, one batch: the wagers into escrow; of each progressive wager 24% into the pot and
//!    the rest to the house (K.A.R. 111-301-5(j)(3), (6)); refused → `refused`, nothing moved;
//! 3. dealt from the table's shoe, locked, in one transaction with the round (`playing`);
//! 4. each decision names the `step` it acts on and is applied to a copy first: a rule error
//!    changes nothing; a decision that adds a wager (double, split, insurance) takes it from the
//!    wallet (key `<round>/step/<n>`) before the round moves on, all under the round's lock, so
//!    of two concurrent decisions exactly one applies;
//! 5. settled in one ledger batch (escrow → house, house → wallet, pot → wallet, the pot's
//!    re-seed after the top prize), `settled`, and the round chained in the audit log.
//!
//! Every ledger step has a key derived from the round, and the shoe is saved only with the round
//! it dealt, so a step retried after a crash deals the same cards and replays in the ledger.
//!
//! Here: the routes and the round's deal and decisions; `config` the house's settings,
//! `views` what a player sees, `settlement` the money steps, `public` the meter and the math.

use axum::extract::State;
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use domain::blackjack::round::{Action, Phase, PlayError, Round, SpotBet, TableRules};
use domain::blackjack::side_math::{self, Composition, SideWagerMath};
use domain::blackjack::side_wagers::{BLAZING_SEVENS_SEED_CENTS, pot_contribution, pot_share};
use domain::cards::{Decks, Shoe};
use ledger_api::{LedgerError, NewTransfer};
use platform::auth::{Caller, Role};
use platform::openapi::Refused;
use platform::{AppError, IdempotencyKey, Json, Path};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};
use uuid::Uuid;

use crate::{TABLES_NAMESPACE, TablesState};

mod config;
mod public;
mod settlement;
mod views;

pub use config::*;
pub use public::*;
use settlement::*;
pub use views::*;

fn play_error(e: &PlayError) -> AppError {
    let (status, code) = match e {
        PlayError::WagerOutOfRange { .. } => (StatusCode::UNPROCESSABLE_ENTITY, "wager_out_of_range"),
        PlayError::RoyalMatchNeedsSixDecks => {
            (StatusCode::UNPROCESSABLE_ENTITY, "royal_match_needs_six_decks")
        }
        PlayError::NoSpots => (StatusCode::UNPROCESSABLE_ENTITY, "no_spots"),
        PlayError::TooManySpots { .. } => (StatusCode::UNPROCESSABLE_ENTITY, "too_many_spots"),
        PlayError::OutOfTurn(_) => (StatusCode::CONFLICT, "out_of_turn"),
        PlayError::NoSuchSpot => (StatusCode::UNPROCESSABLE_ENTITY, "no_such_spot"),
        PlayError::NotAllowed(_) => (StatusCode::UNPROCESSABLE_ENTITY, "action_not_allowed"),
        PlayError::Shoe(e) => return AppError::internal(e),
    };
    AppError::new(status, code, e.to_string())
}

fn step_id(round: Uuid, step: &str) -> Uuid {
    Uuid::new_v5(&TABLES_NAMESPACE, format!("bj-round/{round}/{step}").as_bytes())
}

/// `POST /v1/blackjack/tables`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenTable {
    /// 6 or 2 (default 6).
    pub decks: Option<u8>,
    /// Where the player places the cut card (K.A.R. 111-301-6(a)); a random allowed place when
    /// absent.
    pub cut: Option<usize>,
    /// The table's limits, within the house's (`LOTTO_BJ_MIN_WAGER_CENTS`..`LOTTO_BJ_MAX_WAGER_CENTS`);
    /// the house's when absent.
    pub min_wager_cents: Option<i64>,
    pub max_wager_cents: Option<i64>,
    /// The most spots a round at this table may play: 1 to the house's maximum
    /// (`LOTTO_BJ_MAX_SPOTS`, 7), and at most 5 at a two-deck table (what its shoe always
    /// serves); the most allowed when absent.
    pub max_spots: Option<usize>,
}

fn random_cut(decks: Decks, rng: &mut impl Rng) -> usize {
    let min = decks.min_cards_beside_cut();
    rng.random_range(min..=decks.count().saturating_mul(52).saturating_sub(min))
}

#[utoipa::path(
    post, path = "/v1/blackjack/tables", tag = "blackjack", request_body = OpenTable,
    responses((status = 201, description = "a table with a freshly shuffled shoe", body = TableView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/blackjack/tables`: a player opens a table.
pub async fn open_table(
    State(state): State<TablesState>,
    caller: Caller,
    Json(request): Json<OpenTable>,
) -> Result<(StatusCode, Json<TableView>), AppError> {
    caller.require(&[Role::Player])?;
    let decks = match request.decks.unwrap_or(6) {
        6 => Decks::Six,
        2 => Decks::Two,
        _ => return Err(AppError::unprocessable("invalid_decks", "a table deals from 6 decks or 2")),
    };
    let mut rng = ChaCha20Rng::from_os_rng();
    let cut = request.cut.unwrap_or_else(|| random_cut(decks, &mut rng));
    let shoe = Shoe::shuffled(decks, cut, &mut rng)
        .map_err(|e| AppError::unprocessable("cut_out_of_range", e.to_string()))?;
    let min = request.min_wager_cents.unwrap_or(state.limits.min_wager_cents);
    let max = request.max_wager_cents.unwrap_or(state.limits.max_wager_cents);
    if min < state.limits.min_wager_cents
        || max > state.limits.max_wager_cents
        || min > max
        || min % 100 != 0
        || max % 100 != 0
    {
        return Err(AppError::unprocessable(
            "invalid_limits",
            format!(
                "table limits are whole dollars within the house's, {} to {} cents",
                state.limits.min_wager_cents, state.limits.max_wager_cents
            ),
        ));
    }
    let most_spots = state.limits.max_spots.min(domain::blackjack::max_spots_served(decks));
    let max_spots = request.max_spots.unwrap_or(most_spots);
    if !(1..=most_spots).contains(&max_spots) {
        return Err(AppError::unprocessable(
            "invalid_max_spots",
            format!("a {}-deck table plays 1 to {most_spots} spots a round", decks.count()),
        ));
    }
    let rules = TableRules {
        decks,
        min_wager_cents: min,
        max_wager_cents: max,
        progressive_wager_cents: state.limits.progressive_wager_cents,
        max_spots,
    };
    let id = Uuid::now_v7();
    sqlx::query("INSERT INTO bj_tables (id, player_id, rules, shoe) VALUES ($1, $2, $3, $4)")
        .bind(id)
        .bind(caller.subject())
        .bind(json_of(&rules)?)
        .bind(json_of(&shoe)?)
        .execute(&state.pool)
        .await?;
    Ok((StatusCode::CREATED, Json(table_view(id, &rules, &shoe, 1))))
}

fn json_of(value: &impl Serialize) -> Result<Value, AppError> {
    serde_json::to_value(value).map_err(AppError::internal)
}

fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, AppError> {
    serde_json::from_value(value).map_err(AppError::internal)
}

/// `POST /v1/blackjack/tables/{id}/rounds`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DealRequest {
    /// One entry per spot played, left to right: `wager` (cents, whole dollars), and optionally
    /// `trilux`, `super_3`, `royal_match` (cents) and `blazing_7s` (true/false).
    #[schema(value_type = Vec<Object>)]
    pub spots: Vec<SpotBet>,
}

async fn load_round(conn: &mut PgConnection, id: Uuid, lock: bool) -> Result<Option<PgRow>, AppError> {
    let lock = if lock { " FOR UPDATE" } else { "" };
    Ok(sqlx::query(&format!("SELECT {ROUND_COLUMNS} FROM bj_rounds WHERE id = $1{lock}"))
        .bind(id)
        .fetch_optional(conn)
        .await?)
}

/// A table's rules (they never change), if it exists and, when `player` is given, is theirs.
async fn table_rules(state: &TablesState, id: Uuid, player: Option<&str>) -> Result<TableRules, AppError> {
    let rules: Value = sqlx::query_scalar(
        "SELECT rules FROM bj_tables WHERE id = $1 AND ($2::text IS NULL OR player_id = $2)",
    )
    .bind(id)
    .bind(player)
    .fetch_optional(&state.pool)
    .await?
    .ok_or_else(|| AppError::not_found("table_not_found", format!("table {id} does not exist")))?;
    from_json(rules)
}

/// The table's rules and shoe, locked for the rest of the transaction.
async fn lock_table(conn: &mut PgConnection, id: Uuid) -> Result<(TableRules, Shoe, i32, String), AppError> {
    let row = sqlx::query("SELECT rules, shoe, shuffles, player_id FROM bj_tables WHERE id = $1 FOR UPDATE")
        .bind(id)
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| AppError::not_found("table_not_found", format!("table {id} does not exist")))?;
    Ok((
        from_json(row.try_get("rules")?)?,
        from_json(row.try_get("shoe")?)?,
        row.try_get("shuffles")?,
        row.try_get("player_id")?,
    ))
}

#[utoipa::path(
    post, path = "/v1/blackjack/tables/{id}/rounds", tag = "blackjack", request_body = DealRequest,
    params(("id" = Uuid, Path, description = "table id"),
           ("Idempotency-Key" = String, Header, description = "required: a retry with the same key deals the round once")),
    responses(
        (status = 201, description = "wagers taken, cards dealt (and settled, when the deal ends the round)", body = RoundView),
        (status = 200, description = "a replay: this key's round as it stands", body = RoundView),
        (status = "4XX", response = Refused),
    ),
    security(("bearer" = []))
)]
/// `POST /v1/blackjack/tables/{id}/rounds`: wagers placed, cards dealt.
pub async fn deal(
    State(state): State<TablesState>,
    caller: Caller,
    key: IdempotencyKey,
    Path(table): Path<Uuid>,
    Json(request): Json<DealRequest>,
) -> Result<(StatusCode, Json<RoundView>), AppError> {
    caller.require(&[Role::Player])?;
    let Some(key) = key.0 else {
        return Err(AppError::bad_request("missing_idempotency_key", "send an Idempotency-Key header"));
    };
    let player = caller.subject().to_owned();
    let rules = table_rules(&state, table, Some(&player)).await?;
    Round::check_bets(&rules, &request.spots).map_err(|e| play_error(&e))?;
    let id = Uuid::new_v5(&TABLES_NAMESPACE, format!("bj-round/{table}/{key}").as_bytes());
    let bets = json_of(&request.spots)?;
    let existing = load_round(&mut *state.pool.acquire().await?, id, false).await?;
    let created = match existing {
        Some(row) if row.try_get::<Value, _>("bets")? != bets => {
            return Err(AppError::conflict("idempotency_conflict", "this key dealt a round with other bets"));
        }
        Some(_) => false,
        None => {
            let wallet = state.ledger.wallet_of(&player).await?;
            let before = state.ledger.balance(wallet).await?;
            let inserted = sqlx::query(
                "INSERT INTO bj_rounds (id, table_id, player_id, wallet_account_id, bets, state, balance_before_cents)
                 VALUES ($1, $2, $3, $4, $5, 'open', $6) ON CONFLICT (id) DO NOTHING",
            )
            .bind(id)
            .bind(table)
            .bind(&player)
            .bind(wallet)
            .bind(&bets)
            .bind(before)
            .execute(&state.pool)
            .await;
            match inserted {
                Ok(_) => true,
                Err(sqlx::Error::Database(e)) if e.constraint() == Some("bj_rounds_one_in_play") => {
                    return Err(AppError::conflict(
                        "round_in_play",
                        "finish the round in play at this table first",
                    ));
                }
                Err(e) => return Err(e.into()),
            }
        }
    };
    let view = drive_deal(&state, id).await?;
    if view.state == "refused" {
        let code = view.refusal.unwrap_or_else(|| "stake_refused".to_owned());
        return Err(AppError::unprocessable(code, "the wagers could not be taken from your wallet"));
    }
    Ok((if created { StatusCode::CREATED } else { StatusCode::OK }, Json(view)))
}

/// Takes an `open` round's wagers and deals it; safe to run again at any point.
pub async fn drive_deal(state: &TablesState, id: Uuid) -> Result<RoundView, AppError> {
    let row = load_round(&mut *state.pool.acquire().await?, id, false)
        .await?
        .ok_or_else(|| AppError::not_found("round_not_found", "no such round"))?;
    if row.try_get::<String, _>("state")? != "open" {
        return round_view(&row);
    }
    let table: Uuid = row.try_get("table_id")?;
    let wallet: Uuid = row.try_get("wallet_account_id")?;
    let bets: Vec<SpotBet> = from_json(row.try_get("bets")?)?;
    let rules = table_rules(state, table, None).await?;
    // The wagers: into escrow; the progressive wagers to the pot (24%) and the house (the rest).
    let stakes = Stakes::of(&rules, &bets, Round::stake_at_deal(&rules, &bets));
    let transfers = [
        (step_id(id, "stake/escrow"), wallet, state.escrow_account, stakes.escrowed),
        (step_id(id, "stake/pot"), wallet, state.pot_account, stakes.to_pot),
        (step_id(id, "stake/house"), wallet, state.house_account, stakes.to_house),
    ];
    match ledger_batch(state, id, &transfers).await {
        Ok(()) => {}
        Err(LedgerError::Refused(e)) => {
            sqlx::query("UPDATE bj_rounds SET state = 'refused', refusal = $2, updated_at = now() WHERE id = $1 AND state = 'open'")
                .bind(id)
                .bind(e.code())
                .execute(&state.pool)
                .await?;
            let row = load_round(&mut *state.pool.acquire().await?, id, false)
                .await?
                .ok_or_else(|| AppError::internal("round vanished"))?;
            return round_view(&row);
        }
        Err(e) => return Err(e.into()),
    }
    // A shoe past its cut card is shuffled, and saved, before it deals; any other shoe has its
    // discards shuffled into the reserve it deals from if it runs out mid-round. Either way a
    // retried deal then deals the same cards.
    {
        let mut tx = state.pool.begin().await?;
        let (rules, mut shoe, _, _) = lock_table(&mut tx, table).await?;
        let mut rng = ChaCha20Rng::from_os_rng();
        let shuffled = shoe.cut_card_reached();
        if shuffled {
            let cut = random_cut(rules.decks, &mut rng);
            shoe = Shoe::shuffled(rules.decks, cut, &mut rng).map_err(AppError::internal)?;
        } else {
            shoe.reserve_discards(&mut rng);
        }
        sqlx::query("UPDATE bj_tables SET shoe = $2, shuffles = shuffles + $3 WHERE id = $1")
            .bind(table)
            .bind(json_of(&shoe)?)
            .bind(i32::from(shuffled))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
    }
    // 111-301-5(j)(6): prizes are paid on the meter at the time they are won (this deal).
    let pot = state.ledger.balance(state.pot_account).await?;
    let mut tx = state.pool.begin().await?;
    let (rules, mut shoe, _, _) = lock_table(&mut tx, table).await?;
    let row = load_round(&mut tx, id, true).await?.ok_or_else(|| AppError::internal("round vanished"))?;
    if row.try_get::<String, _>("state")? != "open" {
        tx.commit().await?;
        return round_view(&row);
    }
    let round = match Round::deal(rules, bets.clone(), &mut shoe) {
        Ok(round) => round,
        Err(PlayError::Shoe(_)) => {
            void_round(state, &mut tx, id, &rules, &bets, None, wallet).await?;
            let row =
                load_round(&mut tx, id, false).await?.ok_or_else(|| AppError::internal("round vanished"))?;
            tx.commit().await?;
            return round_view(&row);
        }
        Err(e) => return Err(play_error(&e)),
    };
    sqlx::query("UPDATE bj_tables SET shoe = $2 WHERE id = $1")
        .bind(table)
        .bind(json_of(&shoe)?)
        .execute(&mut *tx)
        .await?;
    let staked: i64 = round.spots.iter().map(|s| s.staked(&rules)).sum();
    sqlx::query(
        "UPDATE bj_rounds SET state = 'playing', round = $2, pot_at_deal_cents = $3, staked_cents = $4, updated_at = now()
          WHERE id = $1",
    )
    .bind(id)
    .bind(json_of(&round)?)
    .bind(pot)
    .bind(staked)
    .execute(&mut *tx)
    .await?;
    if round.phase == Phase::Settled {
        settle(state, &mut tx, id, &round, pot, wallet).await?;
    }
    let row = load_round(&mut tx, id, false).await?.ok_or_else(|| AppError::internal("round vanished"))?;
    tx.commit().await?;
    round_view(&row)
}

/// Deals rounds left `open` (wagers perhaps taken, cards not dealt) for longer than
/// `older_than`; returns how many. A round in play waits for its player, whose retried decision
/// repeats the same step with the same cards.
pub async fn recover(state: &TablesState, older_than: std::time::Duration) -> Result<usize, AppError> {
    platform::recovery::finish_stuck(
        &state.pool,
        "SELECT id FROM bj_rounds WHERE state = 'open' AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT 500",
        older_than,
        "blackjack round",
        |id| drive_deal(state, id),
    )
    .await
}

/// `POST /v1/blackjack/rounds/{id}/actions`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct ActionRequest {
    /// The round's `step` this decision is made on.
    pub step: i32,
    /// `hit`, `stand`, `double` (optional `amount`), `split`, `insurance` (`spot`, `amount`),
    /// `decline_insurance` (`spot`) or `even_money` (`spot`).
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub action: Action,
}

#[utoipa::path(
    post, path = "/v1/blackjack/rounds/{id}/actions", tag = "blackjack", request_body = ActionRequest,
    params(("id" = Uuid, Path, description = "round id")),
    responses((status = 200, description = "the decision applied", body = RoundView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/blackjack/rounds/{id}/actions`: a player's decision.
pub async fn act(
    State(state): State<TablesState>,
    caller: Caller,
    Path(id): Path<Uuid>,
    Json(request): Json<ActionRequest>,
) -> Result<Json<RoundView>, AppError> {
    caller.require(&[Role::Player])?;
    Ok(Json(apply(&state, id, Some(caller.subject()), Some((request.step, request.action))).await?))
}

/// What the house decides for a round its player abandoned: insurance declined, hands stood.
fn house_decision(round: &Round) -> Action {
    match round.phase {
        Phase::Insurance => {
            let spot = round.spots.iter().position(|s| s.insurance.is_none()).unwrap_or(0);
            Action::DeclineInsurance { spot }
        }
        _ => Action::Stand,
    }
}

/// Applies one decision (step 4): the player's, on the step they name, or the house's for an
/// abandoned round (`decision` None).
async fn apply(
    state: &TablesState,
    id: Uuid,
    player: Option<&str>,
    decision: Option<(i32, Action)>,
) -> Result<RoundView, AppError> {
    let not_found = || AppError::not_found("round_not_found", format!("round {id} does not exist"));
    let table: Uuid = sqlx::query_scalar(
        "SELECT table_id FROM bj_rounds WHERE id = $1 AND ($2::text IS NULL OR player_id = $2)",
    )
    .bind(id)
    .bind(player)
    .fetch_optional(&state.pool)
    .await?
    .ok_or_else(not_found)?;
    let mut tx = state.pool.begin().await?;
    let (_, shoe, _, _) = lock_table(&mut tx, table).await?;
    let row = load_round(&mut tx, id, true).await?.ok_or_else(not_found)?;
    if row.try_get::<String, _>("state")? != "playing" {
        return Err(AppError::conflict("round_not_in_play", "this round is not waiting for a decision"));
    }
    let step: i32 = row.try_get("step")?;
    let round: Round =
        from_json(row.try_get::<Option<Value>, _>("round")?.ok_or_else(|| AppError::internal("no round"))?)?;
    let action = match decision {
        Some((named, _)) if named != step => {
            return Err(AppError::conflict(
                "stale_step",
                format!("the round is at step {step}; read it and decide again"),
            )
            .with_context(json!({"step": step})));
        }
        Some((_, action)) => action,
        None => house_decision(&round),
    };
    let (mut next, mut next_shoe) = (round.clone(), shoe);
    let wallet: Uuid = row.try_get("wallet_account_id")?;
    match next.act(action, &mut next_shoe) {
        Ok(()) => {}
        Err(PlayError::Shoe(_)) => {
            let bets: Vec<SpotBet> = from_json(row.try_get("bets")?)?;
            void_round(state, &mut tx, id, &round.rules, &bets, Some(&round), wallet).await?;
            let row = load_round(&mut tx, id, false).await?.ok_or_else(not_found)?;
            tx.commit().await?;
            return round_view(&row);
        }
        Err(e) => return Err(play_error(&e)),
    }
    let before: i64 = round.spots.iter().map(|s| s.staked(&round.rules)).sum();
    let after: i64 = next.spots.iter().map(|s| s.staked(&next.rules)).sum();
    if after > before {
        let added = [(
            step_id(id, &format!("step/{step}")),
            wallet,
            state.escrow_account,
            after.saturating_sub(before),
        )];
        ledger_batch(state, id, &added).await?;
    }
    let mut actions: Vec<Value> = from_json(row.try_get("actions")?)?;
    let by = if decision.is_some() { "player" } else { "house (round abandoned)" };
    actions.push(json!({"step": step, "decision": action, "by": by}));
    sqlx::query("UPDATE bj_tables SET shoe = $2 WHERE id = $1")
        .bind(table)
        .bind(json_of(&next_shoe)?)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "UPDATE bj_rounds SET round = $2, step = step + 1, actions = $3, staked_cents = $4, updated_at = now() WHERE id = $1",
    )
    .bind(id)
    .bind(json_of(&next)?)
    .bind(Value::Array(actions))
    .bind(after)
    .execute(&mut *tx)
    .await?;
    if next.phase == Phase::Settled {
        let pot: i64 = row.try_get::<Option<i64>, _>("pot_at_deal_cents")?.unwrap_or(0);
        settle(state, &mut tx, id, &next, pot, wallet).await?;
    }
    let row = load_round(&mut tx, id, false).await?.ok_or_else(not_found)?;
    tx.commit().await?;
    round_view(&row)
}

/// Finishes rounds whose player has made no decision for `idle` (`LOTTO_BJ_ABANDONED_AFTER_SECONDS`,
/// a day by default): the house declines insurance and stands every hand, then settles, so no
/// wager waits in escrow for ever. Returns how many it finished.
pub async fn finish_abandoned(state: &TablesState, idle: std::time::Duration) -> Result<usize, AppError> {
    platform::recovery::finish_stuck(
        &state.pool,
        "SELECT id FROM bj_rounds WHERE state = 'playing' AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT 500",
        idle,
        "abandoned blackjack round",
        |id| async move {
            // A round needs at most a decision per hand and per spot's insurance.
            for _ in 0..64 {
                let view = apply(state, id, None, None).await?;
                if view.state != "playing" {
                    return Ok(view);
                }
            }
            Err(AppError::internal("an abandoned round did not finish"))
        },
    )
    .await
}

#[utoipa::path(
    get, path = "/v1/blackjack/rounds/{id}", tag = "blackjack", params(("id" = Uuid, Path, description = "round id")),
    responses((status = 200, description = "the round", body = RoundView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/blackjack/rounds/{id}`: the player's own round; operators and auditors see any.
pub async fn get_round(
    State(state): State<TablesState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<RoundView>, AppError> {
    caller.require(&[Role::Player, Role::Operator, Role::Auditor, Role::Service])?;
    match load_round(&mut *state.pool.acquire().await?, id, false).await? {
        Some(row)
            if caller.role() != Role::Player
                || row.try_get::<String, _>("player_id")? == caller.subject() =>
        {
            Ok(Json(round_view(&row)?))
        }
        _ => Err(AppError::not_found("round_not_found", format!("round {id} does not exist"))),
    }
}

#[utoipa::path(
    get, path = "/v1/blackjack/recall", tag = "blackjack",
    responses((status = 200, description = "the player's last 10 rounds: every card, decision, wager, and the balance before and after", body = Vec<RoundView>),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/blackjack/recall`: game recall, the last 10 rounds.
pub async fn recall(
    State(state): State<TablesState>,
    caller: Caller,
) -> Result<Json<Vec<RoundView>>, AppError> {
    caller.require(&[Role::Player])?;
    let rows = sqlx::query(&format!(
        "SELECT {ROUND_COLUMNS} FROM bj_rounds WHERE player_id = $1 ORDER BY created_at DESC LIMIT 10"
    ))
    .bind(caller.subject())
    .fetch_all(&state.pool)
    .await?;
    Ok(Json(rows.iter().map(round_view).collect::<Result<_, _>>()?))
}
