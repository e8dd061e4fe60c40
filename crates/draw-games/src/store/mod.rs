//! Every SQL statement of the draw games. Nothing outside this module writes SQL.
//!
//! - [`keno`]: both kinds of Keno ticket on one load / list / recovery path, and the schedule
//!   and the draws' rows;
//! - [`powerball`]: Powerball drawings, tickets, results entries, settlement and claims;
//! - [`leadership`]: the scheduler's leadership lock;
//! - [`voids`]: tickets of both games taken out of their future draws when their player's play
//!   is suspended.

pub mod keno;
pub mod leadership;
pub mod powerball;
pub mod voids;

use platform::stored_state;

stored_state!(
    /// A play-now ticket: drawn (numbers fixed, money not yet moved), then settled or refused.
    pub PlayNowState { Drawn => "drawn", Settled => "settled", Refused => "refused" }
);

stored_state!(
    /// A ticket for scheduled draws: open (recorded), then staked (in its draws) or refused.
    pub DrawTicketState { Open => "open", Staked => "staked", Refused => "refused" }
);

stored_state!(
    /// A scheduled draw, in order: sold, closed (wager set frozen), drawn, settled.
    pub DrawState { Scheduled => "scheduled", Open => "open", Closed => "closed", Drawn => "drawn", Settled => "settled" }
);

stored_state!(
    /// A Powerball drawing: on sale, closed (wager set frozen and exported), drawn (results
    /// stand), settled (winners found), then certified or disputed.
    pub PowerballDrawState { Scheduled => "scheduled", Closed => "closed", Drawn => "drawn", Settled => "settled", Certified => "certified", Disputed => "disputed" }
);

stored_state!(
    /// A Powerball claim: reserved for its payee (`pending`), its money moved (`done`), then
    /// answered "paid" to its payee (`confirmed`).
    pub ClaimState { Pending => "pending", Done => "done", Confirmed => "confirmed" }
);

stored_state!(
    /// A Powerball ticket: open (recorded), then sold (its plays in their drawings) or refused.
    pub PowerballTicketState { Open => "open", Sold => "sold", Refused => "refused" }
);

/// The work waiting between the draw games' saga steps (`platform::metrics`' backlogs): tickets
/// between staking and settling, Powerball sales and claims not finished; each read through the
/// partial index of its unfinished rows.
pub async fn backlogs(pool: &sqlx::PgPool) -> Result<Vec<platform::metrics::Backlog>, platform::AppError> {
    Ok(sqlx::query_as!(
        platform::metrics::Backlog,
        r#"SELECT 'keno_ticket' AS "kind!", count(*) AS "waiting!", min(updated_at) AS oldest
             FROM keno_tickets WHERE state IN ('open', 'staked', 'drawn')
           UNION ALL
           SELECT 'keno_draw_ticket', count(*), min(updated_at) FROM keno_draw_tickets WHERE state = 'open'
           UNION ALL
           SELECT 'powerball_ticket', count(*), min(updated_at) FROM pb_tickets WHERE state = 'open'
           UNION ALL
           SELECT 'powerball_claim', count(*), min(created_at) FROM pb_claims WHERE state = 'pending'"#
    )
    .fetch_all(pool)
    .await?)
}
