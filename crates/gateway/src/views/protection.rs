//! Player protection on the wire (ADR 0014): the limits a player sets or an operator imposes,
//! and the player's activity statement.

use chrono::{DateTime, NaiveDate, Utc};
use ledger_api::wire::{ActivityLine, LimitPeriod, MoneyLimit, MoneyLimitKind};
use serde::{Deserialize, Serialize};

use crate::views::players::{DepositLimit, Standing};

// `PUT /v1/me/limits` and `PUT /v1/players/{id}/limits`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MoneyLimitRequest {
    /// `loss` (stakes less wins), `wager` (total staked) or `single_stake` (any one play).
    pub kind: MoneyLimitKind,
    /// `daily`, `weekly` or `monthly` (the last 24 hours, 7 days, 30 days); none for a single stake.
    pub period: Option<LimitPeriod>,
    /// Cents, 1 to 1,000,000,000,000; `null` removes the limit (a player's removal waits 24
    /// hours, as a raise).
    #[schema(minimum = 1, maximum = 1_000_000_000_000_i64)]
    pub amount: Option<i64>,
}

/// `PUT /v1/players/{id}/limits`: an operator imposes a money limit on a player, or lowers the
/// one imposed; never raises or lifts it (issue 49 §Staff).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImposedLimitRequest {
    /// `loss` (stakes less wins), `wager` (total staked) or `single_stake` (any one play).
    pub kind: MoneyLimitKind,
    /// `daily`, `weekly` or `monthly` (the last 24 hours, 7 days, 30 days); none for a single stake.
    pub period: Option<LimitPeriod>,
    /// Cents, 1 to 1,000,000,000,000, below the operator's limit of this kind and period if
    /// there is one.
    #[schema(minimum = 1, maximum = 1_000_000_000_000_i64)]
    pub amount: i64,
    /// Why, in words: recorded with the change. 1 to 2,000 characters, not all spaces (lines
    /// and tabs allowed).
    #[schema(
        min_length = 1,
        max_length = 2000,
        pattern = "^[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f][^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]*$"
    )]
    pub reason: String,
}

/// Every limit of a player: deposits (kept here) and money at stake (kept by the ledger, which
/// refuses a stake that would pass one).
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Limits {
    pub deposit: Vec<DepositLimit>,
    /// The player's own and the operator's; the lower of the two binds.
    pub money: Vec<MoneyLimit>,
    /// Minutes played per rolling 24 hours, 7 days and 30 days.
    pub time: Vec<TimeLimit>,
}

/// A time limit: minutes played (each game session from its first stake to its last) per
/// rolling window, with what the window has used.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TimeLimit {
    pub period: LimitPeriod,
    /// The limit in force now, in minutes (`null`: none).
    pub minutes: Option<i64>,
    /// Minutes played in the window (the last 24 hours, 7 days, 30 days).
    pub played_minutes: i64,
    /// A raise waiting to apply, and when.
    pub pending_minutes: Option<i64>,
    pub pending_removal: bool,
    pub pending_from: Option<DateTime<Utc>>,
}

// `PUT /v1/me/time-limits`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeLimitRequest {
    /// `daily`, `weekly` or `monthly` (the last 24 hours, 7 days, 30 days).
    pub period: LimitPeriod,
    /// Minutes, 1 to the window's length (1,440 a day, 10,080 a week, 43,200 in 30 days);
    /// `null` removes the limit (after 24 hours, as a raise).
    #[schema(minimum = 1, maximum = 43_200)]
    pub minutes: Option<i64>,
}

/// Whether the player may play, and when play resumes (after a closure, a request to come back).
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct StandingView {
    pub standing: Standing,
    /// When play resumes by itself; `null` while the player may play, or while it waits for the
    /// player's request, or never comes (a permanent exclusion, a list match).
    pub play_resumes_at: Option<DateTime<Utc>>,
}

/// `GET /v1/me/statement` (and `.csv`): the days to read, in the operator's time zone.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct StatementQuery {
    /// The first day (inclusive), `YYYY-MM-DD`; 29 days before `to` by default.
    pub from: Option<NaiveDate>,
    /// The last day (inclusive); today by default; at most 366 days after `from`.
    pub to: Option<NaiveDate>,
}

/// `GET /v1/me/wallet/entries`: the days to read (as the statement's) and the page.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct WalletEntriesQuery {
    /// The first day (inclusive), `YYYY-MM-DD`; 29 days before `to` by default.
    pub from: Option<NaiveDate>,
    /// The last day (inclusive); today by default; at most 366 days after `from`.
    pub to: Option<NaiveDate>,
    /// The `next` cursor of the previous page.
    #[param(schema_with = platform::page::after_schema::<i64>)]
    pub after: Option<String>,
    /// Page size, 1 to 500 (default 50).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
}

/// Money in and out of a wallet over some days: deposits, withdrawals, stakes, wins (prizes,
/// returned stakes, refunds) and the net result of play (won less staked; negative is a loss).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Totals {
    pub deposited: i64,
    pub withdrawn: i64,
    pub staked: i64,
    pub won: i64,
    pub net: i64,
}

impl Totals {
    /// These totals with one day of one game added.
    pub(crate) fn add(mut self, line: &ActivityLine) -> Totals {
        self.deposited = self.deposited.saturating_add(line.deposited);
        self.withdrawn = self.withdrawn.saturating_add(line.withdrawn);
        self.staked = self.staked.saturating_add(line.staked);
        self.won = self.won.saturating_add(line.won);
        self.net = self.won.saturating_sub(self.staked);
        self
    }
}

/// One day's totals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DayTotals {
    pub date: NaiveDate,
    pub totals: Totals,
}

/// One game's totals over the statement's days.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct GameTotals {
    /// `castle_keno`, `powerball`, `blackjack`, `i_luv_suits`, `craps`.
    pub game: String,
    pub totals: Totals,
}

/// A player's activity statement (`GET /v1/me/statement`).
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Statement {
    /// The zone its days are in: the operator's.
    pub time_zone: String,
    pub from: NaiveDate,
    pub to: NaiveDate,
    /// Over `from` to `to`.
    pub totals: Totals,
    /// Each game played over `from` to `to`.
    pub games: Vec<GameTotals>,
    /// Each day of `from` to `to` with any activity, oldest first.
    pub days: Vec<DayTotals>,
    /// Today, the last 7 days and the last 30 days (today included), whatever `from` and `to`.
    pub today: Totals,
    pub last_7_days: Totals,
    pub last_30_days: Totals,
}

/// The breaks a player may take (a time-out): it ends by itself.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, utoipa::ToSchema)]
pub enum TimeOutPeriod {
    #[serde(rename = "24_hours")]
    Day,
    #[serde(rename = "72_hours")]
    ThreeDays,
    #[serde(rename = "7_days")]
    Week,
    #[serde(rename = "30_days")]
    Month,
    #[serde(rename = "90_days")]
    Quarter,
}

impl TimeOutPeriod {
    pub(crate) fn hours(self) -> i64 {
        match self {
            TimeOutPeriod::Day => 24,
            TimeOutPeriod::ThreeDays => 72,
            TimeOutPeriod::Week => 7 * 24,
            TimeOutPeriod::Month => 30 * 24,
            TimeOutPeriod::Quarter => 90 * 24,
        }
    }
}

// `POST /v1/me/time-out`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeOutRequest {
    pub period: TimeOutPeriod,
}

/// A break in force.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TimeOut {
    pub on_break_until: DateTime<Utc>,
}

/// A game session's clock and figures (`GET /v1/me/play-session`): it starts at the first stake
/// after a login.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PlaySession {
    /// `null` until the first stake of this login.
    pub started_at: Option<DateTime<Utc>>,
    pub played_seconds: i64,
    pub staked: i64,
    pub won: i64,
    /// Won less staked (negative: lost).
    pub net: i64,
    /// When the next stake waits for a reality check.
    pub next_reality_check_at: Option<DateTime<Utc>>,
    /// The player's interval between reality checks: 15, 30 or 60 minutes.
    pub interval_minutes: i32,
}

/// What the player chooses at a reality check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RealityCheckDecision {
    /// Go on playing: the next check falls an interval from now.
    Continue,
    /// End the session (a log-out).
    Stop,
}

// `POST /v1/me/reality-check`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RealityCheckAnswer {
    pub decision: RealityCheckDecision,
}

// `PUT /v1/me/reality-check`.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RealityCheckInterval {
    /// 15, 30 or 60 (the default): at least hourly.
    pub interval_minutes: i32,
}

/// `POST /v1/exclusion-list`: one person on a state's or the operator's list.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExclusionEntryRequest {
    /// `state` (a regulator's list) or `operator` (the operator's own).
    pub source: ExclusionSource,
    /// The list's own reference for the person: 1 to 64 characters, unique within its source
    /// (an entry with a reference the source has already replaces it); no control characters,
    /// not all spaces.
    #[schema(
        max_length = 64,
        pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f][^\\x00-\\x1f\\x7f-\\x9f]*$"
    )]
    pub reference: String,
    /// The person's email, as a registration takes it.
    #[schema(schema_with = crate::views::players::email_schema)]
    pub email: String,
    /// When given, a player matches only with this date of birth too.
    pub date_of_birth: Option<NaiveDate>,
    /// The last day of the exclusion; none: until taken off the list.
    pub ends_on: Option<NaiveDate>,
    /// The person's legal name: with the date of birth (then required), a player whose verified
    /// identity bears it matches too, whatever their email (accents, case, spaces and
    /// punctuation aside).
    #[schema(
        max_length = 200,
        pattern = "^$|^[^\\x00-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f][^\\x00-\\x1f\\x7f-\\x9f]*$"
    )]
    #[serde(default)]
    pub legal_name: Option<String>,
    /// The last four digits of the person's SSN, where the list gives them: a name's match then
    /// needs them too, where the player gave theirs (kept as a keyed digest, never shown).
    #[schema(pattern = "^([0-9]{4})?$")]
    #[serde(default)]
    pub ssn_last4: Option<String>,
}

/// `POST /v1/exclusion-list/import` as JSON: the rows a CSV file would hold.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExclusionImportRequest {
    /// One person each, as `POST /v1/exclusion-list` takes one.
    #[schema(min_items = 1, max_items = 100_000)]
    pub entries: Vec<ExclusionEntryRequest>,
}

/// Whose list an entry is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExclusionSource {
    State,
    Operator,
}

impl ExclusionSource {
    pub fn as_str(self) -> &'static str {
        match self {
            ExclusionSource::State => "state",
            ExclusionSource::Operator => "operator",
        }
    }
}

/// An entry on the lists, with how many players (and refused registrations) it matched.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ExclusionEntry {
    pub id: uuid::Uuid,
    pub source: String,
    pub reference: String,
    pub email: String,
    /// The legal name a verified identity is matched on, where the list gives one.
    pub legal_name: Option<String>,
    pub date_of_birth: Option<NaiveDate>,
    pub ends_on: Option<NaiveDate>,
    pub added_by: String,
    pub added_at: DateTime<Utc>,
    pub matches: i64,
}

/// What adding to the lists did: entries new and replaced, and the players excluded by them now
/// (each match logged; their sessions ended, their future tickets voided).
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ExclusionImport {
    pub added: u64,
    pub replaced: u64,
    pub players_excluded: u64,
}

/// What taking an entry off the lists did: the players it held whose play may resume now (their
/// standing worked out again; any other exclusion of theirs still holds).
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ExclusionRemoval {
    pub players_released: u64,
}

/// An account without a login for the configured days; its balance stays the player's.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DormantAccount {
    pub player_id: uuid::Uuid,
    pub email: String,
    pub last_login_at: Option<DateTime<Utc>>,
    /// The last login (or the registration, never logged in) the dormancy counts from.
    pub inactive_since: DateTime<Utc>,
    pub balance_cents: i64,
}

/// `GET /v1/dormant-accounts?after=&limit=`: a page of them, longest dormant first.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DormantAccounts {
    /// `LOTTO_DORMANT_AFTER_DAYS`.
    pub dormant_after_days: u32,
    pub accounts: Vec<DormantAccount>,
    /// The balances of this page's accounts.
    pub total_balance_cents: i64,
    /// The cursor of the next page (`after`); none on the last.
    pub next: Option<String>,
}

/// `GET /v1/responsible-gaming`: what the "play responsibly" page shows beside the player's
/// own tools.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ResponsibleGaming {
    /// The operator's help line, in the operator's words (`LOTTO_HELP_LINE`).
    pub help_line: String,
    pub time_out_periods: Vec<String>,
    pub self_exclusion_periods: Vec<String>,
    pub cooling_off_hours: i64,
}
