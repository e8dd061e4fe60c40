//! A player's standing (issue 35, ADR 0014 §4): from their rows, whether play is suspended,
//! why, and when it resumes. The one rule every door reads: the ledger's suspension (which
//! refuses stakes), deposits, `/v1/me` and the login.
//!
//! - a **break** (time-out) ends by itself at its end;
//! - a **fixed-term self-exclusion** never ends early; after its end play resumes only
//!   [`COOLING_OFF_HOURS`] after the player asks for it (`return_requested_at`);
//! - a **permanent** self-exclusion never ends;
//! - a **closed** account reopens [`COOLING_OFF_HOURS`] after its player asks;
//! - a match on an **exclusion list** lasts while the entry is on the list.
//!
//! Where several hold, an open-ended one wins (list, then exclusion, then closure), else the
//! latest end.

use chrono::{DateTime, Duration, Utc};
use ledger_api::wire::{Suspension, SuspensionReason};

use axum::http::StatusCode;
use platform::{AppError, codes};
use serde::{Deserialize, Serialize};

use crate::store::players::PlayerRow;

/// The cooling-off between a player's asking to play again (after an exclusion's end, or to
/// reopen a closed account) and play resuming: at least 24 hours, as the regulators ask.
pub const COOLING_OFF_HOURS: i64 = 24;

/// A player's standing (ADR 0014 §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// May play.
    Active,
    /// On a break (time-out) until it ends.
    OnBreak,
    /// Self-excluded: for a term (then a day after asking), or permanently.
    SelfExcluded,
    /// The player closed the account (it reopens a day after they ask).
    Closed,
    /// On a state's or the operator's exclusion list.
    Listed,
}

impl Standing {
    /// 403 with the code of what suspends play (`on_break`, `self_excluded`, `account_closed`,
    /// `excluded_by_list`) and when it ends (`resumes_at`), said of `who` ("you are", "this player is"); `None`
    /// while the player may play. The one refusal of money coming in (the player's deposit, an
    /// operator's cash deposit) and of a suspended person's new account.
    pub fn refusal(self, resumes_at: Option<DateTime<Utc>>, who: &str) -> Option<AppError> {
        let when = |what: &str| match resumes_at {
            Some(at) => format!("{who} {what} until {at}"),
            None => format!("{who} {what}"),
        };
        let (code, detail) = match self {
            Standing::Active => return None,
            Standing::OnBreak => (codes::ON_BREAK, when("taking a break")),
            Standing::SelfExcluded => (codes::SELF_EXCLUDED, when("excluded from play")),
            Standing::Closed => (codes::ACCOUNT_CLOSED, when("closed (the account)")),
            Standing::Listed => (codes::EXCLUDED_BY_LIST, format!("{who} on an exclusion list")),
        };
        Some(AppError::new(StatusCode::FORBIDDEN, code, detail))
    }
}

/// Whether and until when a player's play is suspended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayStanding {
    pub standing: Standing,
    /// Why play is suspended; `None` while the player may play.
    pub reason: Option<SuspensionReason>,
    /// When play resumes by itself; `None` while it is suspended with no end set (an exclusion
    /// or closure waiting for the player's request, a permanent exclusion, a list match).
    pub resumes_at: Option<DateTime<Utc>>,
}

impl PlayStanding {
    /// `row`'s standing at `now`.
    pub fn of(row: &PlayerRow, now: DateTime<Utc>) -> PlayStanding {
        let cooled = |asked: Option<DateTime<Utc>>, since: DateTime<Utc>| {
            asked.filter(|a| *a >= since).map(|a| a + Duration::hours(COOLING_OFF_HOURS))
        };
        // Each suspension that may hold: its reason and its end (`None`: open-ended).
        let mut holding: Vec<(SuspensionReason, Option<DateTime<Utc>>)> = Vec::new();
        if row.listed_entry.is_some() {
            holding.push((SuspensionReason::ExclusionList, None));
        }
        if row.excluded_permanently {
            holding.push((SuspensionReason::SelfExclusion, None));
        }
        if let Some(end) = row.self_excluded_until {
            holding.push((SuspensionReason::SelfExclusion, cooled(row.return_requested_at, end)));
        }
        if let Some(closed) = row.closed_at {
            holding.push((SuspensionReason::Closure, cooled(row.reopen_requested_at, closed)));
        }
        if let Some(end) = row.on_break_until {
            holding.push((SuspensionReason::TimeOut, Some(end)));
        }
        holding.retain(|(_, end)| end.is_none_or(|e| e > now));
        let binding = holding
            .iter()
            .find(|(_, end)| end.is_none())
            .or_else(|| holding.iter().max_by_key(|(_, end)| *end))
            .copied();
        match binding {
            None => PlayStanding { standing: Standing::Active, reason: None, resumes_at: None },
            Some((reason, resumes_at)) => PlayStanding {
                standing: match reason {
                    SuspensionReason::TimeOut => Standing::OnBreak,
                    SuspensionReason::SelfExclusion => Standing::SelfExcluded,
                    SuspensionReason::Closure => Standing::Closed,
                    SuspensionReason::ExclusionList => Standing::Listed,
                },
                reason: Some(reason),
                resumes_at,
            },
        }
    }

    /// What the ledger is told: the suspension in force, or one that has ended (`now`), which
    /// lifts any before it.
    pub fn suspension(&self, now: DateTime<Utc>) -> Suspension {
        match self.reason {
            Some(reason) => Suspension { until: self.resumes_at, reason },
            None => Suspension { until: Some(now), reason: SuspensionReason::TimeOut },
        }
    }

    /// Whether anything on the row could ever suspend play (a player who never took a break,
    /// was never excluded, never closed: the login need not tell the ledger anything).
    pub fn ever_suspended(row: &PlayerRow) -> bool {
        row.listed_entry.is_some()
            || row.excluded_permanently
            || row.self_excluded_until.is_some()
            || row.closed_at.is_some()
            || row.on_break_until.is_some()
    }
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;
    use uuid::Uuid;

    use super::*;

    fn row() -> PlayerRow {
        PlayerRow {
            id: Uuid::nil(),
            email: "p@example.com".into(),
            date_of_birth: NaiveDate::from_ymd_opt(1990, 1, 1).unwrap(),
            wallet_account_id: Uuid::nil(),
            last_login_at: None,
            self_excluded_until: None,
            on_break_until: None,
            excluded_permanently: false,
            return_requested_at: None,
            closed_at: None,
            reopen_requested_at: None,
            listed_entry: None,
            voids_pending_since: None,
            email_verified_at: None,
            login_notices: true,
            deposits_blocked_at: None,
            identity_state: None,
            created_at: Utc::now(),
        }
    }

    #[test]
    fn an_exclusion_past_its_end_holds_until_the_player_asks_and_a_day_passes() {
        let now = Utc::now();
        let mut r = row();
        r.self_excluded_until = Some(now - Duration::days(3));
        let s = PlayStanding::of(&r, now);
        assert_eq!((s.standing, s.resumes_at), (Standing::SelfExcluded, None));
        r.return_requested_at = Some(now - Duration::hours(2));
        let s = PlayStanding::of(&r, now);
        assert_eq!((s.standing, s.resumes_at), (Standing::SelfExcluded, Some(now + Duration::hours(22))));
        r.return_requested_at = Some(now - Duration::hours(25));
        assert_eq!(PlayStanding::of(&r, now).standing, Standing::Active);
        // A request made before the exclusion's end does not count.
        r.return_requested_at = Some(now - Duration::days(4));
        assert_eq!(PlayStanding::of(&r, now).standing, Standing::SelfExcluded);
    }

    #[test]
    fn an_open_ended_suspension_binds_over_a_longer_break_and_a_break_ends_by_itself() {
        let now = Utc::now();
        let mut r = row();
        r.on_break_until = Some(now + Duration::days(30));
        let s = PlayStanding::of(&r, now);
        assert_eq!((s.standing, s.resumes_at), (Standing::OnBreak, r.on_break_until));
        r.closed_at = Some(now);
        let s = PlayStanding::of(&r, now);
        assert_eq!((s.standing, s.resumes_at), (Standing::Closed, None));
        assert_eq!(s.suspension(now).until, None);
        r.reopen_requested_at = Some(now);
        // Reopening asked: the later of the cooling-off and the break binds.
        assert_eq!(PlayStanding::of(&r, now).resumes_at, r.on_break_until);
        r.excluded_permanently = true;
        assert_eq!(PlayStanding::of(&r, now + Duration::days(365 * 50)).standing, Standing::SelfExcluded);
        let mut ended = row();
        ended.on_break_until = Some(now - Duration::seconds(1));
        let s = PlayStanding::of(&ended, now);
        assert_eq!(s.standing, Standing::Active);
        assert_eq!(s.suspension(now).until, Some(now));
    }
}
