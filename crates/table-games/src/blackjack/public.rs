//! The public reads of blackjack: the Blazing 7's meter and the math; and the audit chain's
//! check for operators and auditors.

use super::*;

/// The Blazing 7's meter.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ProgressiveView {
    pub pot_cents: i64,
    pub seed_cents: i64,
    pub contribution_percent: i64,
    pub wager_cents: i64,
}

#[utoipa::path(
    get, path = "/v1/blackjack/progressive", tag = "blackjack",
    responses((status = 200, description = "the Blazing 7's pot, a ledger balance (public)", body = ProgressiveView),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/blackjack/progressive`: public.
pub async fn progressive(State(state): State<TablesState>) -> Result<Json<ProgressiveView>, AppError> {
    Ok(Json(ProgressiveView {
        pot_cents: state.ledger.balance(state.pot_account).await?,
        seed_cents: BLAZING_SEVENS_SEED_CENTS,
        contribution_percent: domain::blackjack::side_wagers::BLAZING_SEVENS_POT_PERCENT,
        wager_cents: state.limits.progressive_wager_cents,
    }))
}

/// The house edge of the main game under basic strategy, as measured by
/// `cargo bench -p domain --bench blackjack` (20,000,000 seeded rounds per shoe size).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct MainGameEdge {
    pub decks: u8,
    pub rounds: u64,
    pub seed: u64,
    pub house_edge_percent: f64,
    pub confidence_95_percent: f64,
}

/// Measured on 2026-11-29 (see the README); `tests/blackjack.rs` in `domain` re-runs a short
/// simulation on every build.
pub const MAIN_GAME_EDGES: [(u8, u64, u64, f64, f64); 2] =
    [(6, 20_000_000, 6, 0.608, 0.051), (2, 20_000_000, 2, 0.432, 0.051)];

/// `GET /v1/blackjack/math`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct MathView {
    pub main_game: Vec<MainGameEdge>,
    /// Each side wager's exact outcomes and return, for a full six-deck and two-deck shoe.
    #[schema(value_type = Vec<Object>)]
    pub side_wagers: Vec<(u8, SideWagerMath)>,
}

#[utoipa::path(
    get, path = "/v1/blackjack/math", tag = "blackjack",
    responses((status = 200, description = "the house edge under basic strategy and the side wagers' exact returns (public)", body = MathView),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/blackjack/math`: public.
pub async fn math(State(state): State<TablesState>) -> Json<MathView> {
    let mut side_wagers = Vec::new();
    for (count, decks) in [(6u8, Decks::Six), (2, Decks::Two)] {
        let shoe = Composition::full(decks);
        side_wagers.push((count, side_math::trilux(&shoe)));
        side_wagers.push((count, side_math::trilux_super_3(&shoe)));
        if decks == Decks::Six {
            side_wagers.push((count, side_math::royal_match(&shoe)));
        }
        side_wagers.push((
            count,
            side_math::blazing_sevens(&shoe, BLAZING_SEVENS_SEED_CENTS, state.limits.progressive_wager_cents),
        ));
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
    Json(MathView { main_game, side_wagers })
}

#[utoipa::path(
    get, path = "/v1/tables/audit/verify", tag = "blackjack",
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
