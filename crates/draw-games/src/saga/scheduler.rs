//! The draw scheduler (architecture §6), one for every draw game: while this process leads, it runs
//! each game's due steps every tick; the games' steps are guarded state changes, so a step run
//! twice (two processes, a restart halfway) changes nothing the second time.
//!
//! One process leads at a time (a session-level advisory lock on a connection of its own); the
//! others wait and take over when the leader's connection goes. After downtime the leader runs
//! every missed draw of every game, oldest first, and reports each as late.
//!
//! Through a database failover the lock dies with its session, and the old leader may still be
//! running a step on a pooled connection when another replica takes the lock: what fences the
//! two is that every step is one guarded state change (`... WHERE state = 'closed'`), so the
//! second to commit changes nothing: a draw is drawn once, whoever draws it (ADR 0013 §6).

use std::time::Duration;

use platform::AppError;
use sqlx::PgConnection;

use crate::DrawsState;
use crate::store::leadership;

/// A game drawn on a schedule, whose due steps the leader runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrawGame {
    CastleKeno,
    Powerball,
}

impl DrawGame {
    pub const ALL: [DrawGame; 2] = [DrawGame::CastleKeno, DrawGame::Powerball];

    pub fn name(self) -> &'static str {
        match self {
            DrawGame::CastleKeno => "castle_keno",
            DrawGame::Powerball => "powerball",
        }
    }

    /// Runs every step of this game that is due now; returns how many draws moved.
    pub async fn run_due(self, state: &DrawsState) -> Result<usize, AppError> {
        match self {
            DrawGame::CastleKeno => super::keno::draws::run_due_draws(state).await,
            DrawGame::Powerball => super::powerball::draws::run_due_drawings(state).await,
        }
    }
}

/// One pass of the leader over every game; a game that fails is logged and retried next tick
/// without holding the others back. Returns how many draws moved.
pub async fn run_due(state: &DrawsState) -> usize {
    let mut moved = 0;
    for game in DrawGame::ALL {
        match game.run_due(state).await {
            Ok(0) => {}
            Ok(n) => {
                tracing::info!(game = game.name(), draws = n, "draws run");
                moved += n;
            }
            Err(e) => tracing::warn!(game = game.name(), error = %e, "draws: will retry"),
        }
    }
    moved
}

/// Runs [`run_due`] every `tick` while this process holds the scheduler's lock; waits and tries
/// again otherwise.
pub fn spawn_scheduler(state: DrawsState, tick: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut leadership = Leadership::default();
        let mut ticker = tokio::time::interval(tick);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticker.tick().await;
            let leads = match leadership.hold(&state).await {
                Ok(leads) => leads,
                Err(e) => {
                    tracing::warn!(error = %e, "draw scheduler lost its connection; will retry");
                    leadership = Leadership::default();
                    false
                }
            };
            // Which replica leads, for the operator (and the failover test): 1 on the leader.
            metrics::gauge!(platform::metrics::DRAW_LEADER).set(if leads { 1.0 } else { 0.0 });
            #[allow(clippy::cast_precision_loss)] // seconds
            metrics::gauge!(platform::metrics::DRAW_INTERVAL, "game" => crate::store::keno::draws::GAME)
                .set(state.schedule.interval.num_seconds() as f64);
            if leads {
                run_due(&state).await;
            }
        }
    })
}

/// The scheduler's lock: a session-level advisory lock, held as long as its connection lives.
/// The connection is taken out of the pool, so the lock never travels with a pooled connection,
/// and closing it (or the process dying) hands leadership to another process.
#[derive(Debug, Default)]
struct Leadership {
    conn: Option<PgConnection>,
    held: bool,
}

impl Leadership {
    /// True while this process leads (taking the lock when it is free).
    async fn hold(&mut self, state: &DrawsState) -> Result<bool, AppError> {
        let conn = match &mut self.conn {
            Some(conn) => conn,
            None => self.conn.insert(state.pool.acquire().await?.detach()),
        };
        if self.held {
            // Still connected, so still holding it.
            leadership::still_connected(conn).await?;
        } else {
            self.held = leadership::try_lead(conn).await?;
        }
        Ok(self.held)
    }
}
