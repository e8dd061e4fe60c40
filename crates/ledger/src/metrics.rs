//! What the ledger counts (issue 51, `platform::metrics`): each call's transfers and time, the
//! transfers it applied and their cents by game and kind of money, its refusals by code and the
//! money limits reached by kind.

use std::time::Instant;

use ledger_api::wire::BatchItem;
use platform::AppError;
use platform::metrics as m;

/// Counts a ledger call of `size` transfers begun at `started` that came to `outcome`.
pub fn record_call(size: usize, started: Instant, outcome: Result<&[BatchItem], &AppError>) {
    #[allow(clippy::cast_precision_loss)] // at most the largest batch
    metrics::histogram!(m::LEDGER_BATCH_SIZE).record(size as f64);
    metrics::histogram!(m::LEDGER_BATCH_DURATION).record(started.elapsed().as_secs_f64());
    match outcome {
        Ok(items) => {
            for item in items.iter().filter(|i| !i.replayed) {
                let metadata = &item.transfer.metadata;
                let text = |key: &str| metadata.get(key).and_then(|v| v.as_str());
                let labels = [
                    ("game", game_label(text("game"))),
                    ("money", money_label(text("money"))),
                    ("channel", channel_label(text("channel"))),
                ];
                metrics::counter!(m::LEDGER_TRANSFERS, &labels).increment(1);
                metrics::counter!(m::LEDGER_CENTS, &labels)
                    .increment(u64::try_from(item.transfer.amount).unwrap_or(0));
            }
        }
        Err(e) if e.status().is_client_error() => {
            metrics::counter!(m::LEDGER_REFUSALS, "code" => e.code().to_owned()).increment(1);
            if e.code() == "limit_reached" {
                let kind = e.context().and_then(|c| c.get("kind")).and_then(|k| k.as_str());
                metrics::counter!(m::LIMITS_REACHED, "kind" => limit_label(kind)).increment(1);
            }
        }
        Err(_) => {}
    }
}

/// A transfer's game as a label: a game the journal knows (every instant game as `instant`, their
/// numbers being many), `none` without one, `other` for a name no game has (the metadata is the
/// caller's to write; a label must not take any value it sends).
fn game_label(game: Option<&str>) -> &'static str {
    match game.map(ledger_api::Game::named) {
        None => "none",
        Some(None) => "other",
        Some(Some(game)) => game.label(),
    }
}

/// Where a transfer's ticket was sold, as a label: `online`, `retail`, or `none`.
fn channel_label(channel: Option<&str>) -> &'static str {
    match channel {
        Some("online") => "online",
        Some("retail") => "retail",
        Some(_) => "other",
        None => "none",
    }
}

/// A money limit's kind as a label (the kinds `money_limits` allows), `other` for any else.
fn limit_label(kind: Option<&str>) -> &'static str {
    const KINDS: [&str; 3] = ["loss", "wager", "single_stake"];
    kind.and_then(|name| KINDS.iter().find(|k| **k == name).copied()).unwrap_or("other")
}

/// A transfer's kind of money as a label, as [`game_label`] bounds games.
fn money_label(money: Option<&str>) -> &'static str {
    const KINDS: [&str; 9] =
        ["stake", "prize", "settlement", "refund", "pot_seed", "prize_fund", "pack_settlement", "payment", "adjustment"];
    match money {
        None => "none",
        Some(name) => KINDS.iter().find(|k| **k == name).copied().unwrap_or("other"),
    }
}

#[cfg(test)]
mod tests {
    /// The kinds of money the labels know are the journal's own.
    #[test]
    fn every_kind_of_money_has_its_label() {
        use ledger_api::Money;
        for money in [
            Money::Stake,
            Money::Prize,
            Money::Settlement,
            Money::Refund,
            Money::PotSeed,
            Money::PrizeFund,
            Money::PackSettlement,
            Money::Payment,
            Money::Adjustment,
        ] {
            let name = serde_json::to_value(money).unwrap_or_default();
            assert_eq!(super::money_label(name.as_str()), name.as_str().unwrap_or_default());
        }
    }
}
