//! What the draw games' requests carry and their answers show: the wire types of the routes.

use chrono::{DateTime, Utc};
use domain::keno::BetOption;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// `POST /v1/keno/tickets`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayRequest {
    /// `bet`, `bet_against`, `hit_all`, `high_roller` or `top_or_bottom`.
    pub option: BetOption,
    /// The marked numbers (different, 1 to 80); none for `top_or_bottom`.
    #[serde(default)]
    #[schema(schema_with = keno_spots)]
    pub spots: Vec<u8>,
    /// Whole $1 tickets staked (default 1); the payout is that multiple of the table.
    pub tickets: Option<u32>,
}

/// A ticket as its player (or an operator) sees it.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TicketView {
    pub id: Uuid,
    pub option: BetOption,
    pub spots: Vec<i16>,
    pub tickets: i32,
    pub stake_cents: i64,
    /// `drawn` (being paid), `settled` or `refused`.
    #[schema(schema_with = crate::store::PlayNowState::schema)]
    pub state: crate::store::PlayNowState,
    /// The 20 numbers, in the order drawn; shown once settled.
    pub draw_numbers: Option<Vec<i16>>,
    pub hits: Option<i32>,
    pub payout_cents: Option<i64>,
    /// Why the stake was refused (a ledger problem code).
    pub refusal: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// `POST /v1/keno/draw-tickets`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DrawTicketRequest {
    /// `bet`, `bet_against`, `hit_all`, `high_roller` or `top_or_bottom`.
    pub option: BetOption,
    /// The marked numbers (different, 1 to 80); none for `top_or_bottom`.
    #[serde(default)]
    #[schema(schema_with = keno_spots)]
    pub spots: Vec<u8>,
    /// Whole $1 tickets staked on each draw (default 1).
    pub tickets: Option<u32>,
    /// How many consecutive draws, starting with the next (default 1).
    pub draws: Option<u32>,
}

/// One draw a ticket is in.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct EntryView {
    pub draw_number: i64,
    pub sales_close_at: DateTime<Utc>,
    /// The draw's state: `scheduled`, `open`, `closed`, `drawn` or `settled`.
    #[schema(schema_with = crate::store::DrawState::schema)]
    pub draw_state: crate::store::DrawState,
    /// The draw's numbers, once drawn.
    pub numbers: Option<Vec<i16>>,
    pub hits: Option<i32>,
    /// What this entry won, once paid.
    pub payout_cents: Option<i64>,
}

/// A ticket for scheduled draws.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DrawTicketView {
    pub id: Uuid,
    pub option: BetOption,
    pub spots: Vec<i16>,
    pub tickets: i32,
    /// The stake on each draw.
    pub stake_cents: i64,
    pub draws: i32,
    /// `open` (being staked), `staked` or `refused`.
    #[schema(schema_with = crate::store::DrawTicketState::schema)]
    pub state: crate::store::DrawTicketState,
    pub refusal: Option<String>,
    pub created_at: DateTime<Utc>,
    pub entries: Vec<EntryView>,
    /// The draws this ticket was taken out of when its player's break or exclusion began, and
    /// the stake returned for them.
    pub voided: Option<VoidedTicketView>,
}

/// A draw as anyone may see it.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DrawView {
    pub number: i64,
    pub sales_close_at: DateTime<Utc>,
    /// `scheduled`, `open`, `closed`, `drawn` or `settled`.
    #[schema(schema_with = crate::store::DrawState::schema)]
    pub state: crate::store::DrawState,
    /// Entries, total staked and the SHA-256 of the wager set (hex), frozen at close.
    pub entries: Option<i32>,
    pub wagers_cents: Option<i64>,
    pub wager_set_hash: Option<String>,
    /// The 20 numbers in the order drawn, once drawn.
    pub numbers: Option<Vec<i16>>,
    pub drawn_at: Option<DateTime<Utc>>,
}

impl From<crate::store::keno::draws::DrawRow> for DrawView {
    fn from(row: crate::store::keno::draws::DrawRow) -> Self {
        DrawView {
            number: row.number,
            sales_close_at: row.sales_close_at,
            state: row.state,
            entries: row.entries,
            wagers_cents: row.wagers_cents,
            wager_set_hash: row.wager_set_hash.map(hex::encode),
            numbers: row.numbers,
            drawn_at: row.drawn_at,
        }
    }
}

/// One option's pay table for the $1 ticket.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PayTable {
    pub option: BetOption,
    pub min_spots: usize,
    pub max_spots: usize,
    /// (spots, hits, cents) for every paying cell; TOP OR BOTTOM lists the smaller half's hits.
    pub cells: Vec<[i64; 3]>,
}

/// A Powerball drawing as anyone may see it.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PowerballDrawView {
    /// Its day, central time.
    pub draw_date: chrono::NaiveDate,
    pub sales_close_at: DateTime<Utc>,
    pub sales_resume_at: DateTime<Utc>,
    pub draw_at: DateTime<Utc>,
    /// Whether a play may be sold now (not between 8:59 and 9:05 p.m. central on a draw day).
    pub sales_open: bool,
    /// While sales are closed: when they resume.
    pub resumes_at: Option<DateTime<Utc>>,
    /// The advertised (annuity) grand prize and the cash that funds it, once the operator sets them.
    pub advertised_cents: Option<i64>,
    pub cash_value_cents: Option<i64>,
    /// The Power Play drum the advertised grand prize calls for: `with_ten_x` (at most
    /// $150,000,000) or `without_ten_x`.
    #[schema(value_type = Option<domain::powerball::PowerPlayBalls>)]
    pub power_play_balls: Option<String>,
    /// `scheduled`, `closed` (wager set frozen), `drawn` (results stand), `settled` (winners
    /// found), `certified` (an independent count agreed; prizes payable) or `disputed`.
    #[schema(schema_with = crate::store::PowerballDrawState::schema)]
    pub state: crate::store::PowerballDrawState,
    /// How its results come to stand: `entered` (two operators) or `drawn` (the service's RNG).
    pub results_mode: crate::ResultsMode,
    /// Once closed: the frozen wager set's tickets, plays and wagers, and its export's SHA-256.
    pub tickets: Option<i64>,
    pub plays: Option<i64>,
    pub wagers_cents: Option<i64>,
    pub export_sha256: Option<String>,
    /// Once they stand.
    pub results: Option<PowerballResultsView>,
    /// Once certified: winners and prize per tier, with and without Power Play.
    pub prize_table: Option<Vec<PrizeLineView>>,
    /// Why a disputed drawing stopped.
    pub dispute: Option<String>,
}

/// A drawing's results.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PowerballResultsView {
    pub whites: Vec<u8>,
    pub powerball: u8,
    /// The Power Play multiplier drawn.
    pub multiplier: u8,
}

/// One line of a drawing's prize table.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PrizeLineView {
    /// `grand_prize`, `five`, `four_powerball`, `four`, `three_powerball`, `three`,
    /// `two_powerball`, `one_powerball` or `powerball`.
    #[schema(value_type = domain::powerball::Tier)]
    pub tier: String,
    pub power_play: bool,
    pub winners: u64,
    pub prize_cents: i64,
    pub total_cents: i64,
}

/// One board of a slip as the player marks it.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BoardRequest {
    /// Five different numbers, 1 to 69.
    #[schema(schema_with = white_balls)]
    pub whites: Vec<u8>,
    /// 1 to 26 (it may equal one of the whites).
    #[schema(minimum = 1, maximum = 26)]
    pub powerball: u8,
}

/// `POST /v1/powerball/tickets` (online) and `POST /v1/powerball/retail/tickets` (terminals).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PowerballSaleRequest {
    /// The boards the player marked.
    #[serde(default)]
    pub boards: Vec<BoardRequest>,
    /// How many more boards the server picks (default 0).
    #[serde(default)]
    pub quick_picks: u32,
    /// Power Play on every board ($1 more a board).
    #[serde(default)]
    pub power_play: bool,
    /// Consecutive drawings, from the next one on sale (default 1; at most the operator's
    /// setting, refused `draws_out_of_range` beyond it).
    #[schema(minimum = 1)]
    pub draws: Option<u32>,
}

/// A board of a ticket.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct BoardView {
    /// 1, 2, ... as printed.
    pub board: i16,
    pub whites: Vec<u8>,
    pub powerball: u8,
    /// Picked by the server.
    pub quick_pick: bool,
}

/// A winning board of a ticket in one drawing.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct WinningBoardView {
    pub board: i16,
    #[schema(value_type = domain::powerball::Tier)]
    pub tier: String,
    pub prize_cents: i64,
}

/// A drawing a ticket is in.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TicketDrawingView {
    pub draw_date: chrono::NaiveDate,
    #[schema(schema_with = crate::store::PowerballDrawState::schema)]
    pub state: crate::store::PowerballDrawState,
    /// Once the drawing is settled: the boards that won and their prizes.
    pub winnings: Vec<WinningBoardView>,
}

/// A Powerball ticket as printed and as it stands.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PowerballTicketView {
    /// What is printed and scanned: 19 digits with a Luhn check digit, in groups
    /// (`DDDD-DDDD-DDDD-DDDD-DDD`); it says nothing about the plays.
    pub serial: String,
    /// `sold`, `open` (being sold) or `refused`.
    #[schema(schema_with = crate::store::PowerballTicketState::schema)]
    pub state: crate::store::PowerballTicketState,
    /// `terminal` or `online`.
    #[schema(schema_with = sale_channels)]
    pub channel: String,
    pub boards: Vec<BoardView>,
    pub power_play: bool,
    pub draws: i16,
    /// For every drawing together.
    pub cost_cents: i64,
    pub drawings: Vec<TicketDrawingView>,
    /// Why a sale was refused (a ledger problem code).
    pub refusal: Option<String>,
    pub created_at: DateTime<Utc>,
    /// The drawings this ticket was taken out of when its player's break or exclusion began,
    /// and the cost returned for them.
    pub voided: Option<VoidedTicketView>,
}

/// `POST /v1/powerball/draws/{date}/results`: one operator's entry of the official results.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResultsRequest {
    /// Five different numbers, 1 to 69.
    #[schema(schema_with = white_balls)]
    pub whites: Vec<u8>,
    /// 1 to 26.
    #[schema(minimum = 1, maximum = 26)]
    pub powerball: u8,
    /// The Power Play multiplier drawn: 2, 3, 4, 5 or (with the 10x in the drum) 10.
    #[schema(schema_with = multipliers)]
    pub multiplier: u8,
}

/// The answer to a results entry.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ResultsEntryView {
    /// `awaiting_second_entry` (a different operator must enter the same) or `results_stand`.
    #[schema(schema_with = entry_outcomes)]
    pub outcome: String,
    pub drawing: PowerballDrawView,
}

/// `PUT /v1/powerball/draws/{date}/results-mode`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResultsModeRequest {
    pub results_mode: crate::ResultsMode,
}

/// `PUT /v1/powerball/draws/{date}/grand-prize`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GrandPrizeRequest {
    /// The advertised annuity grand prize, 1 to 1,000,000,000,000 cents.
    #[schema(minimum = 1, maximum = 1_000_000_000_000_i64)]
    pub advertised_cents: i64,
    /// The cash held in the grand prize pool for the drawing: at least 1 cent, and at most the
    /// advertised amount (refused `invalid_grand_prize` otherwise).
    #[schema(minimum = 1, maximum = 1_000_000_000_000_i64)]
    pub cash_value_cents: i64,
}

/// `GET /v1/powerball/retail/day`: the window of a till's Powerball figures.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct RetailDayQuery {
    /// From this instant (inclusive); the last 24 hours by default.
    pub since: Option<DateTime<Utc>>,
    /// To this instant (exclusive); now by default (the game's clock).
    pub until: Option<DateTime<Utc>>,
}

/// A retailer's Powerball in a window, beside its instant figures at the till's close-out:
/// tickets its terminals sold and what they cost, prizes its terminals paid.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PowerballRetailDay {
    pub retailer_id: String,
    pub since: DateTime<Utc>,
    pub until: DateTime<Utc>,
    pub tickets_sold: i64,
    pub sales_cents: i64,
    pub prizes_paid: i64,
    pub prizes_paid_cents: i64,
}

/// `POST /v1/powerball/retail/claims`: what a terminal scans.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PowerballClaimRequest {
    /// The ticket's serial as scanned (19 digits) or typed (with dashes).
    #[schema(pattern = "^[- ]*[1-9]([- ]*[0-9]){18}[- ]*$")]
    pub serial: String,
    /// The drawing whose prizes are claimed; by default the earliest certified one with a prize
    /// unpaid.
    pub draw_date: Option<chrono::NaiveDate>,
}

/// The office's record of a claimant.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PowerballClaimant {
    /// At most 200 characters, not all spaces.
    #[schema(max_length = 200, pattern = "\\S")]
    pub name: String,
    /// The last four digits of the claimant's taxpayer number: required when a W-2G is made.
    #[schema(pattern = "^[0-9]{4}$")]
    pub tin_last4: Option<String>,
}

/// `POST /v1/powerball/office-claims`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PowerballOfficeClaimRequest {
    /// 19 digits, dashes or spaces between them allowed (`GET /v1/powerball/tickets/{serial}`).
    #[schema(pattern = "^[- ]*[1-9]([- ]*[0-9]){18}[- ]*$")]
    pub serial: String,
    pub draw_date: Option<chrono::NaiveDate>,
    pub claimant: PowerballClaimant,
    /// For the grand prize: `annuity` (the default when none is made) or `cash`.
    pub election: Option<domain::powerball::grand_prize::Election>,
}

/// A claim, paid.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PowerballClaimView {
    pub id: Uuid,
    pub serial: String,
    pub draw_date: chrono::NaiveDate,
    /// The retailer whose terminal paid it, or `office`.
    pub payee: String,
    /// The ticket's prizes in the drawing (for the grand prize, its annuity share).
    pub prize_cents: i64,
    /// Paid now: the prize, or for the grand prize the cash share or the annuity's first payment.
    pub paid_cents: i64,
    pub withheld_cents: i64,
    /// Paid to the claimant.
    pub net_cents: i64,
    /// A W-2G record was made.
    pub w2g: bool,
    /// For the grand prize: `annuity` or `cash`.
    #[schema(value_type = Option<domain::powerball::grand_prize::Election>)]
    pub election: Option<String>,
    /// For an annuity: the 30 payments, the first paid now.
    pub annuity_payments: Option<Vec<i64>>,
    /// For the cash election: the annuity share less the cash, back to the house.
    pub released_cents: i64,
    /// At the office: the claimant paid, as the office recorded them.
    pub claimant_name: Option<String>,
    /// At the office: the last four digits of the claimant's taxpayer number (with a W-2G).
    pub tin_last4: Option<String>,
    pub paid_by: String,
    pub created_at: DateTime<Utc>,
}

/// `GET /v1/powerball/office-claims` filters.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PowerballOfficeClaimsQuery {
    /// Only claims with a W-2G record (`true`), or only those without (`false`).
    pub w2g: Option<bool>,
    /// At most this many, newest first (1 to 500; 50 by default).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
}

/// `GET /v1/powerball/annuities`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PowerballAnnuitiesQuery {
    /// At most this many annuities, newest claim first (1 to 500; 50 by default).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
}

/// A grand prize paid as an annuity: its claim and its 30 payments (issue 50).
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PowerballAnnuityView {
    pub claim_id: Uuid,
    pub serial: String,
    pub draw_date: chrono::NaiveDate,
    pub claimant_name: Option<String>,
    pub tin_last4: Option<String>,
    pub claimed_at: DateTime<Utc>,
    /// The annuity: the 30 payments together.
    pub total_cents: i64,
    /// Paid so far (before tax).
    pub paid_cents: i64,
    /// Still owed, in the annuity account.
    pub owed_cents: i64,
    /// The date of the next payment not paid, if any.
    pub next_due_on: Option<chrono::NaiveDate>,
    pub payments: Vec<PowerballAnnuityPaymentView>,
}

/// One payment of an annuity, with its year's W-2G record.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PowerballAnnuityPaymentView {
    /// 1 to 30; the first is paid with the claim.
    pub number: i16,
    pub due_on: chrono::NaiveDate,
    /// The tax year whose W-2G reports it (the year it falls due).
    pub tax_year: i32,
    pub amount_cents: i64,
    pub withheld_cents: i64,
    pub net_cents: i64,
    /// A W-2G record is made for it.
    pub w2g: bool,
    /// When it was paid; none while it is owed.
    pub paid_at: Option<DateTime<Utc>>,
}

/// Where a Powerball ticket was sold.
fn sale_channels() -> platform::openapi::SchemaObject {
    platform::openapi::one_of_texts(&["terminal", "online"])
}

/// What an operator's entry of results did.
fn entry_outcomes() -> platform::openapi::SchemaObject {
    platform::openapi::one_of_texts(&["awaiting_second_entry", "results_stand"])
}

/// A ticket taken out of its future draws when its player's play was suspended (a break or an
/// exclusion, issue 35): the entries in draws not yet closed are void and their stake returned
/// to the wallet in one transfer keyed to the ticket.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct VoidedTicketView {
    pub ticket_id: Uuid,
    /// `castle_keno` or `powerball`.
    pub game: String,
    /// The draws taken out: Keno draw numbers or Powerball drawing dates.
    pub draws: Vec<String>,
    pub refund_cents: i64,
    /// `time_out`, `self_exclusion`, `exclusion_list` or `closure`.
    pub reason: String,
    pub voided_at: DateTime<Utc>,
    /// When the refund was in the ledger's journal; `null` while it is on its way.
    pub refunded_at: Option<DateTime<Utc>>,
}

impl From<crate::store::voids::Voided> for VoidedTicketView {
    fn from(v: crate::store::voids::Voided) -> Self {
        VoidedTicketView {
            ticket_id: v.ticket_id,
            game: v.game,
            draws: v.draws,
            refund_cents: v.refund_cents,
            reason: v.reason,
            voided_at: v.voided_at,
            refunded_at: v.refunded_at,
        }
    }
}

/// `POST /v1/draws/players/{player}/void-future-tickets`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VoidRequest {
    /// Why: `time_out`, `self_exclusion`, `exclusion_list` or `closure`.
    pub reason: VoidReason,
}

/// Why a player's future tickets are void.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum VoidReason {
    TimeOut,
    SelfExclusion,
    ExclusionList,
    Closure,
}

impl VoidReason {
    pub fn as_str(self) -> &'static str {
        match self {
            VoidReason::TimeOut => "time_out",
            VoidReason::SelfExclusion => "self_exclusion",
            VoidReason::ExclusionList => "exclusion_list",
            VoidReason::Closure => "closure",
        }
    }
}

/// What voiding a player's future tickets did: each ticket taken out (refunded by now), and the
/// total returned to the wallet.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct VoidReport {
    pub voided: Vec<VoidedTicketView>,
    pub refunded_cents: i64,
}

/// One Server-Sent Event of `GET /v1/draws/live`, as a client's event-stream parser hands it
/// over. (It describes the stream for the contract; the route writes the events itself.)
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct LiveEvent {
    /// `keno_open`, `keno_draw` or `powerball_drawing`.
    #[schema(pattern = "^(keno_open|keno_draw|powerball_drawing)$")]
    pub event: String,
    /// The event's JSON: a `DrawView` for the Keno events, a `PowerballDrawView` for the
    /// Powerball one.
    pub data: String,
    /// A `keno_draw`'s draw number (sent back as `Last-Event-ID` on a reconnection).
    pub id: Option<String>,
    /// Milliseconds a client waits before reconnecting (sent when the server shuts down).
    pub retry: Option<u64>,
}

/// Five different white balls, 1 to 69 (`domain::powerball`'s matrix).
fn white_balls() -> utoipa::openapi::schema::Array {
    use domain::powerball::{WHITE_BALLS, WHITES};
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Type};
    let ball = ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(1)).maximum(Some(WHITE_BALLS));
    ArrayBuilder::new().items(ball).min_items(Some(WHITES)).max_items(Some(WHITES)).unique_items(true).build()
}

/// The Power Play multipliers a drum can hold.
fn multipliers() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    ObjectBuilder::new().schema_type(Type::Integer).enum_values(Some([2, 3, 4, 5, 10])).build()
}

/// Keno's marked numbers: different, each 1 to 80 (the option says how many; Castle Keno rules).
fn keno_spots() -> utoipa::openapi::schema::Array {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Type};
    let spot = ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(1)).maximum(Some(80));
    ArrayBuilder::new().items(spot).max_items(Some(80)).unique_items(true).build()
}
