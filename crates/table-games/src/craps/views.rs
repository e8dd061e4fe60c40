//! What craps' requests carry and its answers show: the layout and the puck, each roll with
//! everything it decided, the math.

use chrono::{DateTime, Utc};
use domain::craps::session::{Change, Placed, RollReport, Session, TableRules};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::store::{Money, StoredRoll, StoredSession};

/// `POST /v1/craps/sessions`.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = OpenCrapsSession)]
pub struct OpenSession {
    /// The table's odds multiple: 1 to the house's (`LOTTO_CRAPS_ODDS_MULTIPLE`); the house's
    /// when absent (refused `invalid_odds_multiple` above the house's).
    #[schema(minimum = 1)]
    pub odds_multiple: Option<u32>,
}

/// `POST /v1/craps/sessions/{id}/rolls` and `/bets`.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CrapsPlayRequest)]
pub struct PlayRequest {
    /// Changes to the layout, applied in order before the roll: `{"change": "place", "bet":
    /// "pass", "amount_cents": 500}`, `reduce`, `remove`, `working` (`"working": true` to call it on). A bet on a
    /// number names it (`"bet": "place", "number": 6`).
    #[serde(default)]
    pub changes: Vec<Change>,
    /// The session's roll count this request was decided on: refused as `stale_step` if another
    /// roll came first.
    pub expected_rolls: Option<i32>,
}

/// A bet on the layout and whether it works on the next roll.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct BetView {
    #[serde(flatten)]
    pub placed: Placed,
    pub works: bool,
    /// Whether the rules let the player take it down now (45(d): not a pass line once its
    /// point is set, nor a come or put bet on its number).
    pub may_take_down: bool,
    /// Whether calling it off (or on) changes anything: the line, come and put bets always
    /// work (45(f)).
    pub may_call_off: bool,
}

/// What one area of the layout pays (`GET /v1/craps/math`), in a player's words.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[schema(as = CrapsAreaPays)]
pub struct AreaPays {
    #[serde(flatten)]
    pub bet: domain::craps::Bet,
    pub pays: String,
}

/// A session as its player sees it.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = CrapsSession)]
pub struct SessionView {
    pub id: Uuid,
    pub rules: TableRules,
    /// The puck: the point, or none before a come-out roll.
    pub point: Option<u8>,
    pub rolls: i32,
    pub shooter_rolls: u32,
    pub shooter_has_point: bool,
    pub dont_locked: bool,
    pub bets: Vec<BetView>,
    /// Everything on the layout, in cents.
    pub on_layout_cents: i64,
    pub created_at: DateTime<Utc>,
}

pub fn session_view(stored: &StoredSession) -> SessionView {
    let s = &stored.session;
    SessionView {
        id: stored.id,
        rules: s.rules,
        point: s.point,
        rolls: stored.rolls,
        shooter_rolls: s.shooter_rolls,
        shooter_has_point: s.shooter_has_point,
        dont_locked: s.dont_locked,
        bets: s
            .bets
            .iter()
            .map(|p| BetView {
                placed: *p,
                works: s.works(p),
                may_take_down: s.may_remove(p.bet),
                may_call_off: !Session::always_works(p.bet),
            })
            .collect(),
        on_layout_cents: s.bets.iter().map(|p| p.amount_cents).fold(0, i64::saturating_add),
        created_at: stored.created_at,
    }
}

/// One request as recorded: its changes, its roll with everything decided, its money.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = CrapsRoll)]
pub struct RollView {
    pub session_id: Uuid,
    pub seq: i32,
    pub changes: Vec<Change>,
    pub roll: Option<RollReport>,
    pub money: Money,
    pub balance_before_cents: i64,
    pub balance_after_cents: i64,
    pub created_at: DateTime<Utc>,
}

pub fn roll_view(stored: &StoredRoll) -> RollView {
    RollView {
        session_id: stored.session_id,
        seq: stored.seq,
        changes: stored.changes.clone(),
        roll: stored.report.clone(),
        money: stored.money,
        balance_before_cents: stored.balance_before_cents,
        balance_after_cents: stored.balance_after_cents,
        created_at: stored.created_at,
    }
}

/// A request's answer: what it did and the session after it.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = CrapsPlay)]
pub struct PlayView {
    pub result: RollView,
    pub session: SessionView,
}

/// `GET /v1/craps/math`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[schema(as = CrapsMath)]
pub struct MathView {
    pub rules: TableRules,
    /// Every wager: chances, return, house edge per unit wagered and per roll, exactly.
    pub wagers: Vec<domain::craps::math::WagerMath>,
    /// The pass line with the house's full odds behind it, per unit wagered in all.
    pub pass_with_full_odds: domain::craps::math::Exact,
    pub power_odds: Vec<domain::craps::math::PowerOddsFigures>,
    pub ambiguities: Vec<domain::craps::math::Ambiguity>,
    /// What each area of the layout pays, as the table shows it.
    pub areas: Vec<AreaPays>,
}

/// The math page for this house's table (counted once per process by the route).
pub fn math_view(rules: TableRules) -> MathView {
    use domain::craps::math;
    let per_thousand = rules.power_odds.map_or(0, |p| p.per_thousand_rolls);
    MathView {
        rules,
        wagers: math::every_wager(rules.power_odds.map(|p| (p.table, p.per_thousand_rolls))),
        pass_with_full_odds: (&math::pass_with_odds(rules.odds_multiple)).into(),
        power_odds: math::power_odds_figures(per_thousand),
        ambiguities: math::ambiguities(),
        areas: domain::craps::pays::layout()
            .into_iter()
            .map(|bet| AreaPays { bet, pays: domain::craps::pays::pays(bet) })
            .collect(),
    }
}
