//! Castle Keno played at once: a ticket is bought, drawn with its own 20 numbers and settled.
//!
//! A ticket is a saga of idempotent steps with deterministic keys (DESIGN §4), arranged so that a
//! ticket costs one ledger transaction and a share of two group-committed local ones:
//!
//! 1. draw with a fresh OS-seeded ChaCha20 and record the ticket with its numbers and outcome
//!    (`drawn`): the numbers are fixed before any money moves, so nothing is ever drawn twice;
//! 2. ledger, as one atomic batch: the stake from the wallet to the house (`<ticket>/stake`) and
//!    the prize from the house to the wallet (`<ticket>/prize`); a batch the ledger refuses
//!    (say, too little in the wallet) ends the ticket `refused` with nothing moved;
//! 3. `settled`, with the outcome appended to the audit chain in the same transaction.
//!
//! The numbers of a ticket are shown only once it is settled: a player who could see a losing
//! outcome before the stake is taken could empty the wallet to have it refused.
//! [`recover`] drives any ticket a crash left `drawn`: the batch repeated is a replay in the
//! ledger, never a second payment.

use std::collections::HashSet;
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use chrono::{DateTime, SubsecRound, Utc};
use domain::keno::{BetOption, Draw, Ticket, settle};
use ledger_api::NewTransfer;
use platform::auth::{Caller, Role};
use platform::group_commit::{BatchRun, BatchWrite};
use platform::openapi::Refused;
use platform::{AppError, IdempotencyKey, Json, Path, Query};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};
use uuid::Uuid;

use crate::rules::{option_name, option_named, rule_error};
use crate::{DRAWS_NAMESPACE, DrawsState, ListQuery, limit_of};

/// `POST /v1/keno/tickets`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayRequest {
    /// `bet`, `bet_against`, `hit_all`, `high_roller` or `top_or_bottom`.
    #[schema(value_type = String, example = "bet")]
    pub option: BetOption,
    /// The marked numbers (1 to 80); none for `top_or_bottom`.
    #[serde(default)]
    pub spots: Vec<u8>,
    /// Whole $1 tickets staked (default 1); the payout is that multiple of the table.
    pub tickets: Option<u32>,
}

/// A ticket as its player (or an operator) sees it.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TicketView {
    pub id: Uuid,
    #[schema(value_type = String)]
    pub option: BetOption,
    pub spots: Vec<i16>,
    pub tickets: i32,
    pub stake_cents: i64,
    /// `drawn` (being paid), `settled` or `refused`.
    pub state: String,
    /// The 20 numbers, in the order drawn; shown once settled.
    pub draw_numbers: Option<Vec<i16>>,
    pub hits: Option<i32>,
    pub payout_cents: Option<i64>,
    /// Why the stake was refused (a ledger problem code).
    pub refusal: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// A ticket as stored.
#[derive(Debug, Clone)]
pub struct TicketRow {
    id: Uuid,
    player: String,
    wallet: Uuid,
    option: String,
    spots: Vec<i16>,
    tickets: i32,
    stake_cents: i64,
    state: String,
    numbers: Vec<i16>,
    hits: i32,
    payout_cents: i64,
    refusal: Option<String>,
    created_at: DateTime<Utc>,
}

impl TicketRow {
    fn from_row(row: &PgRow) -> Result<Self, AppError> {
        Ok(TicketRow {
            id: row.try_get("id")?,
            player: row.try_get("player_id")?,
            wallet: row.try_get("wallet_account_id")?,
            option: row.try_get("option")?,
            spots: row.try_get("spots")?,
            tickets: row.try_get("tickets")?,
            stake_cents: row.try_get("stake_cents")?,
            state: row.try_get("state")?,
            numbers: row.try_get::<Option<Vec<i16>>, _>("draw_numbers")?.unwrap_or_default(),
            hits: row.try_get::<Option<i32>, _>("hits")?.unwrap_or(0),
            payout_cents: row.try_get::<Option<i64>, _>("payout_cents")?.unwrap_or(0),
            refusal: row.try_get("refusal")?,
            created_at: row.try_get("created_at")?,
        })
    }

    fn view(&self) -> Result<TicketView, AppError> {
        let settled = self.state == "settled";
        Ok(TicketView {
            id: self.id,
            option: option_named(&self.option)?,
            spots: self.spots.clone(),
            tickets: self.tickets,
            stake_cents: self.stake_cents,
            state: self.state.clone(),
            draw_numbers: settled.then(|| self.numbers.clone()),
            hits: settled.then_some(self.hits),
            payout_cents: settled.then_some(self.payout_cents),
            refusal: self.refusal.clone(),
            created_at: self.created_at,
        })
    }
}

const TICKET_COLUMNS: &str = "id, player_id, wallet_account_id, option, spots, tickets, stake_cents, state,
    draw_numbers, hits, payout_cents, refusal, created_at";

async fn load(state: &DrawsState, id: Uuid) -> Result<Option<TicketRow>, AppError> {
    sqlx::query(&format!("SELECT {TICKET_COLUMNS} FROM keno_tickets WHERE id = $1"))
        .bind(id)
        .fetch_optional(&state.pool)
        .await?
        .as_ref()
        .map(TicketRow::from_row)
        .transpose()
}

/// The local writes of the saga, group-committed (see [`platform::group_commit`]).
#[derive(Debug)]
pub enum TicketWrite {
    /// Step 1: answers whether the ticket is new (false: this id was already recorded).
    Record(TicketRow),
    /// Step 3: `settled`, and the outcome chained; answers whether this call settled it.
    Settle { id: Uuid, audit: platform::audit::Entry },
    /// The ledger refused the stake; answers whether this call ended it.
    Refuse { id: Uuid, code: String },
}

/// Tickets' ledger batches (each ticket's transfers, in order), sent to the ledger many tickets
/// to a call: the ledger's cost is mostly per call, not per transfer. A call the ledger refuses
/// is sent again ticket by ticket (see [`platform::group_commit`]), so one player's empty wallet
/// refuses only that player's ticket.
#[derive(Debug)]
pub struct LedgerBatches {
    pub ledger: ledger_api::LedgerClient,
}

impl BatchRun for LedgerBatches {
    type Job = Vec<NewTransfer>;
    type Output = ();

    async fn run_batch(&self, jobs: &[Vec<NewTransfer>]) -> Result<Vec<()>, AppError> {
        let transfers: Vec<NewTransfer> = jobs.iter().flatten().cloned().collect();
        self.ledger.batch(&transfers).await?;
        Ok(vec![(); jobs.len()])
    }
}

/// Writes [`TicketWrite`]s in one transaction.
#[derive(Debug)]
pub struct TicketWriter;

impl BatchWrite for TicketWriter {
    type Job = TicketWrite;
    type Output = bool;

    /// Three statements whatever the batch's size: the inserts, the settlements (and their audit
    /// records), the refusals. A ticket named twice in one batch changes once: the first job
    /// naming it answers true, the others false.
    async fn write_batch(
        &self,
        conn: &mut PgConnection,
        jobs: &[TicketWrite],
    ) -> Result<Vec<bool>, AppError> {
        let records: Vec<&TicketRow> =
            jobs.iter().filter_map(|j| if let TicketWrite::Record(t) = j { Some(t) } else { None }).collect();
        let settles: Vec<Uuid> = jobs
            .iter()
            .filter_map(|j| if let TicketWrite::Settle { id, .. } = j { Some(*id) } else { None })
            .collect();
        let (refused, codes): (Vec<Uuid>, Vec<&str>) = jobs
            .iter()
            .filter_map(|j| {
                if let TicketWrite::Refuse { id, code } = j { Some((*id, code.as_str())) } else { None }
            })
            .unzip();
        let mut inserted = HashSet::new();
        if !records.is_empty() {
            let text =
                |v: &[i16]| format!("{{{}}}", v.iter().map(i16::to_string).collect::<Vec<_>>().join(","));
            let ids: Vec<Uuid> = sqlx::query_scalar(
                "INSERT INTO keno_tickets (id, player_id, wallet_account_id, option, spots, tickets, stake_cents,
                    state, draw_numbers, hits, payout_cents, created_at)
                 SELECT u.id, u.player, u.wallet, u.option, u.spots::smallint[], u.tickets, u.stake, 'drawn',
                        u.numbers::smallint[], u.hits, u.payout, u.created_at
                   FROM UNNEST($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::text[], $6::int[], $7::bigint[],
                               $8::text[], $9::int[], $10::bigint[], $11::timestamptz[])
                        AS u(id, player, wallet, option, spots, tickets, stake, numbers, hits, payout, created_at)
                 ON CONFLICT (id) DO NOTHING RETURNING id",
            )
            .bind(records.iter().map(|t| t.id).collect::<Vec<_>>())
            .bind(records.iter().map(|t| t.player.as_str()).collect::<Vec<_>>())
            .bind(records.iter().map(|t| t.wallet).collect::<Vec<_>>())
            .bind(records.iter().map(|t| t.option.as_str()).collect::<Vec<_>>())
            .bind(records.iter().map(|t| text(&t.spots)).collect::<Vec<_>>())
            .bind(records.iter().map(|t| t.tickets).collect::<Vec<_>>())
            .bind(records.iter().map(|t| t.stake_cents).collect::<Vec<_>>())
            .bind(records.iter().map(|t| text(&t.numbers)).collect::<Vec<_>>())
            .bind(records.iter().map(|t| t.hits).collect::<Vec<_>>())
            .bind(records.iter().map(|t| t.payout_cents).collect::<Vec<_>>())
            .bind(records.iter().map(|t| t.created_at).collect::<Vec<_>>())
            .fetch_all(&mut *conn)
            .await?;
            inserted.extend(ids);
        }
        let mut settled = HashSet::new();
        if !settles.is_empty() {
            let ids: Vec<Uuid> = sqlx::query_scalar(
                "UPDATE keno_tickets t SET state = 'settled', updated_at = now()
                   FROM UNNEST($1::uuid[]) AS u(id) WHERE t.id = u.id AND t.state = 'drawn' RETURNING t.id",
            )
            .bind(&settles)
            .fetch_all(&mut *conn)
            .await?;
            settled.extend(ids);
        }
        let mut ended = HashSet::new();
        if !refused.is_empty() {
            let ids: Vec<Uuid> = sqlx::query_scalar(
                "UPDATE keno_tickets t SET state = 'refused', refusal = u.code, updated_at = now()
                   FROM UNNEST($1::uuid[], $2::text[]) AS u(id, code)
                  WHERE t.id = u.id AND t.state = 'drawn' RETURNING t.id",
            )
            .bind(&refused)
            .bind(&codes)
            .fetch_all(&mut *conn)
            .await?;
            ended.extend(ids);
        }
        let mut chained = Vec::new();
        let outputs = jobs
            .iter()
            .map(|job| match job {
                TicketWrite::Record(t) => inserted.remove(&t.id),
                TicketWrite::Settle { id, audit } => {
                    let first = settled.remove(id);
                    if first {
                        chained.push(audit.clone());
                    }
                    first
                }
                TicketWrite::Refuse { id, .. } => ended.remove(id),
            })
            .collect();
        platform::audit::append_all(conn, &chained).await?;
        Ok(outputs)
    }
}

#[utoipa::path(
    post, path = "/v1/keno/tickets", tag = "keno", request_body = PlayRequest,
    params(("Idempotency-Key" = String, Header, description = "required: a retry with the same key buys the ticket once")),
    responses(
        (status = 201, description = "bought, drawn and settled", body = TicketView),
        (status = 200, description = "a replay: this key's ticket as it stands", body = TicketView),
        (status = "4XX", response = Refused),
    ),
    security(("bearer" = []))
)]
/// `POST /v1/keno/tickets`: a player buys a ticket that is drawn at once.
pub async fn play_now(
    State(state): State<DrawsState>,
    caller: Caller,
    key: IdempotencyKey,
    Json(request): Json<PlayRequest>,
) -> Result<(StatusCode, Json<TicketView>), AppError> {
    caller.require(&[Role::Player])?;
    let Some(key) = key.0 else {
        return Err(AppError::bad_request("missing_idempotency_key", "send an Idempotency-Key header"));
    };
    let tickets = request.tickets.unwrap_or(1);
    let ticket = Ticket::new(request.option, &request.spots, tickets, state.max_tickets)
        .map_err(|e| rule_error(&e))?;
    let player = caller.subject().to_owned();
    let id = Uuid::new_v5(&DRAWS_NAMESPACE, format!("keno-ticket/{player}/{key}").as_bytes());
    let spots: Vec<i16> = ticket.spots.numbers().into_iter().map(i16::from).collect();
    let option = option_name(ticket.option)?;
    let tickets = i32::try_from(tickets).map_err(AppError::internal)?;

    // A fresh generator seeded by the operating system for every draw; the seed is never kept.
    let draw = Draw::random(&mut ChaCha20Rng::from_os_rng());
    let outcome = settle(&ticket, &draw);
    let recorded = TicketRow {
        id,
        wallet: state.ledger.wallet_of(&player).await?,
        player,
        option,
        spots,
        tickets,
        stake_cents: ticket.stake_cents(),
        state: "drawn".to_owned(),
        numbers: draw.numbers.iter().map(|&n| i16::from(n)).collect(),
        hits: i32::try_from(outcome.hits).map_err(AppError::internal)?,
        payout_cents: outcome.payout_cents,
        refusal: None,
        // Postgres keeps microseconds: the answer now and on a replay must be the same.
        created_at: Utc::now().trunc_subsecs(6),
    };
    let created = state.ticket_writes.submit(TicketWrite::Record(recorded.clone())).await?;
    let view = if created {
        settle_recorded(&state, recorded).await?
    } else {
        let existing =
            load(&state, id).await?.ok_or_else(|| AppError::internal("recorded ticket vanished"))?;
        if (&existing.option, &existing.spots, existing.tickets)
            != (&recorded.option, &recorded.spots, tickets)
        {
            return Err(AppError::conflict("idempotency_conflict", "this key bought a different ticket"));
        }
        settle_recorded(&state, existing).await?
    };
    if view.state == "refused" {
        let code = view.refusal.unwrap_or_else(|| "stake_refused".to_owned());
        return Err(AppError::unprocessable(code, "the stake could not be taken from your wallet"));
    }
    Ok((if created { StatusCode::CREATED } else { StatusCode::OK }, Json(view)))
}

/// The outcome as chained in the audit log.
#[derive(Debug, Serialize)]
struct OutcomeRecord<'a> {
    game: &'static str,
    ticket: Uuid,
    player: &'a str,
    option: &'a str,
    spots: &'a [i16],
    tickets: i32,
    numbers: &'a [i16],
    hits: i32,
    payout_cents: i64,
}

/// Settles a recorded ticket (or finds it settled or refused); safe to run again at any point.
pub async fn drive(state: &DrawsState, id: Uuid) -> Result<TicketView, AppError> {
    let ticket =
        load(state, id).await?.ok_or_else(|| AppError::not_found("ticket_not_found", "no such ticket"))?;
    settle_recorded(state, ticket).await
}

async fn settle_recorded(state: &DrawsState, mut ticket: TicketRow) -> Result<TicketView, AppError> {
    if ticket.state != "drawn" {
        return ticket.view();
    }
    let id = ticket.id;
    let metadata = json!({"game": "castle_keno", "ticket": id});
    let mut transfers = vec![NewTransfer::new(
        step_id(id, "stake"),
        ticket.wallet,
        state.house_account,
        ticket.stake_cents,
        metadata.clone(),
    )];
    if ticket.payout_cents > 0 {
        transfers.push(NewTransfer::new(
            step_id(id, "prize"),
            state.house_account,
            ticket.wallet,
            ticket.payout_cents,
            metadata,
        ));
    }
    let moved = state.ledger_batches.submit(transfers).await;
    let write = match moved {
        Ok(_) => {
            let record = OutcomeRecord {
                game: "castle_keno",
                ticket: id,
                player: &ticket.player,
                option: &ticket.option,
                spots: &ticket.spots,
                tickets: ticket.tickets,
                numbers: &ticket.numbers,
                hits: ticket.hits,
                payout_cents: ticket.payout_cents,
            };
            let audit = platform::audit::Entry::new("keno.play_now", id, &record)?;
            ticket.state = "settled".to_owned();
            TicketWrite::Settle { id, audit }
        }
        // The ledger's rules refused it: nothing moved, and nothing will.
        Err(e) if ledger_api::is_refusal(&e) => {
            ticket.state = "refused".to_owned();
            ticket.refusal = Some(e.code().to_owned());
            TicketWrite::Refuse { id, code: e.code().to_owned() }
        }
        Err(e) => return Err(e),
    };
    if state.ticket_writes.submit(write).await? {
        ticket.view()
    } else {
        // Someone else (a retry, the recovery worker) finished it first: show what they wrote.
        load(state, id).await?.ok_or_else(|| AppError::internal("settled ticket vanished"))?.view()
    }
}

fn step_id(ticket: Uuid, step: &str) -> Uuid {
    Uuid::new_v5(&DRAWS_NAMESPACE, format!("keno-ticket/{ticket}/{step}").as_bytes())
}

/// Finishes tickets left `drawn` for longer than `older_than`; returns how many.
pub async fn recover(state: &DrawsState, older_than: Duration) -> Result<usize, AppError> {
    platform::recovery::finish_stuck(
        &state.pool,
        "SELECT id FROM keno_tickets WHERE state = 'drawn' AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT 500",
        older_than,
        "keno play-now ticket",
        |id| drive(state, id),
    )
    .await
}

#[utoipa::path(
    get, path = "/v1/keno/tickets", tag = "keno", params(ListQuery),
    responses(
        (status = 200, description = "the player's newest tickets", body = Vec<TicketView>),
        (status = "4XX", response = Refused),
    ),
    security(("bearer" = []))
)]
/// `GET /v1/keno/tickets`: the caller's own newest tickets.
pub async fn my_tickets(
    State(state): State<DrawsState>,
    caller: Caller,
    Query(query): Query<ListQuery>,
) -> Result<Json<Vec<TicketView>>, AppError> {
    caller.require(&[Role::Player])?;
    let limit = limit_of(&query)?;
    let rows = sqlx::query(&format!(
        "SELECT {TICKET_COLUMNS} FROM keno_tickets WHERE player_id = $1 ORDER BY created_at DESC LIMIT $2"
    ))
    .bind(caller.subject())
    .bind(limit)
    .fetch_all(&state.pool)
    .await?;
    Ok(Json(rows.iter().map(|r| TicketRow::from_row(r)?.view()).collect::<Result<_, _>>()?))
}

#[utoipa::path(
    get, path = "/v1/keno/tickets/{id}", tag = "keno", params(("id" = Uuid, Path, description = "ticket id")),
    responses(
        (status = 200, description = "the ticket", body = TicketView),
        (status = "4XX", response = Refused),
    ),
    security(("bearer" = []))
)]
/// `GET /v1/keno/tickets/{id}`: a player's own ticket; operators and auditors see any.
pub async fn get_ticket(
    State(state): State<DrawsState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<TicketView>, AppError> {
    caller.require(&[Role::Player, Role::Operator, Role::Auditor, Role::Service])?;
    match load(&state, id).await? {
        Some(ticket) if caller.role() != Role::Player || ticket.player == caller.subject() => {
            Ok(Json(ticket.view()?))
        }
        _ => Err(AppError::not_found("ticket_not_found", format!("ticket {id} does not exist"))),
    }
}
