//! What a transfer is for, as the journal keeps it (its `metadata`): one typed value every service
//! builds, so that a player's statement and the regulator's reports read a type, not each
//! service's habit (issue 48 §2).
//!
//! A purpose names the **game** (one [`Game`] for every game), the **money** it moves (a stake,
//! a prize, a refund, ...) and what it belongs to (a round, a ticket, a drawing, a claim, a print
//! run, a pack, a payment).
//!
//! **A replay is compared on its money, not on this.** The ledger takes a transfer sent again
//! under its id as a replay when what moves money is the same (ADR 0017): a saga step a crash or
//! an upgrade left half done is finished by sending its transfers again, and a step begun before
//! this type described its money as the services then did (no `money`, an instant game by its bare
//! number); the journal keeps the first description.
//! Every row the journal holds reads as a purpose ([`Purpose::read`]).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use uuid::Uuid;

/// A game, by the name the journal knows it by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Game {
    Blackjack,
    ILuvSuits,
    Craps,
    CastleKeno,
    Powerball,
    /// An instant (scratch or pull-tab) game, by its number.
    Instant(u32),
}

impl Game {
    /// The draw and table games by name (an instant game is `instant-<number>`).
    const NAMED: [(Game, &'static str); 5] = [
        (Game::Blackjack, "blackjack"),
        (Game::ILuvSuits, "i_luv_suits"),
        (Game::Craps, "craps"),
        (Game::CastleKeno, "castle_keno"),
        (Game::Powerball, "powerball"),
    ];

    /// The game a name (or an instant game's number, as rows before this type wrote it) names.
    pub fn named(name: &str) -> Option<Game> {
        if let Some(number) = name.strip_prefix("instant-") {
            return number.parse().ok().map(Game::Instant);
        }
        Game::NAMED.iter().find(|(_, n)| *n == name).map(|(g, _)| *g)
    }
}

impl Game {
    /// The game as a metric's label: its name, every instant game as `instant` (their numbers
    /// are many; a label takes a bounded set of values).
    pub fn label(self) -> &'static str {
        match self {
            Game::Instant(_) => "instant",
            named => Game::NAMED.iter().find(|(g, _)| *g == named).map_or("other", |(_, n)| n),
        }
    }

    /// The game as players call it ("Castle Keno", "Instant game 283").
    pub fn title(self) -> String {
        match self {
            Game::Blackjack => "Blackjack".to_owned(),
            Game::ILuvSuits => "I Luv Suits".to_owned(),
            Game::Craps => "Craps".to_owned(),
            Game::CastleKeno => "Castle Keno".to_owned(),
            Game::Powerball => "Powerball".to_owned(),
            Game::Instant(number) => format!("Instant game {number}"),
        }
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Game::Instant(number) => write!(f, "instant-{number}"),
            named => {
                let name = Game::NAMED.iter().find(|(g, _)| g == named).map_or("", |(_, n)| n);
                f.write_str(name)
            }
        }
    }
}

impl Serialize for Game {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Game {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Game, D::Error> {
        match Value::deserialize(deserializer)? {
            // Rows before this type wrote an instant game as its number.
            Value::Number(n) => n
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map(Game::Instant)
                .ok_or_else(|| serde::de::Error::custom("an instant game's number")),
            Value::String(name) => {
                Game::named(&name).ok_or_else(|| serde::de::Error::custom(format!("no game named {name}")))
            }
            _ => Err(serde::de::Error::custom("a game's name")),
        }
    }
}

/// The money a transfer moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Money {
    /// A wager or a ticket's cost, from a wallet (or a drawing's stakes to revenue).
    Stake,
    /// A prize, to a wallet, a retailer or the office (or prizes made payable).
    Prize,
    /// A round's settlement: its stakes to the house and what it returns.
    Settlement,
    /// A stake given back (a void, a cancelled drawing).
    Refund,
    /// A progressive pot funded by the house.
    PotSeed,
    /// A print run's prizes owed, from the house to the game's prize liability.
    PrizeFund,
    /// A pack's sales less commission, from its retailer to the house.
    PackSettlement,
    /// Money in or out of the platform (a deposit, a withdrawal).
    Payment,
    /// A manual balance adjustment two operators agreed (a goodwill credit, a correction).
    Adjustment,
}

/// What a transfer is for (see the module). Only what applies is written.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Purpose {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<Game>,
    /// What the money is (absent from rows written before this type).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub money: Option<Money>,
    /// A table game's round (a craps session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<Uuid>,
    /// A draw game's ticket, or an instant ticket's number in its pack.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket: Option<Value>,
    /// A Keno drawing's number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw: Option<i64>,
    /// A Powerball drawing's date.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw_date: Option<chrono::NaiveDate>,
    /// A Powerball ticket's serial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial: Option<i64>,
    /// A Powerball prize claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<Uuid>,
    /// Where a ticket was sold (`online`, `retail`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// Why a ticket was voided, and the drawings it gave up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub void: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draws: Option<Vec<String>>,
    /// Prizes nobody claimed in time, made the lottery's again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expired: Option<bool>,
    /// An instant game's print run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub print_run: Option<Uuid>,
    /// An instant game's pack (book), with its sales and commission when it is settled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub book: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sales: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commission: Option<i64>,
    /// A prize payment (an instant ticket's), or a deposit's or withdrawal's payment (its id, or
    /// `withdrawal` in rows of a withdrawal made by the player).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment: Option<Value>,
    /// A payment's kind (`deposit`, `withdrawal`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// A withdrawal's hold released because the withdrawal could not be recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrecorded: Option<bool>,
    /// The player a withdrawal is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_id: Option<Uuid>,
    /// What a pot's funding is (`initial funding`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progressive: Option<String>,
    /// A manual balance adjustment (its id in the gateway's queue).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjustment: Option<Uuid>,
}

impl Purpose {
    /// `money` of `game`, belonging to nothing yet (the builders below add what it belongs to).
    pub fn of(game: Game, money: Money) -> Purpose {
        Purpose { game: Some(game), money: Some(money), ..Purpose::default() }
    }

    /// A payment into or out of the platform, of no game.
    pub fn payment(payment: impl Serialize, kind: impl Into<String>) -> Purpose {
        Purpose {
            money: Some(Money::Payment),
            payment: serde_json::to_value(payment).ok(),
            kind: Some(kind.into()),
            ..Purpose::default()
        }
    }

    /// A manual balance adjustment, of no game.
    pub fn adjustment(adjustment: Uuid) -> Purpose {
        Purpose { money: Some(Money::Adjustment), adjustment: Some(adjustment), ..Purpose::default() }
    }

    #[must_use]
    pub fn round(self, round: Uuid) -> Purpose {
        Purpose { round: Some(round), ..self }
    }

    #[must_use]
    pub fn ticket(self, ticket: impl Serialize) -> Purpose {
        Purpose { ticket: serde_json::to_value(ticket).ok(), ..self }
    }

    #[must_use]
    pub fn draw(self, number: i64) -> Purpose {
        Purpose { draw: Some(number), ..self }
    }

    #[must_use]
    pub fn draw_date(self, date: chrono::NaiveDate) -> Purpose {
        Purpose { draw_date: Some(date), ..self }
    }

    #[must_use]
    pub fn serial(self, serial: i64) -> Purpose {
        Purpose { serial: Some(serial), ..self }
    }

    #[must_use]
    pub fn claim(self, claim: Uuid) -> Purpose {
        Purpose { claim: Some(claim), ..self }
    }

    #[must_use]
    pub fn channel(self, channel: impl Into<String>) -> Purpose {
        Purpose { channel: Some(channel.into()), ..self }
    }

    /// A void: why, and how many drawings it gave up.
    #[must_use]
    pub fn void(self, reason: impl Into<String>, draws: Vec<String>) -> Purpose {
        Purpose { void: Some(reason.into()), draws: Some(draws), ..self }
    }

    #[must_use]
    pub fn expired(self) -> Purpose {
        Purpose { expired: Some(true), ..self }
    }

    #[must_use]
    pub fn print_run(self, run: Uuid) -> Purpose {
        Purpose { print_run: Some(run), ..self }
    }

    #[must_use]
    pub fn book(self, book: i64) -> Purpose {
        Purpose { book: Some(book), ..self }
    }

    /// A pack's sales and the retailer's commission.
    #[must_use]
    pub fn sales(self, sales: i64, commission: i64) -> Purpose {
        Purpose { sales: Some(sales), commission: Some(commission), ..self }
    }

    #[must_use]
    pub fn paid_by(self, payment: Uuid) -> Purpose {
        Purpose { payment: Some(Value::String(payment.to_string())), ..self }
    }

    #[must_use]
    pub fn unrecorded(self) -> Purpose {
        Purpose { unrecorded: Some(true), ..self }
    }

    #[must_use]
    pub fn for_player(self, player: Uuid) -> Purpose {
        Purpose { player_id: Some(player), ..self }
    }

    #[must_use]
    pub fn progressive(self, what: impl Into<String>) -> Purpose {
        Purpose { progressive: Some(what.into()), ..self }
    }

    /// The journal's object.
    pub fn to_metadata(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(|_| Value::Object(serde_json::Map::new()))
    }

    /// A journal row's metadata as a purpose; what it does not name is left out (a row with
    /// none, or of a shape this does not know, reads as an empty purpose).
    pub fn read(metadata: &Value) -> Purpose {
        serde_json::from_value(metadata.clone()).unwrap_or_default()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_game_has_one_name_and_reads_back_as_written() {
        for game in [
            Game::Blackjack,
            Game::ILuvSuits,
            Game::Craps,
            Game::CastleKeno,
            Game::Powerball,
            Game::Instant(1234),
        ] {
            let written = serde_json::to_value(game).unwrap();
            assert_eq!(serde_json::from_value::<Game>(written).unwrap(), game);
            assert_eq!(Game::named(&game.to_string()), Some(game), "{game}");
        }
        assert_eq!(Game::Instant(1234).to_string(), "instant-1234");
        assert_eq!(serde_json::from_value::<Game>(json!("instant-1234")).unwrap(), Game::Instant(1234));
    }

    /// Rows the journal holds from before the type, one of each shape the services wrote, read as
    /// purposes: what they name reads back, and written again they differ only by an instant
    /// game's name (a replay is compared on its money, see the module).
    #[test]
    fn rows_written_before_the_type_read_as_purposes() {
        let id = Uuid::now_v7();
        let rows = [
            json!({"game": "blackjack", "round": id}),
            json!({"game": "castle_keno", "ticket": id}),
            json!({"game": "castle_keno", "draw": 12, "ticket": id}),
            json!({"game": "powerball", "draw_date": "2026-12-05", "serial": 7}),
            json!({"game": "powerball", "serial": 7, "draw_date": "2026-12-05", "claim": id}),
            json!({"game": "powerball", "draw_date": "2026-12-05", "expired": true}),
            json!({"game": "powerball", "ticket": id, "channel": "online"}),
            json!({"game": "castle_keno", "ticket": id, "void": "cancelled", "draws": ["12", "13"]}),
            json!({"game": 1234, "print_run": id}),
            json!({"game": 1234, "book": 5, "sales": 3000, "commission": 150}),
            json!({"game": 1234, "book": 5, "ticket": 17, "payment": id}),
            json!({"game": "i_luv_suits", "progressive": "initial funding"}),
            json!({"player_id": id, "payment": "withdrawal"}),
            json!({"payment": id, "kind": "deposit"}),
            json!({"payment": id, "unrecorded": true}),
        ];
        for row in rows {
            let purpose = Purpose::read(&row);
            assert_ne!(purpose, Purpose::default(), "{row}");
            assert_eq!(purpose.money, None, "rows before the type name no money");
            let mut expected = row.clone();
            if let Some(number) = row["game"].as_u64() {
                expected["game"] = json!(format!("instant-{number}"));
            }
            assert_eq!(purpose.to_metadata(), expected, "read and written again");
        }
        assert_eq!(Purpose::read(&json!({"game": 1234})).game, Some(Game::Instant(1234)));
        assert_eq!(Purpose::read(&json!("not an object")), Purpose::default());
    }

    #[test]
    fn what_the_services_write_names_the_game_and_the_money() {
        let round = Uuid::now_v7();
        let written = Purpose::of(Game::Blackjack, Money::Stake).round(round).to_metadata();
        assert_eq!(written, json!({"game": "blackjack", "money": "stake", "round": round}));
        assert_eq!(Purpose::read(&written), Purpose::of(Game::Blackjack, Money::Stake).round(round));
        let pack = Purpose::of(Game::Instant(283), Money::PackSettlement).book(5).sales(3000, 150);
        assert_eq!(
            pack.to_metadata(),
            json!({"game": "instant-283", "money": "pack_settlement", "book": 5, "sales": 3000, "commission": 150})
        );
        assert_eq!(
            Purpose::payment(round, "deposit").to_metadata(),
            json!({"money": "payment", "payment": round, "kind": "deposit"})
        );
    }
}
