//! The one driver every step of every table game takes (architecture §4, ADR 0012): a deal, a
//! decision, a settlement, a craps request. A game says what its rows are ([`Rows`], its
//! repository) and what a step does to one ([`Plan`], a pure function of the game's `steps`);
//! this owns the sequence between them, the same for every game:
//!
//! 1. **read**: the row as this process last wrote it when it remembers it, else as stored;
//! 2. **plan**: the game's step on the row: nothing to do, a write, or money first and then a
//!    write made from the balances the money read back. A refusal (a rule, a stale step) or a
//!    path aside is only ever answered on a row as read: planned on a remembered row (perhaps
//!    behind another process's writes), the row is forgotten and read again instead;
//! 3. **ledger batch**: the step's transfers in one batch shared with other rounds' (keys derived
//!    from the round, so a step run again replays); the ledger's refusal comes back typed from
//!    the batch queue and **releases** the row (its claim cleared, or the round refused), with
//!    nothing moved;
//! 4. **write**: one conditional statement on the row as read (group-committed with other rows');
//!    a write that finds the row moved on **lost a race**: the row is forgotten, read again and
//!    planned again (the money, if any, replays under the same keys), at most
//!    [`MOST_ATTEMPTS`] times;
//! 5. **remember**: the row as written, for the next step on it.
//!
//! A claim (a decision holding the round's step before its wager moves) is a write with no
//! money; the step after it starts from the row as claimed. No lock is held across the ledger's
//! call (ADR 0004).

use std::future::Future;

use ledger_api::{LedgerError, NewTransfer};
use platform::AppError;
use uuid::Uuid;

use super::Kit;

/// How many times a step reads its row before it gives up (each after a lost race; a plan on a
/// remembered row is not counted).
pub const MOST_ATTEMPTS: usize = 3;

/// A game's rows as the driver reads and writes them (each game's repository implements it).
pub trait Rows: Send + Sync {
    /// What names a row: a round's id; a craps request's session and key.
    type Key: Send + Sync;
    /// A row as read, with what its steps need beside it (a blackjack table's shoe, the record
    /// a craps request's key made).
    type Row: Clone + Send + Sync;
    /// One conditional write of a row (a claim, a deal, a decision, a settlement).
    type Write: Send;
    /// What a refused ledger batch leaves of a step (its claim cleared, the round refused).
    type Release: Send;

    /// The row as this process last wrote it, if remembered.
    fn remembered(&self, key: &Self::Key) -> Result<Option<Self::Row>, AppError>;

    /// The row as stored; the problem for a row that is not there.
    fn read(&self, key: &Self::Key) -> impl Future<Output = Result<Self::Row, AppError>> + Send;

    /// Writes `write` if the row is still as `row` says; answers the row as written, or None when
    /// it was not (another call moved it on).
    fn write(
        &self,
        row: &Self::Row,
        write: Self::Write,
    ) -> impl Future<Output = Result<Option<Self::Row>, AppError>> + Send;

    /// Undoes what a step holds whose money the ledger refused with `code` (nothing moved).
    fn release(
        &self,
        row: &Self::Row,
        release: Self::Release,
        code: &str,
    ) -> impl Future<Output = Result<(), AppError>> + Send;

    /// Keeps `row` as written for the next step on it, if the game remembers rows in its state.
    fn remember(&self, row: &Self::Row) -> Result<(), AppError>;

    /// Forgets what is remembered of the row.
    fn forget(&self, key: &Self::Key) -> Result<(), AppError>;
}

/// What a step does to a row, as its game's pure step function plans it.
pub enum Plan<R: Rows, A> {
    /// Nothing to do (done before, or not this step's turn): the row is answered as it is.
    Done,
    /// One conditional write with no money (a claim, a decision that adds no wager).
    Write(R::Write),
    /// Money first, then the write.
    Pay(Payment<R>),
    /// A path the driver does not take (a shoe with no card left): answered to the saga.
    Aside(A),
}

/// A step's ledger batch and the write that follows it.
pub struct Payment<R: Rows> {
    pub transfers: Vec<NewTransfer>,
    /// The accounts whose balances the batch reads back, in order.
    pub balances_of: Vec<Uuid>,
    /// What a refusal releases.
    pub on_refusal: R::Release,
    /// The write, made from the balances read back.
    pub then: ThenWrite<R::Write>,
}

/// A write made from the balances a step's ledger batch read back.
pub type ThenWrite<W> = Box<dyn FnOnce(&[i64]) -> Result<W, AppError> + Send>;

/// Where a step starts.
pub enum Start<Row> {
    /// The row as this process remembers it, else as stored.
    Remembered,
    /// A row the caller holds as a hint (refused on only after a read).
    Hint(Row),
    /// The row as the previous step wrote or read it.
    Row(Row),
    /// The row as stored.
    Read,
}

/// How a step ended.
pub enum Driven<Row, A> {
    /// The row as the step left it (or found it, with nothing to do).
    Row(Row),
    /// The ledger refused the step's money: nothing moved, the row released; the ledger's
    /// problem as it came (a limit's amount left and when it resets).
    Refused(AppError),
    /// The plan's path aside, with the row as read.
    Aside(A, Row),
}

impl<Row> Driven<Row, std::convert::Infallible> {
    /// The row, or the refusal as the answer's problem.
    pub fn answer(self) -> Result<Row, AppError> {
        match self {
            Driven::Row(row) => Ok(row),
            Driven::Refused(problem) => Err(problem),
            Driven::Aside(never, _) => match never {},
        }
    }
}

// What a step plans, holds or answers carries a closure or a game's rows: shown by its kind.
impl<R: Rows, A> std::fmt::Debug for Plan<R, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Plan::Done => "Done",
            Plan::Write(_) => "Write",
            Plan::Pay(_) => "Pay",
            Plan::Aside(_) => "Aside",
        })
    }
}

impl<R: Rows> std::fmt::Debug for Payment<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Payment").field("transfers", &self.transfers.len()).finish_non_exhaustive()
    }
}

impl<Row> std::fmt::Debug for Start<Row> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Start::Remembered => "Remembered",
            Start::Hint(_) => "Hint",
            Start::Row(_) => "Row",
            Start::Read => "Read",
        })
    }
}

impl<Row, A> std::fmt::Debug for Driven<Row, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Driven::Row(_) => f.write_str("Row"),
            Driven::Refused(problem) => write!(f, "Refused({})", problem.code()),
            Driven::Aside(..) => f.write_str("Aside"),
        }
    }
}

/// Runs one step on the row `key` names (see the module's documentation): `plan` is the game's
/// step; `gave_up` the problem when the row kept moving on.
#[tracing::instrument(target = "lotto::trace", name = "saga.round.step", skip_all)]
pub async fn drive<R: Rows, A>(
    kit: &Kit,
    rows: &R,
    key: &R::Key,
    start: Start<R::Row>,
    mut plan: impl FnMut(&R::Row) -> Result<Plan<R, A>, AppError>,
    gave_up: impl FnOnce() -> AppError,
) -> Result<Driven<R::Row, A>, AppError> {
    let mut start = Some(start);
    let mut reads = 0;
    while reads < MOST_ATTEMPTS {
        let (row, hint) = match start.take().unwrap_or(Start::Read) {
            Start::Remembered => match rows.remembered(key)? {
                Some(row) => (row, true),
                None => (rows.read(key).await?, false),
            },
            Start::Hint(row) => (row, true),
            Start::Row(row) => (row, false),
            Start::Read => (rows.read(key).await?, false),
        };
        reads += usize::from(!hint);
        let planned = match plan(&row) {
            Ok(Plan::Write(write)) => Plan::Write(write),
            Ok(Plan::Pay(payment)) => Plan::Pay(payment),
            // Only a row as read is refused, answered or sent aside.
            Ok(Plan::Done | Plan::Aside(_)) | Err(_) if hint => {
                rows.forget(key)?;
                continue;
            }
            other => other?,
        };
        let write = match planned {
            Plan::Done => return Ok(Driven::Row(row)),
            Plan::Aside(aside) => return Ok(Driven::Aside(aside, row)),
            Plan::Write(write) => write,
            Plan::Pay(payment) => match kit.pay(payment.transfers, payment.balances_of).await {
                Ok(balances) => (payment.then)(&balances)?,
                Err(LedgerError::Refused(problem)) => {
                    rows.forget(key)?;
                    rows.release(&row, payment.on_refusal, problem.code()).await?;
                    return Ok(Driven::Refused(problem));
                }
                Err(LedgerError::Unavailable(problem)) => return Err(problem),
            },
        };
        match rows.write(&row, write).await? {
            Some(written) => {
                rows.remember(&written)?;
                return Ok(Driven::Row(written));
            }
            None => rows.forget(key)?,
        }
    }
    Err(gave_up())
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::convert::Infallible;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::kit::KitSettings;

    /// A game of one counter a row, kept in memory: enough to watch the driver's sequence. Its
    /// writes are conditional on the row being as read; `steal` moves a row on (by 10) in place
    /// of that many writes, as another process would.
    #[derive(Default)]
    struct Counters {
        stored: Mutex<HashMap<Uuid, i64>>,
        memory: Mutex<HashMap<Uuid, i64>>,
        reads: AtomicUsize,
        steal: AtomicUsize,
    }

    impl Rows for Counters {
        type Key = Uuid;
        type Row = (Uuid, i64);
        type Write = i64;
        type Release = ();

        fn remembered(&self, id: &Uuid) -> Result<Option<(Uuid, i64)>, AppError> {
            Ok(self.memory.lock().unwrap().get(id).map(|v| (*id, *v)))
        }

        async fn read(&self, id: &Uuid) -> Result<(Uuid, i64), AppError> {
            self.reads.fetch_add(1, Ordering::SeqCst);
            let stored = self.stored.lock().unwrap().get(id).copied();
            stored.map(|v| (*id, v)).ok_or_else(|| AppError::internal("no such row"))
        }

        async fn write(&self, &(id, read): &(Uuid, i64), to: i64) -> Result<Option<(Uuid, i64)>, AppError> {
            let mut stored = self.stored.lock().unwrap();
            let row = stored.get_mut(&id).unwrap();
            if self.steal.load(Ordering::SeqCst) > 0 {
                self.steal.fetch_sub(1, Ordering::SeqCst);
                *row += 10;
                return Ok(None);
            }
            if *row != read {
                return Ok(None);
            }
            *row = to;
            Ok(Some((id, to)))
        }

        async fn release(&self, _: &(Uuid, i64), (): (), _: &str) -> Result<(), AppError> {
            Ok(())
        }

        fn remember(&self, &(id, value): &(Uuid, i64)) -> Result<(), AppError> {
            self.memory.lock().unwrap().insert(id, value);
            Ok(())
        }

        fn forget(&self, id: &Uuid) -> Result<(), AppError> {
            self.memory.lock().unwrap().remove(id);
            Ok(())
        }
    }

    /// A kit whose database and ledger are never reached (no step here moves money).
    fn kit() -> Kit {
        let pool = sqlx::postgres::PgPoolOptions::new().connect_lazy("postgres://nobody@127.0.0.1:9/none").unwrap();
        let upstream = platform::upstream::Upstream::remote("ledger", "http://127.0.0.1:9", Duration::from_secs(1));
        let ledger = ledger_api::LedgerClient::new(upstream.unwrap(), platform::auth::TokenKeys::random(), "tests");
        Kit::spawn(&pool, ledger, 1, KitSettings::default())
    }

    fn counters(stored: i64, remembered: Option<i64>) -> (Counters, Uuid) {
        let id = Uuid::now_v7();
        let rows = Counters::default();
        rows.stored.lock().unwrap().insert(id, stored);
        if let Some(value) = remembered {
            rows.memory.lock().unwrap().insert(id, value);
        }
        (rows, id)
    }

    /// The step: add one to an even counter; an odd one is refused.
    fn add_one_to_even(&(_, value): &(Uuid, i64)) -> Result<Plan<Counters, Infallible>, AppError> {
        if value % 2 == 0 { Ok(Plan::Write(value + 1)) } else { Err(AppError::internal("odd")) }
    }

    fn moved_on() -> AppError {
        AppError::internal("moved on")
    }

    #[tokio::test]
    async fn a_remembered_row_is_planned_on_without_a_read_and_remembered_as_written() {
        let (rows, id) = counters(4, Some(4));
        let driven = drive(&kit(), &rows, &id, Start::Remembered, add_one_to_even, moved_on).await.unwrap();
        assert_eq!(driven.answer().unwrap(), (id, 5));
        assert_eq!(rows.reads.load(Ordering::SeqCst), 0, "no read");
        assert_eq!(rows.memory.lock().unwrap()[&id], 5, "remembered as written");
    }

    #[tokio::test]
    async fn a_refusal_on_a_remembered_row_is_made_again_on_the_row_as_read() {
        // Remembered odd (behind another process's write): read, and planned on what is stored.
        let (rows, id) = counters(6, Some(3));
        let driven = drive(&kit(), &rows, &id, Start::Remembered, add_one_to_even, moved_on).await.unwrap();
        assert_eq!(driven.answer().unwrap(), (id, 7));
        assert_eq!(rows.reads.load(Ordering::SeqCst), 1);
        // Stored odd: the refusal stands, made on the row as read.
        let (rows, id) = counters(7, None);
        let refused = drive(&kit(), &rows, &id, Start::Read, add_one_to_even, moved_on).await.unwrap_err();
        assert_eq!(refused.to_string(), AppError::internal("odd").to_string());
    }

    #[tokio::test]
    async fn a_write_that_lost_its_race_is_planned_again_on_the_row_read_again() {
        let (rows, id) = counters(2, None);
        rows.steal.store(1, Ordering::SeqCst);
        let driven = drive(&kit(), &rows, &id, Start::Read, add_one_to_even, moved_on).await.unwrap();
        assert_eq!(driven.answer().unwrap(), (id, 13), "2 moved on to 12 by another, then one added");
        assert_eq!(rows.reads.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_row_that_keeps_moving_on_is_given_up_after_three_reads() {
        let (rows, id) = counters(2, Some(2));
        rows.steal.store(usize::MAX, Ordering::SeqCst);
        let gave_up = drive(&kit(), &rows, &id, Start::Remembered, add_one_to_even, moved_on).await.unwrap_err();
        assert_eq!(gave_up.to_string(), moved_on().to_string());
        assert_eq!(rows.reads.load(Ordering::SeqCst), MOST_ATTEMPTS, "the remembered plan is not counted");
        assert!(rows.memory.lock().unwrap().is_empty(), "a lost race forgets the row");
    }
}
