//! Playing cards and the blackjack shoe: decks, the shuffle, and the cut card (K.A.R. 111-301-6(a)).

use std::fmt;

use rand::Rng;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The four suits; all equal in rank. Diamonds and hearts are red.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suit {
    Clubs,
    Diamonds,
    Hearts,
    Spades,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    pub fn is_red(self) -> bool {
        matches!(self, Suit::Diamonds | Suit::Hearts)
    }

    fn letter(self) -> char {
        match self {
            Suit::Clubs => 'C',
            Suit::Diamonds => 'D',
            Suit::Hearts => 'H',
            Suit::Spades => 'S',
        }
    }
}

/// A card's rank, 1 (ace) to 13 (king).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rank(u8);

impl Rank {
    pub const ACE: Rank = Rank(1);
    pub const SEVEN: Rank = Rank(7);
    pub const TEN: Rank = Rank(10);
    pub const JACK: Rank = Rank(11);
    pub const QUEEN: Rank = Rank(12);
    pub const KING: Rank = Rank(13);

    /// Every rank, ace first.
    pub fn all() -> impl Iterator<Item = Rank> {
        (1..=13).map(Rank)
    }

    /// `n` from 1 (ace) to 13 (king).
    pub fn new(n: u8) -> Option<Rank> {
        (1..=13).contains(&n).then_some(Rank(n))
    }

    pub fn number(self) -> u8 {
        self.0
    }

    /// Blackjack point value: aces 1 (counted 11 where it helps, see the hand rules), face
    /// cards 10, others their number.
    pub fn points(self) -> u8 {
        self.0.min(10)
    }

    fn symbol(self) -> &'static str {
        ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
            .get(usize::from(self.0).saturating_sub(1))
            .copied()
            .unwrap_or("?")
    }
}

/// One card, written as rank and suit: `AS`, `10D`, `7H`, `KC`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card {
    pub rank: Rank,
    pub suit: Suit,
}

impl Card {
    pub fn new(rank: Rank, suit: Suit) -> Card {
        Card { rank, suit }
    }

    /// The 52 cards of one deck.
    pub fn deck() -> impl Iterator<Item = Card> {
        Suit::ALL.into_iter().flat_map(|suit| Rank::all().map(move |rank| Card { rank, suit }))
    }

    /// 0..52, for counting by card type.
    pub fn index(self) -> usize {
        let suit: usize = match self.suit {
            Suit::Clubs => 0,
            Suit::Diamonds => 1,
            Suit::Hearts => 2,
            Suit::Spades => 3,
        };
        suit.saturating_mul(13).saturating_add(usize::from(self.rank.0.saturating_sub(1)))
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank.symbol(), self.suit.letter())
    }
}

impl std::str::FromStr for Card {
    type Err = String;

    fn from_str(s: &str) -> Result<Card, String> {
        let bad = || format!("not a card: {s:?} (write rank and suit, e.g. AS, 10D, 7H)");
        let (rank, suit) = s.split_at_checked(s.len().saturating_sub(1)).ok_or_else(bad)?;
        let suit = match suit {
            "C" => Suit::Clubs,
            "D" => Suit::Diamonds,
            "H" => Suit::Hearts,
            "S" => Suit::Spades,
            _ => return Err(bad()),
        };
        let rank = match rank {
            "A" => Rank::ACE,
            "J" => Rank::JACK,
            "Q" => Rank::QUEEN,
            "K" => Rank::KING,
            n => n.parse::<u8>().ok().filter(|n| (2..=10).contains(n)).map(Rank).ok_or_else(bad)?,
        };
        Ok(Card { rank, suit })
    }
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Card, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The games' shoes: six decks, or two ("double deck").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Decks {
    #[serde(rename = "6")]
    Six,
    #[serde(rename = "2")]
    Two,
}

impl Decks {
    pub fn count(self) -> usize {
        match self {
            Decks::Six => 6,
            Decks::Two => 2,
        }
    }

    /// K.A.R. 111-301-6(a): "no fewer than 52 cards on either side of the cut card for a six deck
    /// game or no fewer than 26 cards on either side ... for a double deck game".
    pub fn min_cards_beside_cut(self) -> usize {
        match self {
            Decks::Six => 52,
            Decks::Two => 26,
        }
    }

    /// Every card's points added up, aces counted as one: 340 a deck.
    pub fn total_points(self) -> usize {
        Card::deck().map(|c| usize::from(c.rank.points())).sum::<usize>().saturating_mul(self.count())
    }
}

/// Why a shoe refused something.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShoeError {
    #[error(
        "the cut card must leave at least {min} cards on either side; {position} leaves {before} and {after}"
    )]
    CutOutOfRange { position: usize, min: usize, before: usize, after: usize },
    #[error("the shoe is empty")]
    Empty,
}

fn shuffled_cards(decks: Decks, rng: &mut impl Rng) -> Vec<Card> {
    let mut cards: Vec<Card> = (0..decks.count()).flat_map(|_| Card::deck()).collect();
    fisher_yates(&mut cards, rng);
    cards
}

/// Every order equally likely.
fn fisher_yates(cards: &mut [Card], rng: &mut impl Rng) {
    for i in (1..cards.len()).rev() {
        let j = rng.random_range(0..=i);
        cards.swap(i, j);
    }
}

/// A shuffled shoe with its cut card. Cards are dealt from the front; when the cut card comes
/// out, the round in play finishes from the cards behind it and the shoe is shuffled before the
/// next round.
///
/// A round that needs more cards than are left behind the cut card goes on from the **reserve**:
/// the cards of earlier rounds (the discard rack), shuffled before the round begins
/// ([`Shoe::reserve_discards`]) and dealt only when the shoe itself runs out, as a dealer
/// reshuffles the discards mid-round. K.A.R. 111-301-6 is silent on a shoe that runs dry; with
/// the reserve a round can draw on every card of the shoe except those already in front of it,
/// and [`crate::blackjack::max_spots_served`] keeps the spots within what that always covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shoe {
    pub decks: Decks,
    #[serde(with = "card_row")]
    cards: Vec<Card>,
    next: usize,
    cut: usize,
    /// The discards of earlier rounds, shuffled; dealt after `cards` runs out.
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "card_row")]
    reserve: Vec<Card>,
}

/// A shoe's cards as one string, `"AS 10D 7H"`: a table's shoe is read and written with every
/// blackjack deal and decision, and 312 cards as one string cost a fraction of 312 strings in a
/// list, in the service and in the database. The list form (shoes stored before) reads too.
mod card_row {
    use std::fmt::{self, Write};

    use serde::de::{self, SeqAccess, Visitor};
    use serde::{Deserializer, Serializer};

    use super::Card;

    pub fn serialize<S: Serializer>(cards: &[Card], serializer: S) -> Result<S::Ok, S::Error> {
        let mut text = String::with_capacity(cards.len().saturating_mul(4));
        for card in cards {
            if !text.is_empty() {
                text.push(' ');
            }
            write!(text, "{card}").map_err(serde::ser::Error::custom)?;
        }
        serializer.serialize_str(&text)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Card>, D::Error> {
        deserializer.deserialize_any(CardRow)
    }

    struct CardRow;

    impl<'de> Visitor<'de> for CardRow {
        type Value = Vec<Card>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("cards, as one string (\"AS 10D 7H\") or a list of strings")
        }

        fn visit_str<E: de::Error>(self, text: &str) -> Result<Vec<Card>, E> {
            text.split_whitespace().map(|card| card.parse().map_err(E::custom)).collect()
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Card>, A::Error> {
            let mut cards = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(card) = seq.next_element::<Card>()? {
                cards.push(card);
            }
            Ok(cards)
        }
    }
}

impl Shoe {
    /// The decks shuffled by `rng` (Fisher-Yates: every order equally likely), cut at `cut`:
    /// the cut card goes before the card at that position.
    pub fn shuffled(decks: Decks, cut: usize, rng: &mut impl Rng) -> Result<Shoe, ShoeError> {
        Shoe::stacked(decks, shuffled_cards(decks, rng), cut)
    }

    /// The decks shuffled by `rng` and cut at [`Shoe::default_cut`], which every shoe allows.
    pub fn shuffled_default(decks: Decks, rng: &mut impl Rng) -> Shoe {
        Shoe {
            decks,
            cards: shuffled_cards(decks, rng),
            next: 0,
            cut: Shoe::default_cut(decks),
            reserve: Vec::new(),
        }
    }

    /// A shoe in the given order (tests and replays of a recorded round).
    pub fn stacked(decks: Decks, cards: Vec<Card>, cut: usize) -> Result<Shoe, ShoeError> {
        let min = decks.min_cards_beside_cut();
        let after = cards.len().saturating_sub(cut);
        if cut < min || after < min {
            return Err(ShoeError::CutOutOfRange { position: cut, min, before: cut, after });
        }
        Ok(Shoe { decks, cards, next: 0, cut, reserve: Vec::new() })
    }

    /// The cut a player makes when none is chosen: the middle of the allowed range.
    pub fn default_cut(decks: Decks) -> usize {
        decks.count().saturating_mul(52) / 2
    }

    /// The next card: from the shoe, then from the reserve; `Empty` only when every card of
    /// the shoe is already on the table.
    pub fn draw(&mut self) -> Result<Card, ShoeError> {
        let card = match self.next.checked_sub(self.cards.len()) {
            None => self.cards.get(self.next),
            Some(into_reserve) => self.reserve.get(into_reserve),
        };
        let card = *card.ok_or(ShoeError::Empty)?;
        self.next = self.next.saturating_add(1);
        Ok(card)
    }

    /// Before a round: the cards dealt so far (the discards) are shuffled by `rng` into the
    /// reserve, replacing any earlier reserve. A shoe that has dealt from its reserve has passed
    /// its cut card and is shuffled anew before the next round instead.
    pub fn reserve_discards(&mut self, rng: &mut impl Rng) {
        let mut discards = self.cards.get(..self.next).unwrap_or(&[]).to_vec();
        fisher_yates(&mut discards, rng);
        self.reserve = discards;
    }

    /// True once the cut card has come out: shuffle before the next round.
    pub fn cut_card_reached(&self) -> bool {
        self.next >= self.cut
    }

    /// Cards left in front of the cut card and behind it (the reserve not counted).
    pub fn remaining(&self) -> usize {
        self.cards.len().saturating_sub(self.next)
    }

    /// The cards not yet dealt (kept on the server; never shown to a player).
    pub fn undealt(&self) -> &[Card] {
        self.cards.get(self.next..).unwrap_or(&[])
    }
}
