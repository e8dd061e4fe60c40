//! The retailers whose validations are unusual for the games' odds (the operators' report):
//! two patterns that point at a retailer paying itself or its friends, a share of high-tier
//! winners far above what the games' prize structures give (it keeps the good tickets), and many
//! claims just under the retailer's pay limit (prizes kept away from the office's W-2G). Each is
//! a count against its expectation with the probability of that count or more by chance
//! (`domain::instant::patterns`); wrong VIRNs, re-claims of paid tickets and scans of stolen
//! packs are counted beside them.

use chrono::{DateTime, Utc};
use domain::instant::patterns::{expected, share_of_winners, upper_tail};
use platform::AppError;

use crate::InstantState;
use crate::views::{PatternCount, UnusualRetailer};

/// Where the report draws its lines.
#[derive(Debug, Clone, Copy)]
pub struct Thresholds {
    /// A high-tier winner pays at least this.
    pub high_from: i64,
    /// A winner "just under the limit" pays from this to `limit`.
    pub near_from: i64,
    /// The retailer's pay limit.
    pub limit: i64,
    /// A count is flagged when one this high or higher has at most this chance.
    pub alpha: f64,
}

/// Distinct winning tickets validated: (retailer, game, prize cents, tickets).
type Winners = (String, i32, i64, i64);

/// Every retailer with validations in `[since, until)`, the flagged first and the least likely
/// first among them.
pub async fn unusual_validations(
    state: &InstantState,
    (since, until): (DateTime<Utc>, DateTime<Utc>),
    thresholds: &Thresholds,
) -> Result<Vec<UnusualRetailer>, AppError> {
    let winners = crate::store::reports::winners_by_retailer(&state.pool, since, until).await?;
    let refused = crate::store::reports::validations_by_retailer(&state.pool, since, until, None).await?;
    let mut retailers: Vec<String> =
        winners.iter().map(|w| w.0.clone()).chain(refused.iter().map(|r| r.retailer_id.clone())).collect();
    retailers.sort();
    retailers.dedup();
    let mut rows: Vec<UnusualRetailer> = retailers
        .into_iter()
        .map(|retailer| {
            let mine: Vec<&Winners> = winners.iter().filter(|w| w.0 == retailer).collect();
            let refusals = |code: &str| {
                refused.iter().filter(|r| r.retailer_id == retailer && r.result == code).map(|r| r.scans).sum::<i64>()
            };
            let (wrong_virns, already_paid, stolen_pack_scans) =
                (refusals("wrong_virn"), refusals("already_paid"), refusals("pack_stolen"));
            let high_tier = count(state, &mine, (thresholds.high_from, i64::MAX), thresholds.alpha);
            let near_limit = count(state, &mine, (thresholds.near_from, thresholds.limit), thresholds.alpha);
            let flags = flags(&high_tier, &near_limit, stolen_pack_scans);
            UnusualRetailer {
                retailer_id: retailer,
                winners: mine.iter().map(|w| w.3).sum(),
                high_tier,
                near_limit,
                wrong_virns,
                already_paid,
                stolen_pack_scans,
                flags,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        let least = |r: &UnusualRetailer| r.high_tier.p_value.min(r.near_limit.p_value);
        b.flags.len().min(1).cmp(&a.flags.len().min(1)).then(least(a).total_cmp(&least(b)))
    });
    Ok(rows)
}

/// A retailer's winners paying `from` to `to` against what its games' prize structures give.
fn count(state: &InstantState, mine: &[&Winners], (from, to): (i64, i64), alpha: f64) -> PatternCount {
    let observed: i64 = mine.iter().filter(|w| (from..=to).contains(&w.2)).map(|w| w.3).sum();
    // Per game: its winners here, each in the group with the game's share.
    let mut groups: Vec<(u64, f64)> = Vec::new();
    let mut games: Vec<i32> = mine.iter().map(|w| w.1).collect();
    games.dedup();
    for game in games {
        let n: i64 = mine.iter().filter(|w| w.1 == game).map(|w| w.3).sum();
        let share = u32::try_from(game)
            .ok()
            .and_then(|g| state.game(g).ok())
            .map_or(0.0, |g| share_of_winners(g, from, to));
        groups.push((u64::try_from(n).unwrap_or(0), share));
    }
    let p_value = upper_tail(&groups, u64::try_from(observed).unwrap_or(0));
    PatternCount {
        from_cents: from,
        to_cents: to,
        observed,
        expected: expected(&groups),
        p_value,
        flagged: p_value <= alpha,
    }
}

/// What a retailer's counts flag, in words.
fn flags(high_tier: &PatternCount, near_limit: &PatternCount, stolen_pack_scans: i64) -> Vec<String> {
    let mut flags = Vec::new();
    if high_tier.flagged {
        flags.push(format!(
            "{} high-tier winners where {:.1} are expected (p = {:.2e})",
            high_tier.observed, high_tier.expected, high_tier.p_value
        ));
    }
    if near_limit.flagged {
        flags.push(format!(
            "{} winners just under the pay limit where {:.1} are expected (p = {:.2e})",
            near_limit.observed, near_limit.expected, near_limit.p_value
        ));
    }
    if stolen_pack_scans > 0 {
        flags.push(format!("{stolen_pack_scans} scans of tickets from stolen packs"));
    }
    flags
}
