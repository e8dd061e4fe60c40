//! The significant-events log (issue 50, ADR 0019): what happened to a player, a drawing, a
//! terminal or a retailer, and who of the staff did what, kept ten years in one hash-chained log
//! every service writes to.
//!
//! A service records an event with [`record`] on the transaction of the change it records, so a
//! process killed between the two leaves neither or both. The event waits in `events.pending`
//! until the chainer ([`chain::chain_pending`], run by every process, one at a time) gives it its
//! place in the chain; from then on it is in `events.log`, where [`query`] finds it, [`export`]
//! streams it and [`chain::verify`] (or `lotto verify-events` on an export) proves nothing was
//! changed, removed or put in between.
//!
//! The schema `events` is the platform's own, migrated by every service beside its own
//! ([`migrate`]): the one table services share, and only to append to.

pub mod archive;
pub mod chain;
pub mod export;
pub mod lifecycle;
pub mod query;
pub mod watch;

use serde::Serialize;
use sqlx::PgConnection;
use sqlx::migrate::{MigrateError, Migrator};
use uuid::Uuid;

use crate::AppError;

/// The log's own migrations.
pub static MIGRATIONS: Migrator = sqlx::migrate!("../../migrations/events");

/// The schema the log lives in.
pub const SCHEMA: &str = "events";

/// Runs the log's migrations on `conn` (whose `search_path` is [`SCHEMA`]): every service does
/// at start; the migrations' lock makes concurrent starts wait for one another.
pub async fn migrate(conn: &mut PgConnection) -> Result<(), MigrateError> {
    MIGRATIONS.run(conn).await
}

macro_rules! kinds {
    ($($(#[doc = $doc:literal])+ $variant:ident = $name:literal,)+) => {
        /// What an event records. The names are stable: regulators' queries and exports use them.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize, utoipa::ToSchema)]
        #[serde(rename_all = "snake_case")]
        #[schema(as = EventKind)]
        pub enum Kind {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl Kind {
            /// Every kind, in the order the README lists them.
            pub const ALL: &'static [Kind] = &[$(Kind::$variant,)+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(Kind::$variant => $name,)+
                }
            }

            /// What an event of this kind records, for the README and the console.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(Kind::$variant => concat!($($doc),+).trim_ascii(),)+
                }
            }

            /// The kind named `name`.
            pub fn named(name: &str) -> Option<Kind> {
                match name {
                    $($name => Some(Kind::$variant),)+
                    _ => None,
                }
            }
        }
    };
}

kinds! {
    /// A player registered (the gateway).
    Registration = "registration",
    /// A player, a member of staff or a terminal signed in.
    Login = "login",
    /// A sign-in refused: unknown name, wrong password or code, locked, excluded.
    LoginFailed = "login_failed",
    /// An account locked after too many failed sign-ins.
    Lockout = "lockout",
    /// An identity check's result (the provider's decision, the player's standing after).
    IdentityCheck = "identity_check",
    /// A location check's result (inside or outside the jurisdiction, refused or allowed).
    LocationCheck = "location_check",
    /// A limit set, lowered or raised (the player's or the lottery's), before and after.
    LimitChange = "limit_change",
    /// A break (time-out) taken.
    Break = "break",
    /// A self-exclusion, an exclusion list's match, or an exclusion removed.
    Exclusion = "exclusion",
    /// An account closed.
    Closure = "closure",
    /// An account marked dormant: no login for the dormancy period (LOTTO_DORMANT_AFTER_DAYS).
    Dormancy = "dormancy",
    /// A deposit confirmed by the payment provider and credited.
    Deposit = "deposit",
    /// A deposit the provider refused, or one refused before it reached the provider.
    DepositFailed = "deposit_failed",
    /// A withdrawal paid out.
    Withdrawal = "withdrawal",
    /// A withdrawal that failed, its hold voided.
    WithdrawalFailed = "withdrawal_failed",
    /// A game session begun (the player's first play after a pause).
    GameSessionStart = "game_session_start",
    /// A game session ended by the player at a reality check.
    GameSessionEnd = "game_session_end",
    /// A win at or over the configured amount (LOTTO_LARGE_WIN_CENTS, $600 by default).
    LargeWin = "large_win",
    /// A round, ticket or sale voided, and its stake refunded.
    Void = "void",
    /// A drawing's sales closed.
    DrawClosed = "draw_closed",
    /// A drawing's results entered or drawn.
    DrawResults = "draw_results",
    /// A drawing's winners found and its prizes set.
    DrawSettled = "draw_settled",
    /// A drawing certified (or stopped as disputed) against its independent recount.
    DrawCertification = "draw_certification",
    /// An instant game's print run made, or a vendor's run imported.
    PrintRun = "print_run",
    /// A pack shipped, activated, returned, reported stolen or settled.
    Pack = "pack",
    /// A prize paid at a counter or a lottery office.
    PrizePaid = "prize_paid",
    /// A member of staff's action, with before, after and why.
    StaffAction = "staff_action",
    /// A process started: its service, software version and executable's SHA-256, its settings.
    ProcessStarted = "process_started",
    /// A process stopped cleanly.
    ProcessStopped = "process_stopped",
    /// A process that stopped without stopping cleanly (killed, crashed, its machine lost),
    /// found by the next start or by a running process.
    Unavailability = "unavailability",
    /// A month of the log sealed, archived or restored (ADR 0019).
    LogArchive = "log_archive",
}

/// Who and what an event is about: the columns regulators query by.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Subjects {
    pub player: Option<Uuid>,
    pub retailer: Option<Uuid>,
    /// A terminal's id, or a till's.
    pub terminal: Option<String>,
    /// `<game>:<drawing>`, e.g. `keno:1234` or `powerball:2026-12-05`.
    pub drawing: Option<String>,
    /// The member of staff who acted.
    pub staff: Option<String>,
}

/// An event to record: its kind, subjects and details (canonical JSON: serde writes a struct's
/// fields in declaration order, so the bytes are stable).
#[derive(Debug, Clone)]
pub struct Event {
    pub kind: Kind,
    pub subjects: Subjects,
    pub details: String,
}

impl Event {
    /// An event of `kind` with `details`, about nobody yet.
    pub fn new(kind: Kind, details: &impl Serialize) -> Result<Event, AppError> {
        let details = serde_json::to_string(details).map_err(AppError::internal)?;
        if !details.starts_with('{') {
            return Err(AppError::internal(format!(
                "the details of a {} event are not an object",
                kind.as_str()
            )));
        }
        Ok(Event { kind, subjects: Subjects::default(), details })
    }

    pub fn player(mut self, id: Uuid) -> Event {
        self.subjects.player = Some(id);
        self
    }

    pub fn retailer(mut self, id: Uuid) -> Event {
        self.subjects.retailer = Some(id);
        self
    }

    pub fn terminal(mut self, id: impl std::fmt::Display) -> Event {
        self.subjects.terminal = Some(id.to_string());
        self
    }

    pub fn drawing(mut self, game: &str, drawing: impl std::fmt::Display) -> Event {
        self.subjects.drawing = Some(format!("{game}:{drawing}"));
        self
    }

    pub fn staff(mut self, who: impl std::fmt::Display) -> Event {
        self.subjects.staff = Some(who.to_string());
        self
    }
}

/// Records `event` for `service` on `conn`: the transaction of the change it records, which
/// commits both or neither.
pub async fn record(conn: &mut PgConnection, service: &str, event: &Event) -> Result<(), AppError> {
    record_all(conn, service, std::slice::from_ref(event)).await
}

/// Records `events` in order for `service` on `conn`, in one statement.
pub async fn record_all(conn: &mut PgConnection, service: &str, events: &[Event]) -> Result<(), AppError> {
    if events.is_empty() {
        return Ok(());
    }
    let mut kinds = Vec::with_capacity(events.len());
    let mut players = Vec::with_capacity(events.len());
    let mut retailers = Vec::with_capacity(events.len());
    let mut terminals = Vec::with_capacity(events.len());
    let mut drawings = Vec::with_capacity(events.len());
    let mut staff = Vec::with_capacity(events.len());
    let mut details = Vec::with_capacity(events.len());
    for event in events {
        kinds.push(event.kind.as_str().to_owned());
        players.push(event.subjects.player);
        retailers.push(event.subjects.retailer);
        terminals.push(event.subjects.terminal.clone());
        drawings.push(event.subjects.drawing.clone());
        staff.push(event.subjects.staff.clone());
        details.push(event.details.clone());
    }
    sqlx::query!(
        "INSERT INTO events.pending (service, kind, player_id, retailer_id, terminal, drawing, staff_id, details)
         SELECT $1, e.kind, e.player_id, e.retailer_id, e.terminal, e.drawing, e.staff_id, e.details
           FROM UNNEST($2::text[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[])
                WITH ORDINALITY AS e (kind, player_id, retailer_id, terminal, drawing, staff_id, details, n)
          ORDER BY e.n",
        service,
        &kinds,
        &players as &[Option<Uuid>],
        &retailers as &[Option<Uuid>],
        &terminals as &[Option<String>],
        &drawings as &[Option<String>],
        &staff as &[Option<String>],
        &details,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// The README's table of event kinds (`UPDATE_README=1 cargo test -p platform` rewrites it).
pub fn markdown_table() -> String {
    let mut table = String::from("| kind | what it records |\n|---|---|\n");
    for kind in Kind::ALL {
        table.push_str(&format!("| `{}` | {} |\n", kind.as_str(), kind.meaning()));
    }
    table
}

#[cfg(test)]
mod tests {
    /// The README lists every kind, as the code names and explains it.
    #[test]
    fn the_readme_lists_every_event_kind() {
        crate::doc_tables::check("README.md", "event-kinds", &super::markdown_table());
    }
}
