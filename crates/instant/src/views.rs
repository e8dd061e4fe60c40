//! What the instant service's requests carry and its answers show: the wire types of its routes,
//! and nothing else (no SQL, no rules).

use chrono::{DateTime, Utc};
use domain::instant::Mismatch;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// `POST /v1/instant/validations`, `/claims` and `/office-claims`: what was scanned.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ValidationRequest {
    /// As printed (`GGG-BBBBBB-TTT-C`) or as a keyboard-wedge scanner types it (the 13 digits).
    pub barcode: String,
    /// The twelve digits under the coating (spaces or dashes between groups are ignored; anything
    /// else is `invalid_virn`, which does not count toward the terminal's lock).
    pub virn: String,
}

/// What the terminal shows.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ValidationView {
    pub winner: bool,
    pub prize_cents: i64,
    /// A prize of a free ticket of the same game.
    pub free_ticket: bool,
    /// Where the prize is paid: `retailer` (up to the retailer limit) or `lottery_office`.
    pub paid_at: Option<String>,
}

/// What a paid claim moved.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ClaimView {
    /// Credited to the retailer's settlement account: the prize, or for a free ticket the
    /// price of the ticket the retailer hands over.
    pub paid_cents: i64,
    pub free_ticket: bool,
}

/// Who is paid, as the office records it.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Claimant {
    pub name: String,
    pub address: Option<String>,
    /// The last four digits of the claimant's taxpayer number: required when a W-2G is made.
    pub tin_last4: Option<String>,
}

/// `POST /v1/instant/office-claims`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OfficeClaimRequest {
    pub barcode: String,
    pub virn: String,
    pub claimant: Claimant,
}

/// A prize paid at the office.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct OfficeClaimView {
    pub id: Uuid,
    pub barcode: String,
    pub prize_cents: i64,
    pub withheld_cents: i64,
    /// Paid to the claimant.
    pub net_cents: i64,
    /// A W-2G record was made.
    pub w2g: bool,
    pub claimant_name: String,
    pub tin_last4: Option<String>,
    pub paid_by: String,
    pub paid_at: DateTime<Utc>,
}

/// `GET /v1/instant/office-claims` filters.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct OfficeClaimsQuery {
    /// Only claims with a W-2G record.
    pub w2g: Option<bool>,
    /// At most this many, newest first (1 to 500; 50 by default).
    pub limit: Option<i64>,
}

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
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SettlementView {
    pub sales_cents: i64,
    pub commission_cents: i64,
    /// Debited from the retailer's settlement account.
    pub owed_cents: i64,
    pub settled_at: DateTime<Utc>,
}

/// What a print run produced.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PrintRunView {
    pub id: Uuid,
    pub game: u32,
    pub tickets: u64,
    pub pools: u32,
    pub first_book: u32,
    pub last_book: u32,
    /// How long generating and storing took.
    pub seconds: f64,
}

/// The public keys of the printer's file.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct KeysView {
    /// The lottery's Ed25519 public key (hex): it signs each printer's file's SHA-256.
    pub signing_key: String,
    /// The printer's `age` public key the files are encrypted to.
    pub printer_recipient: String,
}

/// A list of print jobs.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct JobsQuery {
    /// How many of the newest (1 to 100, default 50).
    pub limit: Option<i64>,
}

/// A print run being made: its state and progress.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PrintJobView {
    pub id: Uuid,
    pub game: u32,
    /// `queued`, `running`, `succeeded`, `failed` or `cancelled`.
    pub state: String,
    /// The game's whole order.
    pub tickets_total: i64,
    /// Generated so far (in this attempt).
    pub tickets_generated: i64,
    /// Written to the database so far (in the run's transaction: none of it stays unless the
    /// job succeeds).
    pub tickets_stored: i64,
    /// The printer's file is written, encrypted and signed (with the run, at the end).
    pub file_written: bool,
    /// Starts: a job taken up again after a crash starts from nothing.
    pub attempts: i32,
    pub cancel_requested: bool,
    /// The run, once succeeded.
    pub print_run: Option<Uuid>,
    /// Why it failed.
    pub error: Option<String>,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// A prize row with what is left of it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PrizeView {
    pub composition_cents: Vec<i64>,
    pub value_cents: i64,
    /// Winners per the game's tickets ordered.
    pub count: u64,
    /// Printed so far and not yet paid.
    pub remaining: i64,
}

/// A game as anyone may see it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct GameView {
    pub number: u32,
    pub name: String,
    pub rule: String,
    pub price_cents: i64,
    pub tickets_per_book: u64,
    pub tickets_ordered: u64,
    pub odds_one_in: f64,
    pub payout_percent: f64,
    pub prizes: Vec<PrizeView>,
    /// Where the rule's printed figures disagree with its rows, and what is assumed.
    #[schema(value_type = Vec<Object>)]
    pub mismatches: Vec<Mismatch>,
    pub source_notes: Vec<String>,
}

/// One game's prizes as the lottery owes them. A free ticket counts at the ticket's price, as
/// the print run funded it.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct LiabilityView {
    pub game: u32,
    pub name: String,
    /// Every prize of every run printed.
    pub printed_cents: i64,
    pub paid_cents: i64,
    /// Printed and not yet paid.
    pub outstanding_cents: i64,
    /// The game's prize-liability account in the ledger: equals `outstanding_cents` when the
    /// books agree.
    pub ledger_balance_cents: Option<i64>,
    /// Payments waiting for the ledger (the recovery pass finishes them).
    pub payments_pending: i64,
    /// Payments the ledger made that no till or office desk has been told to hand over yet: the
    /// payee claiming the ticket again is.
    pub payments_unconfirmed: i64,
}

/// `GET /v1/instant/validations/by-retailer` window.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct WindowQuery {
    /// From this instant (inclusive); the last 24 hours by default.
    pub since: Option<DateTime<Utc>>,
    /// To this instant (exclusive); now by default.
    pub until: Option<DateTime<Utc>>,
    /// Only this retailer.
    pub retailer_id: Option<String>,
}

/// One retailer's validations in the window.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RetailerValidations {
    pub retailer_id: String,
    pub scans: i64,
    pub winners: i64,
    pub not_winners: i64,
    /// Refused scans by code (`wrong_virn`, `already_paid`, `pack_not_active`, ...).
    #[schema(value_type = Object)]
    pub refused: std::collections::BTreeMap<String, i64>,
    /// The prizes of the winners scanned.
    pub winner_cents: i64,
}
