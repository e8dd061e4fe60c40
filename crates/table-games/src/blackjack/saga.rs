//! A round's steps (architecture §4), each one step of the kit's round driver
//! ([`crate::kit::round`]) planned by a pure function of [`super::steps`]; none holds a row lock
//! across a call to the ledger (ADR 0004):
//!
//! 1. [`place_bets`]: recorded `open` with its bets (one round in play per table);
//! 2. [`drive_deal`]: the wagers in one ledger batch, then the cards from the table's shoe,
//!    written with the shoe on the condition that the round is still `open` and the shoe as
//!    read ([`steps::deal`]); refused wagers leave the round `refused`, nothing moved;
//! 3. [`decide`]: each decision names the `step` it acts on ([`steps::decide`]): one that adds
//!    no wager is written with the shoe; one that adds a wager (double, split, insurance) is
//!    first written as the round's pending decision, holding its step, then its wager taken and
//!    the decision applied ([`steps::take_pending_wager`]); a refused wager clears the claim; a
//!    ledger that does not answer leaves it for the same decision sent again, or the recovery
//!    pass, to finish. Of concurrent decisions exactly one is written: only the round in play
//!    deals from its table's shoe, and every write of the shoe is conditioned on that round's
//!    state and step;
//! 4. the settlement ([`steps::settle`]): a `settling` round paid in one ledger batch and
//!    marked `settled` with its audit record.
//!
//! Every ledger step has a key derived from the round, and the shoe is saved only with the round
//! it dealt, so a step retried after a crash replays in the ledger, and a decision retried deals
//! the same cards. A shoe with no card left for a round (never, for a legal one) voids it.

use std::convert::Infallible;

use chrono::{SubsecRound, Utc};
use domain::blackjack::round::{Action, Round, SpotBet, TableRules};
use domain::cards::{Decks, Shoe};
use platform::AppError;
use platform::codes;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use uuid::Uuid;

use super::repository::Row;
use super::steps::{self, BlackjackPlan, Void, play_error, random_cut};
use super::store::{self, NewRound, RoundState, StoredRound};
use super::views::OpenTable;
use crate::kit::round::{Driven, Start, drive};
use crate::{TABLES_NAMESPACE, TablesState};

/// Opens a table for `player` as `request` asks (6 decks by default, the cut at random where
/// not named), its limits within the house's; answers its id, rules and first shoe.
pub async fn open_table(
    state: &TablesState,
    player: &str,
    request: &OpenTable,
) -> Result<(Uuid, TableRules, Shoe), AppError> {
    let decks = match request.decks.unwrap_or(6) {
        6 => Decks::Six,
        2 => Decks::Two,
        _ => return Err(AppError::unprocessable(codes::INVALID_DECKS, "a table deals from 6 decks or 2")),
    };
    let mut rng = ChaCha20Rng::from_os_rng();
    let cut = request.cut.unwrap_or_else(|| random_cut(decks, &mut rng));
    let shoe = Shoe::shuffled(decks, cut, &mut rng)
        .map_err(|e| AppError::unprocessable(codes::CUT_OUT_OF_RANGE, e.to_string()))?;
    let rules = state.blackjack.limits.table_rules(
        decks,
        request.min_wager_cents,
        request.max_wager_cents,
        request.max_spots,
    )?;
    let id = Uuid::now_v7();
    state.blackjack.repository.open_table(id, player, &rules, &shoe).await?;
    Ok((id, rules, shoe))
}

async fn reload(state: &TablesState, id: Uuid) -> Result<StoredRound, AppError> {
    state
        .blackjack
        .repository
        .load(id)
        .await?
        .ok_or_else(|| AppError::not_found(codes::ROUND_NOT_FOUND, format!("round {id} does not exist")))
}

/// What a deal request answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placed {
    /// A round dealt by this request.
    Dealt,
    /// The round this key dealt before.
    Replayed,
    /// The table's round still in play, answered instead of a new one (nothing staked): a player
    /// who lost the page finds the hand where it was.
    InPlay,
}

/// Step 1: a round of `bets` at `table` for `player` under idempotency key `key`, then dealt
/// and, if the deal ends it, settled; a replay of the key finishes and answers the same round,
/// and a table whose round is still in play answers that round. Returns the round and which it
/// is.
pub async fn place_bets(
    state: &TablesState,
    table: Uuid,
    player: &str,
    key: &str,
    bets: &[SpotBet],
) -> Result<(StoredRound, Placed), AppError> {
    let rules = state.blackjack.repository.table_rules(table, Some(player)).await?;
    Round::check_bets(&rules, bets).map_err(|e| play_error(&e))?;
    let id = Uuid::new_v5(&TABLES_NAMESPACE, format!("bj-round/{table}/{key}").as_bytes());
    let bets = store::json_of(&bets)?;
    let wallet = state.ledger.wallet_of(player).await?;
    let repository = &state.blackjack.repository;
    let created_at = Utc::now().trunc_subsecs(6);
    let round = NewRound { id, table, player: player.to_owned(), wallet, bets, created_at };
    if let Some((recorded, shoe)) = repository.record(&round).await? {
        // The table's shoe as this process last wrote it, if it did: a hint, read again if stale.
        let start = shoe.map_or(Start::Read, |shoe| Start::Hint((recorded, shoe)));
        return Ok((deal_and_settle(state, id, rules, start).await?.answer()?.0, Placed::Dealt));
    }
    // Not recorded: this key's round was, or the table has a round in play.
    let Some(existing) = repository.load(id).await? else {
        // The table's owner was checked with its rules: the round in play is this player's.
        return match repository.in_play_at(table).await? {
            Some(in_play) => Ok((in_play, Placed::InPlay)),
            None => {
                Err(AppError::conflict(codes::ROUND_IN_PLAY, "finish the round in play at this table first"))
            }
        };
    };
    if existing.bets != round.bets {
        return Err(AppError::conflict(
            codes::IDEMPOTENCY_CONFLICT,
            "this key dealt a round with other bets",
        ));
    }
    Ok((deal_and_settle(state, id, rules, Start::Read).await?.answer()?.0, Placed::Replayed))
}

/// Step 2: takes an `open` round's wagers and deals it; safe to run again at any point. A round
/// the ledger refused is answered as it stands, `refused`.
pub async fn drive_deal(state: &TablesState, id: Uuid) -> Result<StoredRound, AppError> {
    let stored = reload(state, id).await?;
    if stored.state != RoundState::Open {
        return Ok(stored);
    }
    let rules = state.blackjack.repository.table_rules(stored.table_id, None).await?;
    match deal_and_settle(state, id, rules, Start::Read).await? {
        Driven::Refused(_) => reload(state, id).await,
        dealt => Ok(dealt.answer()?.0),
    }
}

/// Steps 2 and 4: the deal, then the settlement if the deal ended the round.
async fn deal_and_settle(
    state: &TablesState,
    id: Uuid,
    rules: TableRules,
    start: Start<Row>,
) -> Result<Driven<Row, Infallible>, AppError> {
    let accounts = state.blackjack.accounts();
    let dealt = step(state, id, start, |row| {
        steps::deal(row, &rules, accounts, &mut ChaCha20Rng::from_os_rng())
    })
    .await?;
    settle(state, dealt).await
}

/// One step of round `id` through the driver; a round sent aside is voided and read again.
async fn step(
    state: &TablesState,
    id: Uuid,
    start: Start<Row>,
    plan: impl FnMut(&Row) -> Result<BlackjackPlan, AppError>,
) -> Result<Driven<Row, Infallible>, AppError> {
    let repository = &state.blackjack.repository;
    let gave_up = || AppError::conflict(codes::STALE_STEP, "the round moved on meanwhile: read it and send again");
    Ok(match drive(&state.kit, repository, &id, start, plan, gave_up).await? {
        Driven::Aside(void, (stored, _)) => {
            void_round(state, &stored, void).await?;
            Driven::Row(crate::kit::round::Rows::read(repository, &id).await?)
        }
        Driven::Row(row) => Driven::Row(row),
        Driven::Refused(problem) => Driven::Refused(problem),
    })
}

/// Step 4 after a step that answered `driven`: the settlement of a round it left `settling`.
async fn settle(state: &TablesState, driven: Driven<Row, Infallible>) -> Result<Driven<Row, Infallible>, AppError> {
    let accounts = state.blackjack.accounts();
    match driven {
        Driven::Row(row) => step(state, row.0.id, Start::Row(row), |row| steps::settle(row, accounts)).await,
        refused => Ok(refused),
    }
}

/// Step 3: one decision, the player's on the step they name, or the house's for an abandoned
/// round (`decision` None); its wager taken if it adds one; then the settlement if it ended the
/// round. The player's decision may be worked out on the round as this process last wrote it
/// (never the house's: its decision is for a round nobody has touched for a long time).
pub async fn decide(
    state: &TablesState,
    id: Uuid,
    player: Option<&str>,
    decision: Option<(i32, Action)>,
) -> Result<StoredRound, AppError> {
    let accounts = state.blackjack.accounts();
    let start = if decision.is_some() { Start::Remembered } else { Start::Read };
    let decided = step(state, id, start, |row| {
        if player.is_some_and(|p| row.0.player_id != p) {
            return Err(AppError::not_found(codes::ROUND_NOT_FOUND, format!("round {id} does not exist")));
        }
        steps::decide(row, decision)
    })
    .await?;
    let taken = match decided {
        Driven::Row(row) => step(state, id, Start::Row(row), |row| steps::take_pending_wager(row, accounts)).await?,
        other => other,
    };
    Ok(settle(state, taken).await?.answer()?.0)
}

/// A round the shoe cannot deal or finish is voided under its row lock (and its table's, at the
/// deal, so that the shoe prepared for it is saved), if it is still where it was read: every
/// wager it took goes back to the wallet from where its stake put it, and it is chained as
/// voided. A legal round never needs it (`domain::blackjack::max_spots_served` and the shoe's
/// reserve); it keeps a shoe stored before the reserve existed, or any defect that empties one,
/// from stranding stakes in escrow. (So rare a path keeps its ledger call inside the round's
/// transaction.)
async fn void_round(state: &TablesState, read: &StoredRound, void: Void) -> Result<(), AppError> {
    let at_deal = matches!(void, Void::AtDeal { .. });
    let repository = &state.blackjack.repository;
    let voiding = repository.voiding(read.id, at_deal.then_some(read.table_id)).await?;
    let mut voiding = voiding.ok_or_else(|| AppError::internal("round vanished"))?;
    let current = voiding.round.clone();
    let rules = repository.table_rules(read.table_id, None).await?;
    let round = match void {
        Void::AtDeal { prepared, shuffled } if current.state == RoundState::Open => {
            voiding.save_shoe(&prepared, shuffled).await?;
            None
        }
        Void::InPlay
            if current.state == RoundState::Playing && current.step == read.step && current.pending.is_none() =>
        {
            read.round.clone()
        }
        // Moved on since it was read: whoever moved it answers for it.
        _ => return Ok(()),
    };
    let (transfers, staked, record) = steps::void(&current, &rules, round.as_ref(), state.blackjack.accounts())?;
    let balances = state.kit.pay(transfers, vec![read.wallet]).await?;
    let after = balances.first().copied().ok_or_else(|| AppError::internal("the ledger answered no balance"))?;
    voiding.voided(staked, after, &record).await?;
    tracing::warn!(round = %read.id, "blackjack round voided: the shoe had no card left for it; every wager returned");
    Ok(())
}

/// Deals rounds left `open` (wagers perhaps taken, cards not dealt), and finishes pending
/// decisions and settlements, left for longer than `older_than`; returns how many. A round in
/// play with no decision pending waits for its player, whose retried decision repeats the same
/// step with the same cards.
pub async fn recover(state: &TablesState, older_than: std::time::Duration) -> Result<usize, AppError> {
    let repository = &state.blackjack.repository;
    let open = repository.stuck_open(older_than).await?;
    let dealt = platform::recovery::finish_each(open, "blackjack round", |id| drive_deal(state, id)).await;
    let in_play = repository.stuck_in_play(older_than).await?;
    let accounts = state.blackjack.accounts();
    let finished = platform::recovery::finish_each(in_play, "blackjack round in play", |id| async move {
        let taken = step(state, id, Start::Read, |row| steps::take_pending_wager(row, accounts)).await?;
        settle(state, taken).await?.answer().map(|_| ())
    })
    .await;
    Ok(dealt.saturating_add(finished))
}

/// Finishes rounds whose player has made no decision for `idle` (`LOTTO_BJ_ABANDONED_AFTER_SECONDS`,
/// a day by default): the house declines insurance and stands every hand, then settles, so no
/// wager waits in escrow for ever. Returns how many it finished.
pub async fn finish_abandoned(state: &TablesState, idle: std::time::Duration) -> Result<usize, AppError> {
    let abandoned = state.blackjack.repository.abandoned(idle).await?;
    let finished = platform::recovery::finish_each(abandoned, "abandoned blackjack round", |id| async move {
        // A round needs at most a decision per hand and per spot's insurance.
        for _ in 0..64 {
            let round = decide(state, id, None, None).await?;
            if round.state != RoundState::Playing {
                return Ok(round);
            }
        }
        Err(AppError::internal("an abandoned round did not finish"))
    })
    .await;
    Ok(finished)
}
