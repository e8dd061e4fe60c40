//! A round's steps (architecture §4), each on typed values, none holding a row lock across a call to
//! the ledger (ADR 0004):
//!
//! 1. [`place_bets`]: recorded `open` with its bets (one round in play per table);
//! 2. [`drive_deal`]: the wagers in one ledger batch (into escrow; of each progressive wager 24%
//!    into the pot and the rest to the house, K.A.R. 111-301-5(j)(3), (6)); refused →
//!    `refused`, nothing moved; then dealt from the table's shoe (shuffled first when past its
//!    cut card), the round (`playing`, or `settling` when the deal ends it) and the shoe written
//!    in one statement on the condition that the round is still `open` (one statement for the
//!    deals of many tables, written through [`super::repository`]);
//! 3. [`decide`]: each decision names the `step` it acts on and is applied to the round and shoe
//!    as read: a rule error changes nothing, a stale step is refused. A decision that adds no
//!    wager is written with the shoe in one statement (many rounds' decisions to one) on the
//!    condition that the round is still at that step with nothing pending. One that adds a
//!    wager (double, split, insurance) is first recorded as the round's pending decision on that
//!    condition, so it holds the step; the wager is then taken from the wallet (key
//!    `<round>/step/<n>`), and the decision written on the condition that it is still the one
//!    pending. Of two concurrent decisions exactly one is written; a refused wager clears the
//!    claim with nothing moved; a ledger that does not answer leaves it for the same decision
//!    sent again, or the recovery pass, to finish. No lock is held between statements: the
//!    round in play is the only one dealing from its table's shoe, and every write of the shoe
//!    is conditioned on that round's state and step (see `store::load_round_and_shoe`);
//! 4. [`super::settlement::settle_stored`]: a `settling` round is paid in one ledger batch and
//!    marked `settled` with its audit record.
//!
//! Every ledger step has a key derived from the round, and the shoe is saved only with the round
//! it dealt, so a step retried after a crash replays in the ledger, and a decision retried deals
//! the same cards.

use axum::http::StatusCode;
use chrono::{SubsecRound, Utc};
use domain::blackjack::round::{Action, Phase, PlayError, Round, SpotBet, TableRules};
use domain::cards::{Decks, Shoe};
use ledger_api::LedgerError;
use platform::AppError;
use platform::codes;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde_json::{Value, json};
use uuid::Uuid;

use super::settlement::{Stakes, ledger_batch, settle_stored, step_id, void_round};
use super::store::{self, NewRound, PendingDecision, ReadShoe, RoundState, StoredRound};
use super::views::OpenTable;
use crate::{TABLES_NAMESPACE, TablesState};

/// A rule the round's engine refused, as a problem with its stable code.
pub fn play_error(e: &PlayError) -> AppError {
    let (status, code) = match e {
        PlayError::WagerOutOfRange { .. } => (StatusCode::UNPROCESSABLE_ENTITY, codes::WAGER_OUT_OF_RANGE),
        PlayError::RoyalMatchNeedsSixDecks => {
            (StatusCode::UNPROCESSABLE_ENTITY, codes::ROYAL_MATCH_NEEDS_SIX_DECKS)
        }
        PlayError::BlazingSevensNeedSixDecks => {
            (StatusCode::UNPROCESSABLE_ENTITY, codes::BLAZING_SEVENS_NEED_SIX_DECKS)
        }
        PlayError::NoSpots => (StatusCode::UNPROCESSABLE_ENTITY, codes::NO_SPOTS),
        PlayError::TooManySpots { .. } => (StatusCode::UNPROCESSABLE_ENTITY, codes::TOO_MANY_SPOTS),
        PlayError::OutOfTurn(_) => (StatusCode::CONFLICT, codes::OUT_OF_TURN),
        PlayError::NoSuchSpot => (StatusCode::UNPROCESSABLE_ENTITY, codes::NO_SUCH_SPOT),
        PlayError::NotAllowed(_) => (StatusCode::UNPROCESSABLE_ENTITY, codes::ACTION_NOT_ALLOWED),
        PlayError::Shoe(e) => return AppError::internal(e),
    };
    AppError::new(status, code, e.to_string())
}

/// A cut card's place the rules allow (K.A.R. 111-301-6(a)), at random.
pub fn random_cut(decks: Decks, rng: &mut impl Rng) -> usize {
    let min = decks.min_cards_beside_cut();
    rng.random_range(min..=decks.count().saturating_mul(52).saturating_sub(min))
}

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
/// ([`drive_deal`]); a replay of the key finishes and answers the same round, and a table whose
/// round is still in play answers that round. Returns the round and which it is.
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
        return Ok((deal_round(state, recorded, rules, shoe).await?, Placed::Dealt));
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
    Ok((deal_round(state, existing, rules, None).await?, Placed::Replayed))
}

/// Step 2: takes an `open` round's wagers and deals it; safe to run again at any point.
pub async fn drive_deal(state: &TablesState, id: Uuid) -> Result<StoredRound, AppError> {
    let stored = reload(state, id).await?;
    if stored.state != RoundState::Open {
        return Ok(stored);
    }
    let rules = state.blackjack.repository.table_rules(stored.table_id, None).await?;
    match deal_round(state, stored, rules, None).await {
        // The ledger refused the wagers: the round is finished, `refused`.
        Err(e) if ledger_api::is_refusal(&e) => reload(state, id).await,
        dealt => dealt,
    }
}

/// Step 2 on the round as read, at a table with `rules`, dealing from `shoe` if this process
/// knows the table's shoe (as it last wrote it).
async fn deal_round(
    state: &TablesState,
    stored: StoredRound,
    rules: TableRules,
    shoe: Option<ReadShoe>,
) -> Result<StoredRound, AppError> {
    if stored.state != RoundState::Open {
        return Ok(stored);
    }
    let id = stored.id;
    let bets = stored.spot_bets()?;
    let stakes = Stakes::of(&rules, &bets, Round::stake_at_deal(&rules, &bets));
    let transfers = [
        (step_id(id, "stake/escrow"), stored.wallet, state.blackjack.escrow_account, stakes.escrowed),
        (step_id(id, "stake/pot"), stored.wallet, state.blackjack.pot_account, stakes.to_pot),
        (step_id(id, "stake/house"), stored.wallet, state.blackjack.house_account, stakes.to_house),
    ];
    // 111-301-5(j)(6): prizes are paid on the meter at the time they are won (this deal): the
    // pot as the wagers leave it, read back with the wallet.
    let at_deal =
        match ledger_batch(state, id, &transfers, &[stored.wallet, state.blackjack.pot_account]).await {
            Ok(balances) => match balances[..] {
                [wallet, pot] => store::AtDeal { pot, balance_before: wallet.saturating_add(stakes.total()) },
                _ => return Err(AppError::internal("the ledger answered other balances")),
            },
            // Refused: the round ends `refused`, and this answer carries the ledger's problem as it
            // came (a limit's amount left and when it resets); a replay answers the stored code.
            Err(LedgerError::Refused(e)) => {
                state.blackjack.repository.refuse(id, e.code()).await?;
                return Err(e);
            }
            Err(e) => return Err(e.into()),
        };
    let dealt = deal_cards(state, &stored, &rules, &bets, at_deal, shoe).await?;
    // (A round the deal leaves in play has nothing to settle.)
    settle_stored(state, dealt).await
}

/// The cards, from the table's shoe: the round `playing`, or `settling` when the deal ends it,
/// written with the shoe in one statement if the round is still `open` and the shoe unchanged
/// since it was read (see [`store::DEALT`]; no lock is needed); a shoe with no card for
/// it voids the round. The shoe is the one read as the round was recorded, if given, else read
/// now, and read again if it changed. A shoe past its cut card is shuffled before it deals; any
/// other has its discards shuffled into the reserve it deals from if it runs out mid-round. The
/// shuffle and the deal are written together: a deal retried after a crash before the write
/// deals from a shoe nobody has seen. Answers the round as it then stands.
async fn deal_cards(
    state: &TablesState,
    stored: &StoredRound,
    rules: &TableRules,
    bets: &[SpotBet],
    at_deal: store::AtDeal,
    mut read: Option<ReadShoe>,
) -> Result<StoredRound, AppError> {
    for _ in 0..3 {
        let read_shoe = match read.take() {
            Some(read_shoe) => read_shoe,
            None => {
                let (current, read_shoe) = state
                    .blackjack
                    .repository
                    .load_with_shoe(stored.id)
                    .await?
                    .ok_or_else(|| AppError::internal("round vanished"))?;
                if current.state != RoundState::Open {
                    return Ok(current);
                }
                read_shoe
            }
        };
        let mut shoe = read_shoe.shoe;
        let mut rng = ChaCha20Rng::from_os_rng();
        let shuffled = shoe.cut_card_reached();
        if shuffled {
            let cut = random_cut(rules.decks, &mut rng);
            shoe = Shoe::shuffled(rules.decks, cut, &mut rng).map_err(AppError::internal)?;
        } else {
            shoe.reserve_discards(&mut rng);
        }
        let prepared = shoe.clone();
        match Round::deal(*rules, bets.to_vec(), &mut shoe) {
            Ok(round) => {
                let staked: i64 = round.spots.iter().map(|s| s.staked(rules)).sum();
                let dealt = store::Dealt {
                    id: stored.id,
                    round,
                    at_deal,
                    staked,
                    shoe,
                    shuffled,
                    read_version: read_shoe.version,
                };
                // (Not written: dealt by another call, or the shoe changed: read both again.)
                if let Some(written) = state.blackjack.repository.deal(stored, dealt).await? {
                    return Ok(written);
                }
            }
            Err(PlayError::Shoe(_)) => {
                void_at_deal(state, stored, rules, bets, &prepared, shuffled).await?;
                return reload(state, stored.id).await;
            }
            Err(e) => return Err(play_error(&e)),
        }
    }
    Err(AppError::unavailable("the table's shoe kept changing while dealing: send the round again"))
}

/// A round the shoe cannot deal is voided under its table's and its own locks (so rare a path
/// keeps the simplest form), the shoe saved as prepared for it.
async fn void_at_deal(
    state: &TablesState,
    stored: &StoredRound,
    rules: &TableRules,
    bets: &[SpotBet],
    prepared: &Shoe,
    shuffled: bool,
) -> Result<(), AppError> {
    let voiding = state.blackjack.repository.voiding(stored.id, Some(stored.table_id)).await?;
    let mut voiding = voiding.ok_or_else(|| AppError::internal("round vanished"))?;
    if voiding.round.state == RoundState::Open {
        voiding.save_shoe(prepared, shuffled).await?;
        void_round(state, voiding, rules, bets, None).await?;
    }
    Ok(())
}

/// What the house decides for a round its player abandoned: insurance declined, hands stood.
fn house_decision(round: &Round) -> Action {
    match round.phase {
        Phase::Insurance => {
            let spot = round.spots.iter().position(|s| s.insurance.is_none()).unwrap_or(0);
            Action::DeclineInsurance { spot }
        }
        _ => Action::Stand,
    }
}

/// Step 3: one decision, the player's on the step they name, or the house's for an abandoned
/// round (`decision` None); then the settlement if it ended the round. The round and its shoe
/// are read together and the decision written on the condition that the round is still at the
/// step read (no lock held): of concurrent decisions exactly one is written; the others read
/// again and are told the step moved on.
pub async fn decide(
    state: &TablesState,
    id: Uuid,
    player: Option<&str>,
    decision: Option<(i32, Action)>,
) -> Result<StoredRound, AppError> {
    for attempt in 0..3 {
        // The first attempt may work on the round as this process last wrote it; a retry reads.
        // (Never the house's: its decision is for a round nobody has touched for a long time.)
        let remembered = if attempt == 0 && decision.is_some() {
            state.blackjack.repository.remembered_round(id)?
        } else {
            None
        };
        match decide_once(state, id, player, decision, remembered).await? {
            Some(round) => return Ok(round),
            // The house decides for nobody waiting: whoever overtook it acted on the round.
            None if decision.is_none() => return reload(state, id).await,
            None => {}
        }
    }
    Err(AppError::conflict(codes::STALE_STEP, "the round moved on while deciding: read it and decide again"))
}

/// One attempt at a decision: the round as the decision (or whoever was first) left it, or
/// None when another decision changed the round between the read and the write (read again).
async fn decide_once(
    state: &TablesState,
    id: Uuid,
    player: Option<&str>,
    decision: Option<(i32, Action)>,
    remembered: Option<(StoredRound, ReadShoe)>,
) -> Result<Option<StoredRound>, AppError> {
    let not_found = || AppError::not_found(codes::ROUND_NOT_FOUND, format!("round {id} does not exist"));
    // A refusal is only ever made on the round as read: one worked out on a remembered round
    // (perhaps behind the database) reads it again instead (None).
    let from_memory = remembered.is_some();
    let read = match remembered {
        Some(known) => Some(known),
        None => state.blackjack.repository.load_with_shoe(id).await?,
    };
    let (stored, read) =
        read.filter(|(r, _)| player.is_none_or(|p| r.player_id == p)).ok_or_else(not_found)?;
    let version = read.version;
    if stored.state == RoundState::Settling {
        // The decision that ended it was applied; its settlement is finished for whoever asks.
        return Ok(Some(settle_stored(state, stored).await?));
    }
    if stored.state != RoundState::Playing {
        return Err(AppError::conflict(codes::ROUND_NOT_IN_PLAY, "this round is not waiting for a decision"));
    }
    if let Some(pending) = stored.pending.clone() {
        return resume_pending(state, stored, pending, decision.as_ref(), version).await;
    }
    let round = stored.round.clone().ok_or_else(|| AppError::internal("a round in play without cards"))?;
    let action = match decision {
        Some((named, _)) if named != stored.step && from_memory => return Ok(None),
        Some((named, _)) if named != stored.step => return Err(stale(stored.step)),
        Some((_, action)) => action,
        None => house_decision(&round),
    };
    let (mut next, mut shoe) = (round.clone(), read.shoe);
    match next.act(action, &mut shoe) {
        Ok(()) => {}
        Err(_) if from_memory => return Ok(None),
        Err(PlayError::Shoe(_)) => return void_in_play(state, &stored, &round).await,
        Err(e) => return Err(play_error(&e)),
    }
    let before: i64 = round.spots.iter().map(|s| s.staked(&round.rules)).sum();
    let after: i64 = next.spots.iter().map(|s| s.staked(&next.rules)).sum();
    let by = if decision.is_some() { "player" } else { "house (round abandoned)" };
    let pending = PendingDecision {
        step: stored.step,
        record: json!({"step": stored.step, "decision": action, "by": by}),
        next,
        shoe,
        added_cents: after.saturating_sub(before),
    };
    if pending.added_cents > 0 {
        // It adds a wager: recorded first (claiming the step), then the wager, then applied.
        if !state.blackjack.repository.set_pending(id, &pending).await? {
            return Ok(None);
        }
        return finish_pending(state, stored, pending, version).await;
    }
    match write(state, &stored, &pending, false, version).await? {
        Some(written) => Ok(Some(settle_stored(state, written).await?)),
        None => Ok(None),
    }
}

/// A decision waiting for its wager: the same one sent again (or the house's) finishes it;
/// another decision on its step is told what waits.
async fn resume_pending(
    state: &TablesState,
    stored: StoredRound,
    pending: PendingDecision,
    decision: Option<&(i32, Action)>,
    version: i64,
) -> Result<Option<StoredRound>, AppError> {
    if decision.is_some_and(|(step, _)| *step != pending.step) {
        return Err(stale(pending.step));
    }
    if let Some((_, action)) = decision
        && Some(&store::json_of(action)?) != pending.record.get("decision")
    {
        return Err(AppError::conflict(
            codes::DECISION_PENDING,
            "another decision on this step waits for its wager to be taken: send it again to finish it",
        )
        .with_context(json!({"step": pending.step, "pending": pending.record["decision"]})));
    }
    finish_pending(state, stored, pending, version).await
}

fn stale(step: i32) -> AppError {
    AppError::conflict(codes::STALE_STEP, format!("the round is at step {step}; read it and decide again"))
        .with_context(json!({"step": step}))
}

/// A round the shoe cannot finish is voided under its row lock if it is still at the step read
/// (so rare a path keeps the simplest form).
async fn void_in_play(
    state: &TablesState,
    stored: &StoredRound,
    round: &Round,
) -> Result<Option<StoredRound>, AppError> {
    let voiding = state.blackjack.repository.voiding(stored.id, None).await?;
    let voiding = voiding.ok_or_else(|| AppError::internal("round vanished"))?;
    let current = &voiding.round;
    if current.state != RoundState::Playing || current.step != stored.step || current.pending.is_some() {
        return Ok(None);
    }
    let bets = stored.spot_bets()?;
    void_round(state, voiding, &round.rules, &bets, Some(round)).await?;
    Ok(Some(reload(state, stored.id).await?))
}

/// Writes a decision (see [`store::DECIDED`], group-committed): the round moved on one step, the
/// decision recorded, and the table's shoe; None when the round was no longer where it was read.
/// `version`: the count of the shoe's writes it was worked out on.
async fn write(
    state: &TablesState,
    stored: &StoredRound,
    pending: &PendingDecision,
    was_pending: bool,
    version: i64,
) -> Result<Option<StoredRound>, AppError> {
    let mut actions: Vec<Value> = store::from_json(stored.actions.clone())?;
    actions.push(pending.record.clone());
    let decision = store::Decision {
        id: stored.id,
        pending: pending.clone(),
        actions: Value::Array(actions),
        was_pending,
        read_version: version,
    };
    // None: not as remembered (or read); whatever moved it on, the next decision reads it.
    state.blackjack.repository.decide(stored, decision).await
}

/// A pending decision finished: its wager taken, then applied and, if it ended the round,
/// settled.
async fn finish_pending(
    state: &TablesState,
    stored: StoredRound,
    pending: PendingDecision,
    version: i64,
) -> Result<Option<StoredRound>, AppError> {
    let written = take_pending_wager(state, &stored, &pending, version).await?;
    Ok(Some(settle_stored(state, written).await?))
}

/// Takes a pending decision's wager (no lock held), then applies the decision if it is still the
/// round's pending one; a refused wager clears it with nothing moved. Answers the round as it
/// then stands.
async fn take_pending_wager(
    state: &TablesState,
    stored: &StoredRound,
    pending: &PendingDecision,
    version: i64,
) -> Result<StoredRound, AppError> {
    let id = stored.id;
    let added = [(
        step_id(id, &format!("step/{}", pending.step)),
        stored.wallet,
        state.blackjack.escrow_account,
        pending.added_cents,
    )];
    match ledger_batch(state, id, &added, &[]).await {
        Ok(_) => {}
        Err(LedgerError::Refused(e)) => {
            state.blackjack.repository.clear_pending(id, pending.step).await?;
            return Err(e);
        }
        Err(e) => return Err(e.into()),
    }
    match write(state, stored, pending, true, version).await? {
        Some(written) => Ok(written),
        // Applied by another call (the same decision sent again, the recovery pass).
        None => reload(state, id).await,
    }
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
    let finished =
        platform::recovery::finish_each(in_play, "blackjack round in play", |id| finish_in_play(state, id))
            .await;
    Ok(dealt.saturating_add(finished))
}

/// A pending decision taken and applied, and a settling round paid.
async fn finish_in_play(state: &TablesState, id: Uuid) -> Result<(), AppError> {
    let read = state.blackjack.repository.load_with_shoe(id).await?;
    let (mut stored, shoe) = read.ok_or_else(|| AppError::internal("a stuck round vanished"))?;
    if let Some(pending) = stored.pending.clone() {
        // (The pending decision holds the round's step: nothing writes the shoe until it is applied.)
        stored = take_pending_wager(state, &stored, &pending, shoe.version).await?;
    }
    settle_stored(state, stored).await?;
    Ok(())
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
