//! What the instant service's requests carry and its answers show: the wire types of its routes,
//! and nothing else (no SQL, no rules).

use chrono::{DateTime, Utc};
use domain::instant::Mismatch;
use platform::Cursor;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// `POST /v1/instant/validations`, `/claims` and `/office-claims`: what was scanned.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ValidationRequest {
    /// As printed (`GGG-BBBBBB-TTT-C`) or as a keyboard-wedge scanner types it (the 13 digits);
    /// its last digit is a Luhn check digit (refused `invalid_barcode` when it disagrees).
    #[schema(pattern = "^\\s*([0-9]{3}-[0-9]{6}-[0-9]{3}-[0-9]|[0-9]{13})\\s*$")]
    pub barcode: String,
    /// The twelve digits under the coating (spaces or dashes between groups are ignored; anything
    /// else is `invalid_virn`, which does not count toward the terminal's lock).
    #[schema(pattern = "^[- ]*[0-9]([- ]*[0-9]){11}[- ]*$")]
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
    #[schema(schema_with = paid_where)]
    pub paid_at: Option<String>,
}

/// The receipt of a prize paid at the counter: what the terminal prints. A claim retried with the
/// same Idempotency-Key answers the same receipt.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ReceiptView {
    pub receipt_id: Uuid,
    /// The ticket, as printed on it.
    pub barcode: String,
    pub game: i32,
    pub game_name: String,
    /// The prize the ticket wins.
    pub prize_cents: i64,
    /// Credited to the retailer's settlement account: the prize, or for a free ticket the
    /// price of the ticket the retailer hands over.
    pub paid_cents: i64,
    pub free_ticket: bool,
    pub retailer_id: String,
    /// The shop's name as the receipt printed it (none on receipts printed before names were
    /// kept: the receipt printed the ids).
    pub shop: Option<String>,
    /// The shop's address, when the operator gave one.
    pub shop_address: Option<String>,
    /// The terminal that paid it.
    pub terminal_id: String,
    /// The terminal's label as the receipt printed it.
    pub terminal_label: Option<String>,
    pub paid_at: DateTime<Utc>,
    /// `paid`, or `pending` while the ledger has not moved the money yet (claim again with the
    /// same key to finish it; nobody else can claim the ticket meanwhile).
    #[schema(schema_with = receipt_payments)]
    pub payment: String,
    /// The receipt as the terminal prints it, line by line.
    pub lines: Vec<String>,
}

/// `GET /v1/instant/claims`: the counter's receipts.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ReceiptsQuery {
    /// From this instant (inclusive); the last 24 hours by default.
    pub since: Option<DateTime<Utc>>,
    /// To this instant (exclusive); now by default.
    pub until: Option<DateTime<Utc>>,
    /// Only this retailer (staff); a retailer's terminal sees its own retailer's only.
    pub retailer_id: Option<String>,
    /// The `next` cursor of the previous page.
    #[param(schema_with = platform::page::after_schema::<platform::TimeIdCursor>)]
    pub after: Option<String>,
    /// Page size, 1 to 500 (default 50).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
}

/// Who is paid, as the office records it.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Claimant {
    /// At most 200 characters, not all spaces.
    #[schema(max_length = 200, pattern = "\\S")]
    pub name: String,
    pub address: Option<String>,
    /// The last four digits of the claimant's taxpayer number: required when a W-2G is made.
    #[schema(pattern = "^[0-9]{4}$")]
    pub tin_last4: Option<String>,
}

/// `POST /v1/instant/office-claims`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OfficeClaimRequest {
    #[schema(pattern = "^\\s*([0-9]{3}-[0-9]{6}-[0-9]{3}-[0-9]|[0-9]{13})\\s*$")]
    pub barcode: String,
    /// Twelve digits; spaces or dashes between them are ignored.
    #[schema(pattern = "^[- ]*[0-9]([- ]*[0-9]){11}[- ]*$")]
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
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
}

/// `POST /v1/instant/packs/{game}/{book}/ship`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ShipPack {
    pub retailer_id: String,
}

/// A pack's state.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PackView {
    pub game: i32,
    pub book: i32,
    /// `printed`, `shipped`, `received`, `active`, `settled`, `returned` or `stolen`.
    #[schema(schema_with = crate::store::PackState::schema)]
    pub state: crate::store::PackState,
    pub retailer_id: Option<String>,
    /// Once settled: what the retailer owed for it.
    pub settlement: Option<SettlementView>,
}

/// `GET /v1/instant/packs` filters.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PacksQuery {
    /// Only this game.
    pub game: Option<i32>,
    /// Only packs in this state (`printed`, `shipped`, `received`, `active`, `settled`,
    /// `returned`, `stolen`).
    #[param(schema_with = crate::store::PackState::schema)]
    pub state: Option<String>,
    /// Only this retailer's (staff); a retailer's terminal sees its own retailer's only.
    pub retailer_id: Option<String>,
    /// The `next` cursor of the previous page.
    #[param(schema_with = platform::page::after_schema::<PackCursor>)]
    pub after: Option<String>,
    /// Page size, 1 to 500 (default 50).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
}

/// The cursor of the packs' listing: the last pack's game and book, `<game>-<book>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackCursor {
    pub game: i32,
    pub book: i32,
}

impl std::fmt::Display for PackCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.game, self.book)
    }
}

impl Cursor for PackCursor {
    fn schema() -> utoipa::openapi::schema::Object {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .pattern(Some("^[0-9]{1,9}-[0-9]{1,9}$"))
            .build()
    }

    fn read(text: &str) -> Option<Self> {
        let (game, book) = text.split_once('-')?;
        let number = |t: &str| i64::read(t).filter(|_| t.len() <= 9).and_then(|n| i32::try_from(n).ok());
        Some(PackCursor { game: number(game)?, book: number(book)? })
    }
}

/// A pack as listed: where it is and when it got there.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ListedPackView {
    pub game: i32,
    pub book: i32,
    #[schema(schema_with = crate::store::PackState::schema)]
    pub state: crate::store::PackState,
    pub retailer_id: Option<String>,
    pub shipped_at: Option<DateTime<Utc>>,
    pub received_at: Option<DateTime<Utc>>,
    pub activated_at: Option<DateTime<Utc>>,
    pub settled_at: Option<DateTime<Utc>>,
    pub returned_at: Option<DateTime<Utc>>,
    pub stolen_at: Option<DateTime<Utc>>,
    /// Once settled: what the retailer owed for it.
    pub owed_cents: Option<i64>,
}

/// `GET /v1/instant/retailers/{id}/statement` period.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PeriodQuery {
    /// From this instant (inclusive); 30 days before `until` by default.
    pub since: Option<DateTime<Utc>>,
    /// To this instant (exclusive); now by default.
    pub until: Option<DateTime<Utc>>,
}

/// A retailer's instant account with the lottery for a period.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct StatementView {
    pub retailer_id: String,
    pub since: DateTime<Utc>,
    pub until: DateTime<Utc>,
    /// Packs settled in the period: each owes its price less commission.
    pub settlements: Vec<StatementSettlement>,
    pub sales_cents: i64,
    pub commission_cents: i64,
    /// What the packs settled in the period owe the lottery.
    pub owed_cents: i64,
    /// Prizes paid at its counter in the period (credited to it).
    pub prizes_paid: i64,
    pub prizes_paid_cents: i64,
    /// `owed_cents - prizes_paid_cents`: what the period adds to its debt to the lottery.
    pub net_owed_cents: i64,
    /// Its settlement account now, across every game it sells (instant packs owed, prizes paid,
    /// draw tickets sold): positive means it owes the lottery.
    pub balance_owed_cents: i64,
    /// Its packs by state, now.
    pub packs: std::collections::BTreeMap<String, i64>,
}

/// One settled pack in a statement.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct StatementSettlement {
    pub game: i32,
    pub book: i32,
    pub sales_cents: i64,
    pub commission_cents: i64,
    pub owed_cents: i64,
    pub settled_at: DateTime<Utc>,
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
    /// The lottery's `age` public key a printing vendor encrypts its validation file to.
    pub lottery_recipient: String,
}

/// A print run being made: its state and progress.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PrintJobView {
    pub id: Uuid,
    pub game: u32,
    /// `queued`, `running`, `succeeded`, `failed` or `cancelled`.
    #[schema(schema_with = job_states)]
    pub state: crate::store::JobState,
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
    /// `generated` by the lottery, or imported from a printing vendor's `vendor_file`.
    #[schema(schema_with = job_sources)]
    pub source: String,
    /// The vendor's validation file (a name in the vendor inbox) an import reads.
    pub vendor_file: Option<String>,
}

impl TryFrom<crate::store::print_jobs::PrintJobRow> for PrintJobView {
    type Error = platform::AppError;

    fn try_from(row: crate::store::print_jobs::PrintJobRow) -> Result<Self, platform::AppError> {
        Ok(PrintJobView {
            id: row.id,
            game: u32::try_from(row.game).map_err(platform::AppError::internal)?,
            state: row.state,
            tickets_total: row.tickets_total,
            tickets_generated: row.tickets_generated,
            tickets_stored: row.tickets_stored,
            file_written: row.file_written,
            attempts: row.attempts,
            cancel_requested: row.cancel_requested,
            print_run: row.print_run,
            error: row.error,
            created_by: row.created_by,
            created_at: row.created_at,
            started_at: row.started_at,
            finished_at: row.finished_at,
            source: row.source.as_str().to_owned(),
            vendor_file: row.vendor_file,
        })
    }
}

/// `POST /v1/instant/games/{number}/vendor-runs`: a vendor's validation file to import.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VendorRunRequest {
    /// The file's name in the vendor inbox (`LOTTO_VENDOR_FILE_DIR`), as the vendor delivered it.
    pub file: String,
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
    /// A demonstration's smaller game (`LOTTO_INSTANT_SCALE`): each prize row divided by this,
    /// keeping at least one winner a pool, so its odds and payout are not the game's; none for
    /// the game as ordered.
    pub demonstration_scale: Option<u64>,
    pub prizes: Vec<PrizeView>,
    /// Where the rule's printed figures disagree with its rows, and what is assumed.
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
    /// Only this retailer (staff); a retailer's terminal sees its own retailer's only.
    pub retailer_id: Option<String>,
}

/// One retailer's validations in the window.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RetailerValidations {
    pub retailer_id: String,
    /// Every scan, each counted (a ticket validated and then paid is two).
    pub scans: i64,
    /// Distinct winning tickets scanned: a ticket validated and then paid is one winner.
    pub winners: i64,
    /// Distinct tickets scanned that win nothing.
    pub not_winners: i64,
    /// Refused scans by code (`wrong_virn`, `already_paid`, `pack_not_active`, ...).
    pub refused: std::collections::BTreeMap<String, i64>,
    /// The prizes of the distinct winning tickets, each once.
    pub winner_cents: i64,
}

/// `GET /v1/instant/reports/unusual-validations`: the window and the thresholds.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct UnusualQuery {
    /// From this instant (inclusive); 30 days before `until` by default.
    pub since: Option<DateTime<Utc>>,
    /// To this instant (exclusive); now by default.
    pub until: Option<DateTime<Utc>>,
    /// The high tier: prizes of at least this (default $100).
    #[param(minimum = 1)]
    pub high_tier_cents: Option<i64>,
    /// The band just under the retailer limit starts here (default 80% of the limit; from above
    /// the limit the band is empty).
    #[param(minimum = 1)]
    pub near_limit_from_cents: Option<i64>,
    /// A retailer is flagged when a count this high or higher has at most this probability
    /// (default 0.001; above 0, below 1).
    #[param(exclusive_minimum = 0.0, exclusive_maximum = 1.0)]
    pub alpha: Option<f64>,
}

/// One group of prizes at one retailer: seen against expected.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PatternCount {
    pub from_cents: i64,
    pub to_cents: i64,
    /// Winners validated with a prize in the group.
    pub observed: i64,
    /// How many the games' prize structures lead one to expect among its winners.
    pub expected: f64,
    /// The probability of `observed` or more by chance.
    pub p_value: f64,
    pub flagged: bool,
}

/// One retailer's validations, read for what is unusual.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct UnusualRetailer {
    pub retailer_id: String,
    /// Distinct winning tickets validated.
    pub winners: i64,
    pub high_tier: PatternCount,
    pub near_limit: PatternCount,
    /// Scans refused for a wrong VIRN (guessing), for a paid ticket, for a stolen pack.
    pub wrong_virns: i64,
    pub already_paid: i64,
    pub stolen_pack_scans: i64,
    /// Why the retailer is on the report's short list (empty when nothing stands out).
    pub flags: Vec<String>,
}

/// The report: every retailer with validations in the window, flagged ones first.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct UnusualReport {
    pub since: DateTime<Utc>,
    pub until: DateTime<Utc>,
    pub alpha: f64,
    pub retailers: Vec<UnusualRetailer>,
}

/// Where a winning ticket is paid.
fn paid_where() -> platform::openapi::SchemaObject {
    platform::openapi::one_of_texts_or_null(&["retailer", "lottery_office"])
}

/// A counter payment as its receipt shows it.
fn receipt_payments() -> platform::openapi::SchemaObject {
    platform::openapi::one_of_texts(&["paid", "pending"])
}

/// Where a print job is.
fn job_states() -> platform::openapi::SchemaObject {
    crate::store::JobState::schema()
}

/// Where a print job's run comes from.
fn job_sources() -> platform::openapi::SchemaObject {
    crate::store::JobSource::schema()
}

/// `PUT /v1/instant/games/{number}/sales-end`: the day the game's sales end (or ended).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SalesEndRequest {
    pub ends_on: chrono::NaiveDate,
}

/// A game's announced end of sales and its claim period.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SalesEndView {
    pub game: u32,
    pub ends_on: chrono::NaiveDate,
    /// The last day its prizes may be claimed: the claim period after the end of sales, moved
    /// past a weekend or a holiday.
    pub last_claim_day: chrono::NaiveDate,
    pub announced_at: DateTime<Utc>,
    pub announced_by: String,
    /// What the game's prize liability still held when its prizes expired, moved to the
    /// unclaimed account; none until then.
    pub expired_cents: Option<i64>,
    pub expired_at: Option<DateTime<Utc>>,
}
