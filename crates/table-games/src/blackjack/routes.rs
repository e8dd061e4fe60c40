//! Blackjack's handlers: each authorises its caller, extracts the request, makes one call into
//! the [`super::saga`] or [`super::store`], and answers a view.

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode};
use domain::blackjack::side_math::{self, Composition};
use domain::blackjack::side_wagers::BLAZING_SEVENS_SEED_CENTS;
use domain::cards::Decks;
use platform::auth::{Caller, Role};
use platform::codes;
use platform::openapi::Refused;
use platform::{AppError, IdempotencyKey, Json, Path};
use uuid::Uuid;

use super::saga;
use super::store::{self, RoundState};
use super::views::*;
use crate::TablesState;

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
    let (id, rules, shoe) = saga::open_table(&state, caller.subject(), &request).await?;
    Ok((StatusCode::CREATED, Json(table_view(id, &rules, &shoe, 1))))
}

#[utoipa::path(
    post, path = "/v1/blackjack/tables/{id}/rounds", tag = "blackjack", request_body = DealRequest,
    params(("id" = Uuid, Path, description = "table id"),
           ("Idempotency-Key" = String, Header, description = "required: a retry with the same key deals the round once")),
    responses(
        (status = 201, description = "wagers taken, cards dealt (and settled, when the deal ends the round)", body = RoundView),
        (status = 200, description = "a replay: this key's round as it stands (`Idempotent-Replayed: true`); or the table's round still in play, answered instead of dealing another, nothing staked (`Idempotent-Replayed: false`, `Content-Location` the round)", body = RoundView),
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
) -> Result<axum::response::Response, AppError> {
    caller.require(&[Role::Player])?;
    let key = key.required()?;
    let (round, placed) = saga::place_bets(&state, table, caller.subject(), key, &request.spots).await?;
    if round.state == RoundState::Refused {
        // The ledger's own refusal, kept with the round.
        let code = round.refusal.unwrap_or_else(|| codes::STAKE_REFUSED.as_str().to_owned());
        let detail = "the wagers could not be taken from your wallet";
        return Err(AppError::relayed(StatusCode::UNPROCESSABLE_ENTITY, code, detail));
    }
    if placed == saga::Placed::Dealt {
        platform::metrics::count_play(ledger_api::Game::Blackjack.label(), "online");
    }
    let location = format!("/v1/blackjack/rounds/{}", round.id);
    let mut response = platform::http::created_or_replayed(
        round_view(&round)?,
        placed == saga::Placed::Dealt,
        Some(&location),
    );
    if placed == saga::Placed::InPlay {
        // Not a replay of this key: the round in play, where it stands.
        response.headers_mut().insert(platform::http::IDEMPOTENT_REPLAYED, HeaderValue::from_static("false"));
        if let Ok(at) = HeaderValue::from_str(&location) {
            response.headers_mut().insert(axum::http::header::CONTENT_LOCATION, at);
        }
    }
    Ok(response)
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
    let round =
        saga::decide(&state, id, Some(caller.subject()), Some((request.step, request.action))).await?;
    Ok(Json(round_view(&round)?))
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
    match store::load_round(&state.pool, id).await? {
        Some(round) if caller.role() != Role::Player || round.player_id == caller.subject() => {
            Ok(Json(round_view(&round)?))
        }
        _ => Err(AppError::not_found(codes::ROUND_NOT_FOUND, format!("round {id} does not exist"))),
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
    let rounds = store::recent_rounds(&state.pool, caller.subject(), 10).await?;
    Ok(Json(rounds.iter().map(round_view).collect::<Result<_, _>>()?))
}

#[utoipa::path(
    get, path = "/v1/blackjack/progressive", tag = "blackjack",
    responses((status = 200, description = "the Blazing 7's pot, a ledger balance (public)", body = ProgressiveView),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/blackjack/progressive`: public.
pub async fn progressive(State(state): State<TablesState>) -> Result<Json<ProgressiveView>, AppError> {
    Ok(Json(ProgressiveView {
        pot_cents: state.ledger.balance(state.blackjack.pot_account).await?,
        seed_cents: BLAZING_SEVENS_SEED_CENTS,
        contribution_percent: domain::blackjack::side_wagers::BLAZING_SEVENS_POT_PERCENT,
        wager_cents: state.blackjack.limits.progressive_wager_cents,
    }))
}

#[utoipa::path(
    get, path = "/v1/blackjack/math", tag = "blackjack", operation_id = "blackjack_math",
    responses((status = 200, description = "the house edge under basic strategy and the side wagers' exact returns (public)", body = MathView),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/blackjack/math`: public.
pub async fn math(State(state): State<TablesState>) -> Json<MathView> {
    let mut side_wagers = Vec::new();
    for (count, decks) in [(6u8, Decks::Six), (2, Decks::Two)] {
        let shoe = Composition::full(decks);
        side_wagers.push(SideWagerView::new(count, side_math::trilux(&shoe)));
        side_wagers.push(SideWagerView::new(count, side_math::trilux_super_3(&shoe)));
        // Royal Match 21 and the Blazing 7's are offered at six-deck tables only.
        if decks == Decks::Six {
            side_wagers.push(SideWagerView::new(count, side_math::royal_match(&shoe)));
            let wager = state.blackjack.limits.progressive_wager_cents;
            let long_run = side_math::blazing_sevens_long_run(
                &shoe,
                BLAZING_SEVENS_SEED_CENTS,
                wager,
                domain::blackjack::side_wagers::BLAZING_SEVENS_POT_PERCENT,
            );
            side_wagers.push(
                SideWagerView::new(count, side_math::blazing_sevens(&shoe, BLAZING_SEVENS_SEED_CENTS, wager))
                    .with_long_run(long_run),
            );
        }
    }
    let main_game = MAIN_GAME_EDGES
        .iter()
        .map(|&(decks, rounds, seed, edge, ci)| MainGameEdge {
            decks,
            rounds,
            seed,
            house_edge_percent: edge,
            confidence_95_percent: ci,
        })
        .collect();
    let readings = MAIN_GAME_EDGES
        .iter()
        .map(|&(decks, _, _, edge, _)| {
            let adds = domain::blackjack::split_protection::split_protection_worth(decks) * 100.0;
            MainGameReading {
                decks,
                rule: "K.A.R. 111-301-6(g)(3)".to_owned(),
                question: "A dealer blackjack shown after the players' decisions takes only the original wager of a spot \
                           that doubled; the text is silent on a spot that split. Does it lose every split hand?"
                    .to_owned(),
                implemented: "No: a spot that split loses its original wager and the wagers split off are returned, as \
                              for doubling (the dealer's unchecked hole card induced the split)."
                    .to_owned(),
                house_edge_percent: edge,
                other_reading_adds_percent: adds,
                house_edge_other_reading_percent: edge + adds,
            }
        })
        .collect();
    Json(MathView { main_game, readings, side_wagers })
}

#[utoipa::path(
    get, path = "/v1/tables/audit/verify", tag = "blackjack", operation_id = "verify_tables_audit",
    responses((status = 200, description = "the audit chain walked end to end", body = platform::audit::ChainReport),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/tables/audit/verify`: operators and auditors check every round's chain.
pub async fn verify_audit(
    State(state): State<TablesState>,
    caller: Caller,
) -> Result<Json<platform::audit::ChainReport>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor, Role::Service])?;
    Ok(Json(platform::audit::verify(&state.pool).await?))
}
