//! What the platform writes to players, and the worker that sends it (issue 49 §Email).
//!
//! A letter is written to the outbox in the transaction of what it tells ([`write`]), and sent
//! by [`send_due`], which every replica runs every few seconds: each claims a few due messages
//! for a minute ([`crate::store::mail::claim_due`]), so replicas never send one message twice
//! unless one dies between the relay's answer and its note. A message the relay refuses for now
//! is tried again after 1, 2, 4 ... minutes (at most an hour apart) and given up after
//! [`MAX_ATTEMPTS`]; one it refuses for good is given up at once. No request waits for a relay.

use chrono::{DateTime, Utc};
use ledger_api::{Game, Purpose};
use platform::AppError;
use platform::events::{self, Event, Kind};
use sqlx::PgConnection;
use uuid::Uuid;

use crate::GatewayState;
use crate::mail::SendFailure;
use crate::store::mail::{self as store, NewMail};

/// Attempts before a message is given up.
pub const MAX_ATTEMPTS: i32 = 12;

/// How long a worker holds the messages it claimed before another may try them.
const LEASE_SECONDS: i32 = 60;

/// Messages one pass of one worker claims.
const BATCH: i64 = 20;

/// One message: its kind (what the outbox and the console call it), subject and text.
#[derive(Debug, Clone)]
pub struct Letter {
    pub kind: &'static str,
    pub subject: String,
    pub body: String,
}

/// A time as the player reads it: the lottery's clock, named.
fn when(at: DateTime<Utc>) -> String {
    domain::text::lottery_time(at)
}

impl Letter {
    /// The link that proves an address (registration, or a resend).
    pub fn verify_email(link: &str, minutes: i32) -> Letter {
        Letter {
            kind: "verify_email",
            subject: "Confirm your email address".to_owned(),
            body: format!(
                "To confirm this address for your lottery account, open this link within {minutes} minutes:\n\n\
                 {link}\n\n\
                 If you did not open an account, ignore this message: nothing is done with this address until \
                 it is confirmed."
            ),
        }
    }

    /// A registration with an address that already has an account: told to the address, never
    /// to whoever typed it.
    pub fn already_registered(at: DateTime<Utc>, site: &str) -> Letter {
        Letter {
            kind: "already_registered",
            subject: "Someone tried to open an account with your address".to_owned(),
            body: format!(
                "On {} someone, perhaps you, asked to open a lottery account with this address. It already \
                 has one, so nothing was opened.\n\n\
                 To use your account, log in at {site}. If you forgot the password, choose a new one at \
                 {site}/#/forgot-password.\n\n\
                 If it was not you, you need do nothing.",
                when(at)
            ),
        }
    }

    /// A resend asked for an address already confirmed.
    pub fn already_verified(site: &str) -> Letter {
        Letter {
            kind: "already_verified",
            subject: "Your email address is already confirmed".to_owned(),
            body: format!(
                "Someone asked for a new confirmation link for this address. It is already confirmed, so no \
                 link is needed: log in at {site}."
            ),
        }
    }

    /// The link that sets a new password.
    pub fn reset_password(link: &str, minutes: i32) -> Letter {
        Letter {
            kind: "reset_password",
            subject: "Choose a new password".to_owned(),
            body: format!(
                "To choose a new password for your lottery account, open this link within {minutes} minutes:\n\n\
                 {link}\n\n\
                 If you did not ask for it, ignore this message: your password stays as it is."
            ),
        }
    }

    /// A new password was set: every session was ended.
    pub fn password_changed(at: DateTime<Utc>, help: &str) -> Letter {
        Letter {
            kind: "password_changed",
            subject: "Your password was changed".to_owned(),
            body: format!(
                "The password of your lottery account was changed on {}, and every device logged in was \
                 logged out.\n\nIf it was not you, reset it again at once and call us. {help}",
                when(at)
            ),
        }
    }

    /// A login (N.J.A.C. 13:69O-1.4: the player is told of every login), with the one before.
    pub fn login_notice(at: DateTime<Utc>, previous: Option<DateTime<Utc>>, site: &str) -> Letter {
        let before = previous.map_or_else(
            || "This is the first login.".to_owned(),
            |p| format!("The login before it was on {}.", when(p)),
        );
        Letter {
            kind: "login_notice",
            subject: "A login to your lottery account".to_owned(),
            body: format!(
                "Your lottery account was logged in to on {}. {before}\n\n\
                 If it was not you, change your password at {site}/#/forgot-password at once. You can turn \
                 these messages off in your account's settings.",
                when(at)
            ),
        }
    }
}

/// What player protection changed, told to the player (issue 49 §Email): each letter says what
/// holds now and until when, in the lottery's time, and where help is.
impl Letter {
    /// A limit set or changed, by the player or by the lottery; `what` says which and how much.
    pub fn limit_changed(what: &str, by_lottery: bool, help: &str) -> Letter {
        let who = if by_lottery { "The lottery set" } else { "You set" };
        Letter {
            kind: "limit_changed",
            subject: "A limit on your play changed".to_owned(),
            body: format!(
                "{who} a limit on your account: {what}.\n\n                 A lower limit applies at once; a higher one, or a limit removed, after 24 hours. \
                 If you did not make this change, call us. {help}"
            ),
        }
    }

    /// A break taken: no play or deposits until it ends.
    pub fn break_taken(until: DateTime<Utc>, help: &str) -> Letter {
        Letter {
            kind: "break",
            subject: "You are taking a break".to_owned(),
            body: format!(
                "You asked for a break from play. Until {} you cannot play or deposit, and every device was \
                 logged out; tickets for draws after now were cancelled and their cost returned. Your \
                 balance stays yours to withdraw.\n\n{help}",
                when(until)
            ),
        }
    }

    /// A self-exclusion (for a term, or for good) or a match on an operator's exclusion list.
    pub fn excluded(until: Option<DateTime<Utc>>, by_list: bool, help: &str) -> Letter {
        let how_long = match (by_list, until) {
            (true, _) => "Your name is on an exclusion list the lottery must follow, so".to_owned(),
            (false, None) => "You excluded yourself for good, so".to_owned(),
            (false, Some(end)) => format!("You excluded yourself until {}, so", when(end)),
        };
        Letter {
            kind: "exclusion",
            subject: "Your account is excluded from play".to_owned(),
            body: format!(
                "{how_long} you cannot play or deposit, and every device was logged out; tickets for draws \
                 after now were cancelled and their cost returned. Your balance stays yours to withdraw.\n\n\
                 {help}"
            ),
        }
    }

    /// The account closed by the player.
    pub fn account_closed(help: &str) -> Letter {
        Letter {
            kind: "account_closed",
            subject: "Your account is closed".to_owned(),
            body: format!(
                "You closed your lottery account: no play or deposits from now, and every device was logged \
                 out; tickets for draws after now were cancelled and their cost returned. You may still log \
                 in to withdraw your balance, and you may ask to reopen the account (it reopens 24 hours \
                 after you ask). Every record is kept.\n\n{help}"
            ),
        }
    }

    /// A large win paid into the wallet (a win, or stakes returned with it).
    pub fn large_win(cents: i64, game: Option<&str>, at: DateTime<Utc>, help: &str) -> Letter {
        let from = game.map_or_else(String::new, |g| format!(" from {g}"));
        Letter {
            kind: "large_win",
            subject: "A large win was paid into your wallet".to_owned(),
            body: format!(
                "On {} your wallet was credited {}{from} (a win, with any stake it returned). \
                 Prizes of $600 or more may be reported for tax.\n\n{help}",
                when(at),
                domain::money::dollars(cents)
            ),
        }
    }

    /// A withdrawal's outcome: paid, or not paid and the money back in the wallet.
    pub fn withdrawal(cents: i64, paid: bool, help: &str) -> Letter {
        let amount = domain::money::dollars(cents);
        let (subject, said) = if paid {
            ("Your cash-out was paid", format!("Your cash-out of {amount} was paid by the payment provider."))
        } else {
            (
                "Your cash-out could not be paid",
                format!("Your cash-out of {amount} could not be paid; the money is back in your wallet."),
            )
        };
        Letter {
            kind: "withdrawal",
            subject: subject.to_owned(),
            body: format!("{said}\n\nIf you did not ask for it, change your password and call us. {help}"),
        }
    }
}

/// Writes `letter` to `to` in the outbox, on `conn` (the transaction of what it tells).
pub(crate) async fn write(
    state: &GatewayState,
    conn: &mut PgConnection,
    to: &str,
    player: Option<Uuid>,
    letter: &Letter,
) -> Result<(), AppError> {
    let mail = NewMail {
        id: Uuid::now_v7(),
        recipient: to,
        player,
        kind: letter.kind,
        subject: &letter.subject,
        body: &letter.body,
    };
    store::enqueue(conn, &mail, state.mail.relay.sends()).await
}

/// How long after its `attempts`-th failed attempt a message is tried again; `None`: given up.
pub fn retry_after(attempts: i32) -> Option<i32> {
    (attempts < MAX_ATTEMPTS).then(|| 30_i32.saturating_mul(1 << attempts.clamp(0, 7)).min(3_600))
}

/// One pass of the sending worker: the due messages this replica claims, sent. Returns how many
/// went.
pub async fn send_due(state: &GatewayState) -> Result<usize, AppError> {
    if !state.mail.relay.sends() {
        return Ok(0);
    }
    let due = store::claim_due(&state.pool, BATCH, LEASE_SECONDS).await?;
    let mut sent = 0;
    for mail in due {
        let started = std::time::Instant::now();
        let outcome = state.mail.relay.send(mail.id, &mail.recipient, &mail.subject, &mail.body).await;
        let class = match &outcome {
            Ok(()) => "2xx",
            Err(SendFailure::Transient(_)) => "4xx",
            Err(SendFailure::Permanent(_)) => "5xx",
        };
        platform::metrics::count_upstream_call("mail", class, started.elapsed());
        match outcome {
            Ok(()) => {
                store::sent(&state.pool, mail.id).await?;
                platform::metrics::count_mail("sent");
                sent += 1;
            }
            Err(SendFailure::Permanent(error)) => {
                platform::metrics::count_mail("failed");
                tracing::warn!(mail = %mail.id, kind = mail.kind, %error, "the relay refused a message for good");
                store::not_sent(&state.pool, mail.id, &error, None).await?;
            }
            Err(SendFailure::Transient(error)) => {
                let retry = retry_after(mail.attempts);
                platform::metrics::count_mail(if retry.is_some() { "retrying" } else { "failed" });
                tracing::warn!(mail = %mail.id, kind = mail.kind, attempts = mail.attempts, ?retry, %error, "a message could not be sent");
                store::not_sent(&state.pool, mail.id, &error, retry).await?;
            }
        }
    }
    Ok(sent)
}

/// Writes `letter` to player `player` at `to` in a transaction of its own: for what changed
/// where no transaction of this service holds it (a limit the ledger keeps).
pub(crate) async fn tell(
    state: &GatewayState,
    player: Uuid,
    to: &str,
    letter: &Letter,
) -> Result<(), AppError> {
    let mut tx = state.pool.begin().await?;
    write(state, &mut tx, to, Some(player), letter).await?;
    tx.commit().await?;
    Ok(())
}

/// The reader of the ledger's large wins.
const LARGE_WINS: &str = "large_wins";

/// One pass of the large-win mail: the wins of at least `LOTTO_LARGE_WIN_CENTS` the ledger
/// journaled since the last pass, each told to its player once (the message's id derived from
/// the transfer, the cursor moved in the same transaction). The first pass starts at the
/// journal's newest large transfer: wins before the reader first ran are not told. Returns how
/// many were read.
pub async fn tell_large_wins(state: &GatewayState) -> Result<usize, AppError> {
    let floor = state.protection.large_win_cents;
    let after = match store::cursor(&state.pool, LARGE_WINS).await? {
        Some(after) => after,
        None => {
            let newest = state.ledger.large_wins(i64::MAX, floor).await?.newest_seq.unwrap_or(0);
            store::start_cursor(&state.pool, LARGE_WINS, newest).await?;
            return Ok(0);
        }
    };
    let page = state.ledger.large_wins(after, floor).await?;
    for win in &page.items {
        let owner = crate::store::players::owner_of_wallet(&state.pool, win.wallet).await?;
        let game = Purpose::read(&win.metadata).game.map(Game::title);
        let mut tx = state.pool.begin().await?;
        let player = owner.as_ref().map(|(p, _)| *p);
        if let Some((player, email)) = owner {
            let letter =
                Letter::large_win(win.amount, game.as_deref(), win.created_at, &state.protection.help_line);
            let mail = NewMail {
                id: Uuid::new_v5(&crate::GATEWAY_NAMESPACE, format!("large-win/{}", win.id).as_bytes()),
                recipient: &email,
                player: Some(player),
                kind: letter.kind,
                subject: &letter.subject,
                body: &letter.body,
            };
            store::enqueue(&mut tx, &mail, state.mail.relay.sends()).await?;
        }
        events::record(&mut tx, crate::SCHEMA, &large_win_event(win, player, game.as_deref())?).await?;
        store::advance_cursor(&mut tx, LARGE_WINS, win.seq).await?;
        tx.commit().await?;
    }
    Ok(page.items.len())
}

/// A win at or over the floor, as the significant-events log records it (once: with the
/// cursor that passes it).
fn large_win_event(
    win: &ledger_api::wire::LargeWin,
    player: Option<Uuid>,
    game: Option<&str>,
) -> Result<Event, AppError> {
    #[derive(serde::Serialize)]
    struct LargeWin<'a> {
        transfer: Uuid,
        wallet: Uuid,
        amount_cents: i64,
        game: Option<&'a str>,
        won_at: DateTime<Utc>,
    }
    let details = LargeWin {
        transfer: win.id,
        wallet: win.wallet,
        amount_cents: win.amount,
        game,
        won_at: win.created_at,
    };
    let event = Event::new(Kind::LargeWin, &details)?;
    Ok(match player {
        Some(player) => event.player(player),
        None => event,
    })
}

#[cfg(test)]
mod tests {
    use super::{MAX_ATTEMPTS, retry_after};

    /// 30 s after the first failure, doubling, at most an hour apart, given up at the limit.
    #[test]
    fn a_message_is_tried_again_later_each_time_then_given_up() {
        assert_eq!(retry_after(1), Some(60));
        assert_eq!(retry_after(2), Some(120));
        assert_eq!(retry_after(7), Some(3_600));
        assert_eq!(retry_after(MAX_ATTEMPTS - 1), Some(3_600));
        assert_eq!(retry_after(MAX_ATTEMPTS), None);
    }
}
