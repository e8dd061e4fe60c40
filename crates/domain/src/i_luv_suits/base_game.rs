//! The base game's exact value (ante and play against the dealer, 111-301-75(a)(1)-(2) and
//! 76(i)(1)): for a player's seven cards, how the dealer's seven from the other 45 cards end,
//! counted exactly, suit by suit; the best decision (fold, or play and how much) from those counts;
//! and the house edge of playing every hand that way, over every one of the C(52, 7) player hands.
//!
//! A flush is one number here, its [`FlushKey`]: between two flushes of one length, comparing
//! their rank sets as 13-bit numbers is 74(d)'s card-by-card comparison (the highest card where
//! they differ decides). So "the dealer's best flush is below the player's" is "every suit of the
//! dealer's is below the player's key", and the dealer hands below a key are counted by
//! multiplying, suit by suit, how many ways each suit can be below it ([`hands_below`]).
//!
//! Counting code, not money: its indices are bounded by construction (13-bit rank sets, hands of
//! at most seven cards) and its sums stay below 2^60 (C(52, 7) × C(45, 7) < 10^16), so it uses
//! plain arithmetic, indexing and casts between its integer widths for speed; `tests/i_luv_suits.rs` checks it against dealing
//! every hand.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap
)]

use super::Flush;
use crate::cards::Suit;

/// Ranks 2 to 8 as flush bits (bit 0 the 2 ... bit 12 the ace): a flush of only these does not
/// qualify the dealer (76(i)(1) asks for "a 9 or higher ranking card").
const BELOW_NINE: u16 = 0x7F;
const ALL_RANKS: u16 = 0x1FFF;
/// Every rank, as flush bits.
pub const ALL_RANKS_BITS: u16 = ALL_RANKS;
const RANKS: u32 = 13;

/// A flush as one ordered number: its length × 2^13 + its ranks as flush bits.
pub type FlushKey = u32;

/// The key of a flush of `ranks` (flush bits).
pub fn flush_key(ranks: u16) -> FlushKey {
    (ranks.count_ones() << RANKS) | u32::from(ranks)
}

/// A rank set with the ace as bit 0 (as [`super::longest_run`] takes it) turned into flush bits,
/// the ace high (74(a)).
pub fn flush_bits(ace_low_bits: u16) -> u16 {
    ((ace_low_bits >> 1) | ((ace_low_bits & 1) << 12)) & ALL_RANKS
}

/// The best flush of four suits' flush bits, as a key.
pub fn best_key(suits: &[u16; 4]) -> FlushKey {
    suits.iter().map(|&s| flush_key(s)).max().unwrap_or(0)
}

/// The [`Flush`] a key stands for (the suit is the caller's).
pub fn flush_of(key: FlushKey, suit: Suit) -> Flush {
    let bits = key & u32::from(ALL_RANKS);
    let ranks = (0..RANKS).rev().filter(|b| bits & (1 << b) != 0).map(|b| (b + 2) as u8).collect();
    Flush { suit, ranks }
}

/// How 76(i)(1)'s "at least a three card flush containing a 9 or higher ranking card" is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Qualifier {
    /// "At least" as a rank: the dealer's best hand ranks at or above a three-card 9-high flush
    /// (74(c), (d)), so every flush of four cards or more qualifies, and a three-card flush
    /// qualifies when its highest card is a 9 or higher. The reading of the game's published
    /// rules and of its usual analyses. Implemented.
    AtLeastNineHighThreeCardFlush,
    /// The dealer's best hand (the one 76(e) has the dealer determine) is a flush of three or more
    /// cards holding a 9 or higher: a four-card flush of low cards does not qualify.
    BestHand,
    /// Any suit of the dealer's holds three or more cards, one a 9 or higher, even when the best
    /// flush is another, longer suit's.
    AnyThreeCardFlush,
}

/// The lowest qualifying hand under [`Qualifier::AtLeastNineHighThreeCardFlush`]: the flush 9-3-2.
const NINE_THREE_TWO: FlushKey = (3 << RANKS) | 0x83;

impl Qualifier {
    /// Every reading, the implemented one first.
    pub const ALL: [Qualifier; 3] =
        [Qualifier::AtLeastNineHighThreeCardFlush, Qualifier::BestHand, Qualifier::AnyThreeCardFlush];

    /// The reading the tables play (and [`BASE_GAME_FIGURES_IMPLEMENTED`] counts).
    pub const IMPLEMENTED: Qualifier = Qualifier::AtLeastNineHighThreeCardFlush;

    /// Whether a dealer hand of four suits' flush bits qualifies under this reading.
    pub fn qualifies(self, dealer: &[u16; 4]) -> bool {
        let qualifying = |s: u16| s.count_ones() >= 3 && s & !BELOW_NINE != 0;
        match self {
            Qualifier::AtLeastNineHighThreeCardFlush => best_key(dealer) >= NINE_THREE_TWO,
            Qualifier::BestHand => {
                let best = best_key(dealer);
                best >> RANKS >= 3 && best & u32::from(!BELOW_NINE & ALL_RANKS) != 0
            }
            Qualifier::AnyThreeCardFlush => dealer.iter().any(|&s| qualifying(s)),
        }
    }

    /// The share of all C(52, 7) dealer hands that qualify under this reading (exact).
    pub fn share_of_dealer_hands_qualifying(self) -> crate::math::Fraction {
        let outcomes = dealer_outcomes(&[0; 4], 7, self);
        crate::math::Fraction::new(outcomes.total() - outcomes.not_qualifying, outcomes.total())
    }
}

/// How the dealer's hands end against one player hand, counted (they add up to C(45, n)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DealerOutcomes {
    /// The dealer does not qualify: the ante wins 1 to 1, the play wager is a tie.
    pub not_qualifying: u128,
    /// The dealer qualifies and the player's flush is higher: both wagers win 1 to 1.
    pub player_wins: u128,
    /// The dealer qualifies and the flushes are equal: both returned (74(d)).
    pub ties: u128,
    /// The dealer qualifies and has the higher flush: both lose.
    pub dealer_wins: u128,
}

impl DealerOutcomes {
    pub fn total(&self) -> u128 {
        self.not_qualifying + self.player_wins + self.ties + self.dealer_wins
    }

    /// The player's result from playing `play` times the ante, in antes, times [`Self::total`].
    pub fn play_value(&self, play: u32) -> i128 {
        let (nq, win, lose) =
            (self.not_qualifying as i128, self.player_wins as i128, self.dealer_wins as i128);
        nq + (1 + i128::from(play)) * (win - lose)
    }
}

/// Binomial coefficients up to 13, small enough to index.
const fn pascal() -> [[u64; 14]; 14] {
    let mut table = [[0u64; 14]; 14];
    let mut n = 0;
    while n < 14 {
        table[n][0] = 1;
        let mut k = 1;
        while k <= n {
            table[n][k] = table[n - 1][k - 1] + if k < n { table[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    table
}
const C: [[u64; 14]; 14] = pascal();

fn c(n: u32, k: u32) -> u64 {
    if k > n { 0 } else { C[n as usize][k as usize] }
}

/// How many `k`-card subsets of `available` (flush bits) rank below `bound` (a `k`-card set).
fn subsets_below(available: u16, k: u32, bound: u16) -> u64 {
    let mut count = 0;
    let mut need = k;
    for bit in (0..RANKS).rev() {
        if bound & (1 << bit) == 0 {
            // Taking this card would make the subset higher; leaving it out keeps them level.
            continue;
        }
        let below = (available & ((1u16 << bit) - 1)).count_ones();
        // Leave this card out: whatever is chosen below is lower.
        count += c(below, need);
        if available & (1 << bit) == 0 || need == 0 {
            return count;
        }
        need -= 1;
    }
    count
}

/// How many `n`-card dealer hands from `available` (four suits' flush bits) have every suit's
/// flush below `bound`; with `low_only`, also no suit of three or more cards holding a 9 or higher.
pub fn hands_below(available: &[u16; 4], n: u32, bound: FlushKey, low_only: bool) -> u128 {
    let bound_len = bound >> RANKS;
    let bound_bits = (bound & u32::from(ALL_RANKS)) as u16;
    let size = n as usize + 1;
    let mut product = [0u128; 8];
    product[0] = 1;
    for &suit in available {
        let mut ways = [0u64; 8];
        for (k, way) in ways.iter_mut().enumerate().take(size) {
            let k32 = k as u32;
            let from = if low_only && k32 >= 3 { suit & BELOW_NINE } else { suit };
            *way = match k32.cmp(&bound_len) {
                std::cmp::Ordering::Less => c(from.count_ones(), k32),
                std::cmp::Ordering::Equal => subsets_below(from, k32, bound_bits),
                std::cmp::Ordering::Greater => 0,
            };
        }
        let mut next = [0u128; 8];
        for (i, &p) in product.iter().enumerate().take(size) {
            if p == 0 {
                continue;
            }
            for (j, &w) in ways.iter().enumerate().take(size - i) {
                next[i + j] += p * u128::from(w);
            }
        }
        product = next;
    }
    product[n as usize]
}

/// How the dealer's `n` cards from the cards the player does not hold end against the player's
/// hand (`player`: four suits' flush bits), under one reading of the qualifier.
pub fn dealer_outcomes(player: &[u16; 4], n: u32, reading: Qualifier) -> DealerOutcomes {
    let available = player.map(|s| !s & ALL_RANKS);
    let held = 52 - player.iter().map(|s| s.count_ones()).sum::<u32>();
    let total = crate::math::choose(held, n);
    let below = |key: FlushKey| hands_below(&available, n, key, false);
    let ours = best_key(player);
    let (lower, up_to) = (below(ours), below(ours + 1));
    match reading {
        Qualifier::AtLeastNineHighThreeCardFlush => {
            // The hands that do not qualify are one interval of keys: every one below 9-3-2.
            let not_qualifying = below(NINE_THREE_TWO);
            let ours_qualifies = ours >= NINE_THREE_TWO;
            let player_wins = if ours_qualifies { lower - not_qualifying } else { 0 };
            let ties = if ours_qualifies { up_to - lower } else { 0 };
            DealerOutcomes {
                not_qualifying,
                player_wins,
                ties,
                dealer_wins: total - not_qualifying - player_wins - ties,
            }
        }
        Qualifier::BestHand => {
            // The best hands that do not qualify: two cards or fewer, or three to seven all
            // below a 9; in key order, one interval per length.
            let intervals = (3..=7u32).map(|len| {
                let start = if len == 3 { 0 } else { len << RANKS };
                (start, (len << RANKS) | 0x80)
            });
            let mut not_qualifying = 0;
            let mut not_qualifying_lower = 0;
            let mut ours_qualifies = true;
            for (start, end) in intervals {
                let (at_start, at_end) = (below(start), below(end));
                not_qualifying += at_end - at_start;
                // The part of the interval below the player's flush.
                let clip = |key: FlushKey, at: u128| if key <= ours { at } else { lower };
                not_qualifying_lower += clip(end, at_end) - clip(start, at_start);
                ours_qualifies &= !(start..end).contains(&ours);
            }
            let player_wins = lower - not_qualifying_lower;
            let ties = if ours_qualifies { up_to - lower } else { 0 };
            DealerOutcomes {
                not_qualifying,
                player_wins,
                ties,
                dealer_wins: total - not_qualifying - player_wins - ties,
            }
        }
        Qualifier::AnyThreeCardFlush => {
            let low = |key: FlushKey| hands_below(&available, n, key, true);
            let not_qualifying = low((n + 1) << RANKS);
            let (low_lower, low_up_to) = (low(ours), low(ours + 1));
            let player_wins = lower - low_lower;
            let ties = (up_to - lower) - (low_up_to - low_lower);
            DealerOutcomes {
                not_qualifying,
                player_wins,
                ties,
                dealer_wins: total - not_qualifying - player_wins - ties,
            }
        }
    }
}

/// What the player does after looking at the cards (75(a)(2)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "decision", content = "play_multiple")]
pub enum Decision {
    /// Forfeit the ante.
    Fold,
    /// Play this many times the ante (0 stands for "as little as the table takes", read below).
    Play(u32),
}

/// How little a play wager may be with five or more cards of a suit: 75(a)(2)(B) and (C) say
/// "any amount up to" two (three) times the ante.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum PlayFloor {
    /// At least the ante's amount, the one amount (A) allows below five cards: "up to" raises the
    /// ceiling, not lowers the floor. Implemented.
    Ante,
    /// Any amount at all, down to the table's minimum (counted here as nothing).
    AnyAmount,
}

/// The best decision for a hand whose flush has `flush_len` cards, and its value in antes times
/// `outcomes.total()`. The value is linear in the play wager, so the best play is the least or
/// the most allowed; a tie between folding and playing plays.
pub fn best_decision(outcomes: &DealerOutcomes, flush_len: u32, floor: PlayFloor) -> (Decision, i128) {
    let most = u32::from(super::max_play_multiple(flush_len as usize));
    let least = if most > 1 && floor == PlayFloor::AnyAmount { 0 } else { 1 };
    let fold = (Decision::Fold, -(outcomes.total() as i128));
    [least, most]
        .into_iter()
        .map(|play| (Decision::Play(play), outcomes.play_value(play)))
        .fold(fold, |best, option| if option.1 >= best.1 { option } else { best })
}

/// Calls `visit` once for every player hand up to the order of its suits (four suits' flush bits,
/// the longest suit first), with how many of the C(52, 7) hands it stands for. `shard` of
/// `shards` splits the work for threads.
pub fn each_player_hand(shard: usize, shards: usize, mut visit: impl FnMut(&[u16; 4], u64)) {
    let by_size: Vec<Vec<u16>> =
        (0..=7).map(|k| (0..=ALL_RANKS).filter(|s| s.count_ones() == k).collect()).collect();
    // The suits' sizes, longest first; within one size the sets in falling order, so that each
    // hand is met once.
    for a in (2..=7usize).rev() {
        for b in (0..=a.min(7 - a)).rev() {
            for cc in (0..=b.min(7 - a - b)).rev() {
                let d = 7 - a - b - cc;
                if d > cc {
                    continue;
                }
                for (i, &s0) in by_size[a].iter().enumerate() {
                    if i % shards != shard {
                        continue;
                    }
                    for &s1 in by_size[b].iter().filter(|&&s| a != b || s <= s0) {
                        for &s2 in by_size[cc].iter().filter(|&&s| b != cc || s <= s1) {
                            for &s3 in by_size[d].iter().filter(|&&s| cc != d || s <= s2) {
                                let hand = [s0, s1, s2, s3];
                                visit(&hand, orderings(&hand));
                            }
                        }
                    }
                }
            }
        }
    }
}

/// How many suit assignments give the same hand: 4! over the repeats of equal suits.
fn orderings(hand: &[u16; 4]) -> u64 {
    let mut repeats = 1;
    let mut run = 1;
    for pair in hand.windows(2) {
        if pair[0] == pair[1] {
            run += 1;
            repeats *= run;
        } else {
            run = 1;
        }
    }
    24 / repeats
}

/// The base game played by [`best_decision`] over a set of player hands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BaseGameTally {
    /// Player hands counted (C(52, 7) for them all).
    pub hands: u128,
    /// Dealer hands per player hand (C(45, 7)).
    pub dealer_hands: u128,
    /// The player's result in antes, times `dealer_hands`, summed over the hands.
    pub value: i128,
    /// The play wagers made, in antes, summed over the hands.
    pub play_wagered: u128,
    /// How many hands take each decision, by the flush's length.
    pub decisions: std::collections::BTreeMap<(u32, Decision), u128>,
    /// For each flush length, the lowest flush played and the highest folded.
    pub lowest_played: std::collections::BTreeMap<u32, FlushKey>,
    pub highest_folded: std::collections::BTreeMap<u32, FlushKey>,
    /// For the three-card flushes, by their ranks: the player's result summed over those hands
    /// when all play, when all fold, and when each decides best (as `value`).
    pub three_card: std::collections::BTreeMap<u16, [i128; 3]>,
}

impl BaseGameTally {
    /// Adds `weight` hands that decide `decision` worth `value`.
    pub fn add(
        &mut self,
        ours: FlushKey,
        outcomes: &DealerOutcomes,
        decision: Decision,
        value: i128,
        weight: u64,
    ) {
        let len = ours >> RANKS;
        let weight = u128::from(weight);
        self.hands += weight;
        self.dealer_hands = outcomes.total();
        self.value += value * weight as i128;
        *self.decisions.entry((len, decision)).or_insert(0) += weight;
        if len == 3 {
            let sums = self.three_card.entry((ours & u32::from(ALL_RANKS)) as u16).or_insert([0; 3]);
            let w = weight as i128;
            sums[0] += outcomes.play_value(1) * w;
            sums[1] -= outcomes.total() as i128 * w;
            sums[2] += value * w;
        }
        match decision {
            Decision::Fold => {
                let high = self.highest_folded.entry(len).or_insert(ours);
                *high = (*high).max(ours);
            }
            Decision::Play(play) => {
                self.play_wagered += u128::from(play) * weight;
                let low = self.lowest_played.entry(len).or_insert(ours);
                *low = (*low).min(ours);
            }
        }
    }

    /// Adds another tally's hands (another thread's share).
    pub fn merge(&mut self, other: &BaseGameTally) {
        self.hands += other.hands;
        self.dealer_hands = self.dealer_hands.max(other.dealer_hands);
        self.value += other.value;
        self.play_wagered += other.play_wagered;
        for (&k, &n) in &other.decisions {
            *self.decisions.entry(k).or_insert(0) += n;
        }
        for (&ranks, sums) in &other.three_card {
            let ours = self.three_card.entry(ranks).or_insert([0; 3]);
            for (a, b) in ours.iter_mut().zip(sums) {
                *a += b;
            }
        }
        for (&len, &key) in &other.lowest_played {
            let low = self.lowest_played.entry(len).or_insert(key);
            *low = (*low).min(key);
        }
        for (&len, &key) in &other.highest_folded {
            let high = self.highest_folded.entry(len).or_insert(key);
            *high = (*high).max(key);
        }
    }
}

impl BaseGameTally {
    /// The best strategy that plays a three-card flush when its ranks are at least some set
    /// (74(d)'s order) whatever the other four cards: that set, and the player's result
    /// (as `value`).
    pub fn best_three_card_threshold(&self) -> (u16, i128) {
        let optimal: i128 = self.three_card.values().map(|s| s[2]).sum();
        let rest = self.value - optimal;
        let all_fold: i128 = self.three_card.values().map(|s| s[1]).sum();
        // Walk the thresholds upwards from "play every three-card flush".
        let mut result = rest + self.three_card.values().map(|s| s[0]).sum::<i128>();
        let mut best = (0u16, result);
        for (&ranks, sums) in &self.three_card {
            if result > best.1 {
                best = (ranks, result);
            }
            result += sums[1] - sums[0];
        }
        if result > best.1 {
            best = (ALL_RANKS, rest + all_fold);
        }
        best
    }
}

/// The six tallies (three readings of the qualifier, two of the play's floor) over one shard of
/// the player hands, in [`Qualifier::ALL`] × [`PlayFloor::Ante`, `PlayFloor::AnyAmount`] order.
pub fn tally_shard(shard: usize, shards: usize) -> [BaseGameTally; 6] {
    let mut tallies: [BaseGameTally; 6] = Default::default();
    each_player_hand(shard, shards, |hand, weight| {
        let ours = best_key(hand);
        for (r, reading) in Qualifier::ALL.into_iter().enumerate() {
            let outcomes = dealer_outcomes(hand, 7, reading);
            for (f, floor) in [PlayFloor::Ante, PlayFloor::AnyAmount].into_iter().enumerate() {
                let (decision, value) = best_decision(&outcomes, ours >> RANKS, floor);
                tallies[r * 2 + f].add(ours, &outcomes, decision, value, weight);
            }
        }
    });
    tallies
}

/// The base game's figures under one reading, as counted by the `i_luv_suits_base_game` example
/// (the whole count takes about 13 seconds with two threads in a release build, so it is
/// generated into [`super::base_game_value`] rather than counted at start-up).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BaseGameFigures {
    pub qualifier: Qualifier,
    pub play_floor: PlayFloor,
    /// C(52, 7) and C(45, 7).
    pub hands: u128,
    pub dealer_hands: u128,
    /// The player's result in antes over every (player hand, dealer hand), best decisions taken.
    pub player_result: i128,
    /// The play wagers made over every player hand, in antes.
    pub play_wagered: u128,
    /// How many player hands take each decision, by flush length.
    pub decisions: &'static [(u32, Decision, u128)],
    /// Three-card flushes at or below this (flush bits) always fold; at or above the other always
    /// play; between them the other four cards decide.
    pub three_card_always_folds_to: u16,
    pub three_card_always_plays_from: u16,
    /// The best "play three-card flushes from this up" rule and its player result.
    pub simple_threshold: u16,
    pub simple_player_result: i128,
}

impl BaseGameFigures {
    /// The house edge per ante, an exact fraction (the player's loss over every deal).
    pub fn edge_per_ante(&self) -> crate::math::Fraction {
        let loss = u128::try_from(-self.player_result).unwrap_or(0);
        crate::math::Fraction::new(loss, self.hands * self.dealer_hands)
    }

    /// The house edge per unit wagered (ante and play together).
    pub fn edge_per_wager(&self) -> crate::math::Fraction {
        let loss = u128::try_from(-self.player_result).unwrap_or(0);
        crate::math::Fraction::new(loss, (self.hands + self.play_wagered) * self.dealer_hands)
    }

    /// The house edge per ante of the simple threshold rule.
    pub fn simple_edge_per_ante(&self) -> crate::math::Fraction {
        let loss = u128::try_from(-self.simple_player_result).unwrap_or(0);
        crate::math::Fraction::new(loss, self.hands * self.dealer_hands)
    }
}

/// A set of flush bits written as its cards, highest first ("T98").
pub fn ranks_text(bits: u16) -> String {
    (0..RANKS)
        .rev()
        .filter(|b| bits & (1 << b) != 0)
        .filter_map(|b| "23456789TJQKA".chars().nth(b as usize))
        .collect()
}

/// Which of [`super::base_game_value::BASE_GAME_FIGURES`] the tables play: the dealer qualifies
/// with a three-card 9-high flush or better ([`Qualifier::IMPLEMENTED`]), the play from the ante
/// up ([`PlayFloor::Ante`]).
pub const BASE_GAME_FIGURES_IMPLEMENTED: usize = 0;
