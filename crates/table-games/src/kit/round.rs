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
