//! The ledger's wire types: what its clients send and what they get back, shared by the ledger
//! (which validates requests into commands) and every client. The shapes are the contract of
//! `openapi.yaml`'s ledger paths; nothing here decides anything.

use chrono::{DateTime, Utc};
use domain::Currency;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::AccountKind;

/// Account flags; omitted ones take the kind's default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AccountFlagsRequest {
    pub no_negative_balance: Option<bool>,
    pub hot: Option<bool>,
}

/// The flags an account has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AccountFlags {
    /// "May not go negative": available balance (posted minus pending debits) stays at or above zero.
    pub no_negative_balance: bool,
    /// Its balance is spread over several rows so concurrent transfers do not queue on one lock.
    pub hot: bool,
}

/// `POST /v1/accounts`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewAccountRequest {
    /// Client-chosen id, which makes creation idempotent; a UUIDv7 is assigned when omitted.
    pub id: Option<Uuid>,
    pub kind: AccountKind,
    /// Whose account (a player id, `casino`, ...): 1 to 200 characters, not all spaces.
    #[schema(max_length = 200, pattern = "\\S")]
    pub owner: String,
    /// ISO 4217, three upper-case letters.
    #[schema(pattern = "^[A-Z]{3}$", example = "USD")]
    pub currency: String,
    #[serde(default)]
    pub flags: AccountFlagsRequest,
    #[schema(value_type = Option<HashMap<String, serde_json::Value>>)]
    pub metadata: Option<Value>,
}

/// An account's balances, in minor units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Balance {
    /// Credits minus debits of posted transfers.
    pub posted: i64,
    /// Held for outgoing pending transfers.
    pub pending_debits: i64,
    /// Expected from incoming pending transfers.
    pub pending_credits: i64,
    /// What may be spent now: posted minus pending debits.
    pub available: i64,
}

/// An account as the API shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Account {
    pub id: Uuid,
    pub kind: AccountKind,
    pub owner: String,
    #[schema(value_type = String, example = "USD")]
    pub currency: Currency,
    pub flags: AccountFlags,
    #[schema(value_type = HashMap<String, serde_json::Value>)]
    pub metadata: Value,
    pub created_at: DateTime<Utc>,
    pub balance: Balance,
}

/// One transfer of a request: a plain transfer, a new hold, or the end of a hold.
///
/// The same shape serves `POST /v1/transfers` and every item of `POST /v1/transfers/batch`:
/// - `debit_account_id`, `credit_account_id`, `amount`, `currency`: a transfer (a hold when
///   `pending` is true, lasting `timeout_seconds`);
/// - `post_pending_id` (with an optional smaller `amount`): completes a hold;
/// - `void_pending_id`: releases a hold.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TransferRequest {
    /// The idempotency key. Optional on `POST /v1/transfers` when an `Idempotency-Key` header is sent.
    pub id: Option<Uuid>,
    pub debit_account_id: Option<Uuid>,
    pub credit_account_id: Option<Uuid>,
    /// Cents, 1 to 1,000,000,000,000.
    #[schema(minimum = 1, maximum = 1_000_000_000_000_i64)]
    pub amount: Option<i64>,
    /// ISO 4217, three upper-case letters.
    #[schema(pattern = "^[A-Z]{3}$", example = "USD")]
    pub currency: Option<String>,
    #[serde(default)]
    pub pending: bool,
    /// A pending transfer's life, 1 to 604,800 seconds (a week).
    #[schema(minimum = 1, maximum = 604_800)]
    pub timeout_seconds: Option<i32>,
    pub post_pending_id: Option<Uuid>,
    pub void_pending_id: Option<Uuid>,
    #[schema(value_type = Option<HashMap<String, serde_json::Value>>)]
    pub metadata: Option<Value>,
    /// Applies the transfer only if an account holds enough just before it.
    pub check_funds: Option<FundsCheck>,
}

/// A condition on applying a transfer: just before it in its batch (counting the items ahead
/// of it, never those after), `account_id`'s available balance is at least `at_least` cents;
/// otherwise the batch is refused `insufficient_funds`. A game that nets what a request stakes
/// against what it pays back moves one transfer and still refuses a wallet that could not have
/// covered the stake. The check is not stored with the transfer, and a replay is not checked
/// again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FundsCheck {
    pub account_id: Uuid,
    /// Cents, 1 to 1,000,000,000,000.
    #[schema(minimum = 1, maximum = 1_000_000_000_000_i64)]
    pub at_least: i64,
}

/// `POST /v1/transfers/batch`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchRequest {
    /// 1 to 10,000 transfers.
    #[schema(min_items = 1, max_items = 10_000)]
    pub transfers: Vec<TransferRequest>,
    /// Accounts whose posted balances the answer should carry, read just after the batch: a
    /// game that records a wallet's balance beside a round needs no second call.
    #[serde(default)]
    #[schema(max_items = 10_000)]
    pub balances_of: Vec<Uuid>,
}

/// A transfer as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Transfer {
    pub id: Uuid,
    pub debit_account_id: Uuid,
    pub credit_account_id: Uuid,
    pub amount: i64,
    #[schema(value_type = String, example = "USD")]
    pub currency: Currency,
    /// `posted`, `pending`, `post_pending`, `void_pending` or `expire_pending`.
    #[schema(schema_with = transfer_kinds)]
    pub kind: String,
    pub pending_id: Option<Uuid>,
    pub timeout_seconds: Option<i32>,
    pub expires_at: Option<DateTime<Utc>>,
    pub batch_id: Option<Uuid>,
    #[schema(value_type = HashMap<String, serde_json::Value>)]
    pub metadata: Value,
    pub created_at: DateTime<Utc>,
}

/// The answer to a batch: every transfer in request order, each saying whether it was a replay.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct BatchResult {
    pub transfers: Vec<BatchItem>,
    /// The posted balance of each account named in `balances_of`, in that order, read just after
    /// the batch (others' transfers committed meanwhile included).
    #[serde(default)]
    pub balances: Vec<PostedBalance>,
}

/// An account's posted balance, in cents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PostedBalance {
    pub account_id: Uuid,
    pub posted: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct BatchItem {
    /// True when this id had already been applied; nothing was done again.
    pub replayed: bool,
    #[serde(flatten)]
    pub transfer: Transfer,
}

/// A transfer in an account's history, seen from that account.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct HistoryEntry {
    /// `debit` or `credit`: which side of the transfer this account is on.
    pub side: String,
    #[serde(flatten)]
    pub transfer: Transfer,
}

/// One line of an account's statement: a transfer seen from the account, with the account's
/// posted balance once it applied. A hold (`pending`) and its release (`void_pending`,
/// `expire_pending`) change the posted balance by nothing; its completion (`post_pending`) by
/// the amount posted.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct StatementEntry {
    /// The posted balance after this transfer, in cents.
    pub balance_after: i64,
    #[serde(flatten)]
    pub entry: HistoryEntry,
}

/// One page of a listing; pass `next` as `after` for the following page.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub next: Option<String>,
}

/// `POST /v1/deposits` and `POST /v1/withdrawals`: money in from, or out to, the outside world.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CashRequest {
    pub id: Option<Uuid>,
    pub account_id: Uuid,
    /// Cents, 1 to 1,000,000,000,000.
    #[schema(minimum = 1, maximum = 1_000_000_000_000_i64)]
    pub amount: i64,
    /// ISO 4217, three upper-case letters.
    #[schema(pattern = "^[A-Z]{3}$", example = "USD")]
    pub currency: String,
    /// Withdrawals only: hold the amount (a pending transfer to cash clearing, lasting
    /// `timeout_seconds`) until the payment provider confirms it (post the hold) or fails it
    /// (void it), through `POST /v1/transfers`.
    #[serde(default)]
    pub pending: bool,
    /// A held withdrawal's life, 1 to 604,800 seconds (a week).
    #[schema(minimum = 1, maximum = 604_800)]
    pub timeout_seconds: Option<i32>,
    #[schema(value_type = Option<HashMap<String, serde_json::Value>>)]
    pub metadata: Option<Value>,
}

/// Totals of one currency; `balanced` is the double-entry invariant (debits equal credits).
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CurrencyTotals {
    #[schema(value_type = String, example = "USD")]
    pub currency: Currency,
    /// The currency's totals, over every account (128-bit: a sum of many 64-bit totals).
    pub debits_posted: i128,
    pub credits_posted: i128,
    pub debits_pending: i128,
    pub credits_pending: i128,
    pub balanced: bool,
    pub by_kind: Vec<KindTotals>,
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct KindTotals {
    pub kind: AccountKind,
    pub accounts: i64,
    /// Sum of the posted balances of this kind's accounts.
    pub posted: i128,
}

/// The least a large win is, in cents ($600, the W-2G floor): `GET /v1/reports/large-wins`
/// lists no smaller credit.
pub const LARGE_WIN_FLOOR_CENTS: i64 = 60_000;

/// A credit of at least [`LARGE_WIN_FLOOR_CENTS`] to a player's wallet from a game's account (a
/// win, or stakes returned with one), as the journal keeps it.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct LargeWin {
    /// Its place in the journal: the next page reads after it.
    pub seq: i64,
    pub id: Uuid,
    pub wallet: Uuid,
    pub amount: i64,
    #[schema(value_type = Object)]
    pub metadata: Value,
    pub created_at: DateTime<Utc>,
}

/// `GET /v1/reports/large-wins`: the large wins after a place in the journal, oldest first.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct LargeWins {
    pub items: Vec<LargeWin>,
    /// The place of the newest transfer of at least the floor (any kind): where a reader that
    /// starts now begins.
    pub newest_seq: Option<i64>,
}

/// `GET /v1/reports/trial-balance`.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TrialBalance {
    pub balanced: bool,
    pub currencies: Vec<CurrencyTotals>,
}

/// The rolling window a limit covers: the last 24 hours, 7 days or 30 days (the ledger counts
/// them by the hour: ADR 0014).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LimitPeriod {
    Daily,
    Weekly,
    Monthly,
}

impl LimitPeriod {
    pub const ALL: [LimitPeriod; 3] = [LimitPeriod::Daily, LimitPeriod::Weekly, LimitPeriod::Monthly];

    pub fn as_str(self) -> &'static str {
        match self {
            LimitPeriod::Daily => "daily",
            LimitPeriod::Weekly => "weekly",
            LimitPeriod::Monthly => "monthly",
        }
    }

    pub fn parse(s: &str) -> Option<LimitPeriod> {
        LimitPeriod::ALL.into_iter().find(|p| p.as_str() == s)
    }

    pub fn window_days(self) -> i32 {
        match self {
            LimitPeriod::Daily => 1,
            LimitPeriod::Weekly => 7,
            LimitPeriod::Monthly => 30,
        }
    }
}

/// What a wallet's money limit bounds: the net loss (stakes less wins) or the total staked in
/// its period, or any one stake (a request's stakes together).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MoneyLimitKind {
    Loss,
    Wager,
    SingleStake,
}

impl MoneyLimitKind {
    pub const ALL: [MoneyLimitKind; 3] =
        [MoneyLimitKind::Loss, MoneyLimitKind::Wager, MoneyLimitKind::SingleStake];

    pub fn as_str(self) -> &'static str {
        match self {
            MoneyLimitKind::Loss => "loss",
            MoneyLimitKind::Wager => "wager",
            MoneyLimitKind::SingleStake => "single_stake",
        }
    }

    pub fn parse(s: &str) -> Option<MoneyLimitKind> {
        MoneyLimitKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// Who set a limit: the player's own, or the operator's imposed on them (the lower binds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LimitSource {
    Player,
    Operator,
}

impl LimitSource {
    pub fn as_str(self) -> &'static str {
        match self {
            LimitSource::Player => "player",
            LimitSource::Operator => "operator",
        }
    }

    pub fn parse(s: &str) -> Option<LimitSource> {
        [LimitSource::Player, LimitSource::Operator].into_iter().find(|k| k.as_str() == s)
    }
}

/// `PUT /v1/accounts/{id}/limits`: sets one money limit of a player's wallet.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LimitChange {
    pub kind: MoneyLimitKind,
    /// Required for loss and wager limits; none for a single stake.
    pub period: Option<LimitPeriod>,
    pub source: LimitSource,
    /// Cents, at least 1; `null` removes the limit.
    pub cents: Option<i64>,
    /// How long a player's raise or removal waits, in seconds (a lowering, and any operator's
    /// change, applies at once).
    pub raise_delay_seconds: i64,
}

/// One of a wallet's money limits, with what its window has used now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct MoneyLimit {
    pub kind: MoneyLimitKind,
    pub period: Option<LimitPeriod>,
    pub source: LimitSource,
    /// The limit in force, in cents (`null`: none now).
    pub cents: Option<i64>,
    /// A raise or removal waiting, and from when.
    pub pending_cents: Option<i64>,
    pub pending_removal: bool,
    pub pending_from: Option<DateTime<Utc>>,
    /// Staked (wager) or lost, net of wins (loss), in the window now; 0 for a single stake.
    pub used: i64,
    /// What the next stakes may take before this limit refuses (never below 0).
    pub left: Option<i64>,
    /// When the oldest stake counted leaves the window (and the room starts to come back).
    pub resets_at: Option<DateTime<Utc>>,
}

/// Why a wallet's play is suspended (ADR 0014 §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SuspensionReason {
    TimeOut,
    SelfExclusion,
    Closure,
    ExclusionList,
}

impl SuspensionReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SuspensionReason::TimeOut => "time_out",
            SuspensionReason::SelfExclusion => "self_exclusion",
            SuspensionReason::Closure => "closure",
            SuspensionReason::ExclusionList => "exclusion_list",
        }
    }
}

/// `PUT /v1/accounts/{id}/suspension`: no stake is taken from the wallet until `until` (none:
/// until lifted); prizes, refunds and withdrawals still move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Suspension {
    pub until: Option<DateTime<Utc>>,
    pub reason: SuspensionReason,
}

/// One day of a wallet's activity in one game (`game` is empty for deposits and withdrawals),
/// the day in the time zone asked for (`GET /v1/accounts/{id}/activity`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ActivityLine {
    pub date: chrono::NaiveDate,
    /// The transfers' `game` (`castle_keno`, `powerball`, `blackjack`, ...); empty for cash.
    pub game: String,
    /// Stakes taken from the wallet by the game.
    pub staked: i64,
    /// Prizes, returned stakes and refunds the game paid into the wallet.
    pub won: i64,
    pub deposited: i64,
    pub withdrawn: i64,
}

/// A wallet's activity summed from the hour `since` falls in to now
/// (`GET /v1/accounts/{id}/activity/totals`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ActivityTotals {
    /// The start of the first hour counted.
    pub hour: DateTime<Utc>,
    pub staked: i64,
    pub won: i64,
    pub deposited: i64,
    pub withdrawn: i64,
}

/// What a transfer is.
fn transfer_kinds() -> platform::openapi::SchemaObject {
    platform::openapi::one_of_texts(&["posted", "pending", "post_pending", "void_pending", "expire_pending"])
}
