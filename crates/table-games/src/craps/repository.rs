//! Craps' one door to its rows: the saga calls this, and this alone holds the game's
//! one-statement writers, the sessions it remembers and when it forgets them, the requests in
//! flight in this process, and the record and session as a finished request leaves them. SQL
//! itself is [`super::store`]'s; the machinery is the kit's.
//!
//! **What is remembered.** Sessions as this process last recorded them, so that a player's next
//! request is worked out without reading its session first (a read is a round trip; on a busy
//! machine, about a twentieth of a roll's cost). Safe with many processes: a request worked out
//! on a remembered session is claimed only if the session still counts the requests it did with
//! none pending and the request's key unrecorded (the only writes that change a session count
//! its requests), and is answered with a refusal only after a fresh read; otherwise the session
//! is read as if it had never been remembered. A failed claim forgets the session.
//!
//! **Requests in flight.** A copy of a request this process is working on (the same session,
//! player and key) waits for its answer instead of working it again, holding no connection.

use std::time::Duration;

use domain::craps::session::Session;
use platform::AppError;
use platform::audit::Entry;
use platform::group_commit::{GroupCommit, OneStatement};
use platform::single_flight::SingleFlight;
use sqlx::PgPool;
use uuid::Uuid;

use super::store::{self, Finished, Pending, StoredRoll, StoredSession};
use crate::kit::Kit;
use crate::kit::cache::Remembered;
use crate::kit::round::Rows;

crate::kit::one_statement_write!(
    /// Claims ([`store::claim_all`]).
    Claims, (Uuid, Pending), store::claim_all
);
crate::kit::one_statement_write!(
    /// Requests finished and chained ([`store::finish_all`]).
    Finishes, (Finished, Entry), store::finish_all
);

/// A request's record, the session after it, and whether this request made it.
pub type Played = (StoredRoll, StoredSession, bool);

/// A session as the round driver reads it, with the record its request's key made, if any.
pub type Row = (StoredSession, Option<StoredRoll>);

/// The game's writers and memory.
#[derive(Debug, Clone)]
pub struct Repository {
    claims: GroupCommit<OneStatement<Claims>>,
    finishes: GroupCommit<OneStatement<Finishes>>,
    sessions: Remembered<StoredSession>,
    in_flight: SingleFlight<(Uuid, String, String), Result<Played, AppError>>,
    pool: PgPool,
}

impl Repository {
    /// The writers it starts (one connection each, once used).
    pub const WRITERS: u32 = 2;

    /// The grouped statements, with the indexes they must use (checked on a fresh database by
    /// `tests/grouped_plans.rs`).
    pub const GROUPED_STATEMENTS: &[(&str, &str, &[&str])] = &[
        ("craps claim", store::CLAIM, &["craps_sessions_pkey", "craps_rolls_by_request"]),
        ("craps finish", store::FINISH, &["craps_sessions_pkey"]),
    ];

    pub fn spawn(kit: &Kit) -> Repository {
        Repository {
            claims: kit.writer(Claims),
            finishes: kit.writer(Finishes),
            sessions: kit.memory(),
            in_flight: SingleFlight::default(),
            pool: kit.pool().clone(),
        }
    }

    /// The same writers with nothing remembered and nothing in flight: as another process
    /// serving the same tables.
    #[must_use]
    pub fn with_fresh_memory(&self) -> Repository {
        Repository { sessions: self.sessions.emptied(), in_flight: SingleFlight::default(), ..self.clone() }
    }

    /// Opens session `id` for `player` at `session`'s table, and answers it (remembered).
    pub async fn open(
        &self,
        id: Uuid,
        player: &str,
        wallet: Uuid,
        session: &Session,
    ) -> Result<Option<StoredSession>, AppError> {
        store::insert_session(&self.pool, id, player, wallet, session).await?;
        let opened = self.load(id).await?;
        if let Some(opened) = &opened {
            self.sessions.remember(opened.id, opened.clone())?;
        }
        Ok(opened)
    }

    /// Session `id` as stored.
    pub async fn load(&self, id: Uuid) -> Result<Option<StoredSession>, AppError> {
        store::load_session(&self.pool, id).await
    }

    /// The record request `key` of session `id` made, if any.
    pub async fn record_of(&self, id: Uuid, key: &str) -> Result<Option<StoredRoll>, AppError> {
        store::roll_by_key(&self.pool, id, key).await
    }

    /// Runs `play` for request `(session, player, key)` unless this process is running it
    /// already, in which case its answer is awaited; answers it, and whether this call ran it.
    pub async fn once<F, Fut>(
        &self,
        request: (Uuid, String, String),
        play: F,
    ) -> (Result<Played, AppError>, bool)
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Played, AppError>>,
    {
        self.in_flight.run(request, play).await
    }

    /// Sessions with a request pending for longer than `older_than`.
    pub async fn stuck(&self, older_than: Duration) -> Result<Vec<Uuid>, AppError> {
        store::stuck(&self.pool, older_than).await
    }

    /// Sessions with bets on their layout and no request for longer than `idle`.
    pub async fn abandoned(&self, idle: Duration) -> Result<Vec<Uuid>, AppError> {
        store::abandoned(&self.pool, idle).await
    }
}

/// A write of a session, conditional on the session as read ([`crate::kit::round`]).
#[derive(Debug)]
pub enum Write {
    /// The request recorded as the session's pending one, before its money moves.
    Claim(Pending),
    /// The pending request done, with its audit record.
    Finish(Finished, Entry),
}

impl Rows for Repository {
    /// The session and the request's key.
    type Key = (Uuid, String);
    type Row = Row;
    type Write = Write;
    /// The key of the pending request whose money was refused.
    type Release = String;

    /// The session as this process last recorded it, when nothing is pending on it.
    fn remembered(&self, (id, _): &(Uuid, String)) -> Result<Option<Row>, AppError> {
        Ok(self.sessions.get(*id, |s| s.pending.is_none())?.map(|s| (s, None)))
    }

    async fn read(&self, (id, key): &(Uuid, String)) -> Result<Row, AppError> {
        store::session_with_request(&self.pool, *id, key).await?.ok_or_else(|| {
            AppError::not_found(platform::codes::SESSION_NOT_FOUND, format!("craps session {id} does not exist"))
        })
    }

    async fn write(&self, (stored, _): &Row, write: Write) -> Result<Option<Row>, AppError> {
        match write {
            Write::Claim(pending) => {
                let claimed = StoredSession { pending: Some(pending.clone()), ..stored.clone() };
                Ok(self.claims.submit((stored.id, pending)).await?.then_some((claimed, None)))
            }
            Write::Finish(finished, audit) => {
                if !self.finishes.submit((finished.clone(), audit)).await? {
                    return Ok(None);
                }
                let balance_before_cents = finished.balance_before();
                let pending = finished.pending;
                let roll = StoredRoll {
                    session_id: stored.id,
                    seq: pending.seq,
                    changes: pending.changes.clone(),
                    report: pending.report.clone(),
                    money: pending.money,
                    balance_before_cents,
                    balance_after_cents: finished.balance_after,
                    created_at: finished.at,
                };
                let session = StoredSession {
                    rolls: stored.rolls.saturating_add(i32::from(pending.report.is_some())),
                    requests: stored.requests.saturating_add(1),
                    session: pending.next,
                    pending: None,
                    ..stored.clone()
                };
                Ok(Some((session, Some(roll))))
            }
        }
    }

    async fn release(&self, (stored, _): &Row, key: String, _code: &str) -> Result<(), AppError> {
        store::clear_pending(&self.pool, stored.id, &key).await
    }

    /// A session with nothing pending is remembered; any other is forgotten.
    fn remember(&self, (session, _): &Row) -> Result<(), AppError> {
        if session.pending.is_none() {
            self.sessions.remember(session.id, session.clone())
        } else {
            self.sessions.forget(session.id)
        }
    }

    fn forget(&self, (id, _): &(Uuid, String)) -> Result<(), AppError> {
        self.sessions.forget(*id)
    }
}
