//! Instant and pull-tab ticket games as data: a game's definition, transcribed from its rule into
//! `games/instant/<number>.json`, and the check that recomputes its prize structure.
//!
//! Loading a definition refuses one that cannot be a game (a prize whose parts do not add up to
//! it, a part no legend line pays, more wins than the ticket allows, an empty pool, ...) and
//! reports, without refusing, every place where the rule's own figures disagree with what its
//! prize rows add up to: the stated cost of a row, the total winners, the total prize cost and
//! the overall odds (subsections (i) and (j) of each rule). Mismatches the transcriber noticed
//! in the source itself (a column header that disagrees with its numbers, say) are carried in the
//! file's `source_notes`, each with what was assumed.

pub mod crossword;
pub mod patterns;
pub mod payout;
pub mod print_run;
pub mod vendor_file;

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::money::dollars;

/// A pull-tab game (K.A.R. 111-8/111-9) or a scratch instant game (K.A.R. 111-3/111-4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    PullTab,
    Instant,
}

/// The ticket numbers printed in each book or pack, e.g. 000 to 299.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TicketRange {
    pub first: u32,
    pub last: u32,
}

impl TicketRange {
    pub fn tickets_per_book(self) -> u64 {
        u64::from(self.last.saturating_sub(self.first)).saturating_add(1)
    }
}

/// A play symbol, with the caption printed under it where the game has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Symbol {
    pub name: String,
    #[serde(default)]
    pub caption: Option<String>,
}

/// One line of the ticket's legend: what `symbol` (a pull-tab's three-of-a-kind, an instant
/// game's prize symbol) or `find` (a crossword's words) pays, in the play `area` it names (any
/// area when none). A free-ticket line pays 0 cents and a ticket of the same game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LegendLine {
    #[serde(default)]
    pub symbol: Option<String>,
    #[serde(default)]
    pub find: Option<String>,
    #[serde(default)]
    pub area: Option<String>,
    pub prize_cents: i64,
    #[serde(default)]
    pub free_ticket: bool,
}

/// One row of the prize table of subsection (i).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrizeRow {
    /// The wins that make up the prize, in cents (`[500, 500]` for "$5 + $5"; 0 for a free
    /// ticket).
    pub composition: Vec<i64>,
    /// For games with several play areas, the area each part is won in.
    #[serde(default)]
    pub areas: Vec<String>,
    pub value_cents: i64,
    /// Winners per `tickets_ordered`.
    pub count: u64,
    /// The row's prize cost as the rule prints it.
    pub stated_cost_cents: i64,
}

/// A prize cost the table lists that no ticket wins (a players' loyalty program, say).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OtherCost {
    pub name: String,
    pub cost_cents: i64,
}

/// The totals and odds the rule prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stated {
    pub winners: u64,
    pub prize_cost_cents: i64,
    /// "approximately one in 4.27".
    pub odds_one_in: f64,
}

/// A game as transcribed from its rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameDefinition {
    pub number: u32,
    pub name: String,
    pub kind: Kind,
    /// The rule it is transcribed from, e.g. "K.A.R. 111-9-226".
    pub rule: String,
    pub price_cents: i64,
    pub ticket_numbers: TicketRange,
    pub tickets_ordered: u64,
    /// Tickets per prize pool ("the same number of prizes per pool of 300,000 tickets").
    pub pool_size: u64,
    /// How many times one ticket may win.
    pub max_wins: u32,
    /// The play areas, for games with more than one (a crossword and a bonus, say).
    #[serde(default)]
    pub areas: Vec<String>,
    pub symbols: Vec<Symbol>,
    pub legend: Vec<LegendLine>,
    pub prizes: Vec<PrizeRow>,
    #[serde(default)]
    pub other_costs: Vec<OtherCost>,
    pub stated: Stated,
    /// What the transcriber found inconsistent in the source, and what was assumed.
    #[serde(default)]
    pub source_notes: Vec<String>,
    /// Set by [`GameDefinition::scaled`]: the divisor of a demonstration's smaller game (its
    /// rows keep at least one winner a pool, so its payout may pass 100%); none as ordered.
    #[serde(skip)]
    pub demonstration_scale: Option<u64>,
}

/// Why a definition cannot be a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DefinitionError {
    #[error("not a game definition: {0}")]
    Malformed(String),
    #[error("{0}")]
    Invalid(String),
}

/// Where the rule's printed figures and the rows disagree.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Mismatch {
    pub what: String,
    pub stated: String,
    pub computed: String,
    /// Which figure the platform uses.
    pub assumed: String,
}

/// What loading a definition computed and found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub winners: u64,
    /// Prize cost of the winning tickets, plus the other listed costs.
    pub prize_cost_cents: i64,
    /// Tickets ordered per winner.
    pub odds_one_in: f64,
    pub pools: u64,
    /// The prize payout as a share of sales.
    pub payout_percent: f64,
    pub mismatches: Vec<Mismatch>,
    pub source_notes: Vec<String>,
}

fn invalid(message: String) -> DefinitionError {
    DefinitionError::Invalid(message)
}

impl GameDefinition {
    /// Reads a definition and checks it; returns it with what the check found.
    pub fn load(json: &str) -> Result<(GameDefinition, Report), DefinitionError> {
        let game: GameDefinition =
            serde_json::from_str(json).map_err(|e| DefinitionError::Malformed(e.to_string()))?;
        let report = game.check()?;
        Ok((game, report))
    }

    /// What one winner of `row` costs the lottery: its prize, a free ticket counted at the
    /// ticket's price (the retailer hands one over).
    pub fn cost_of_winner_cents(&self, row: &PrizeRow) -> i64 {
        if row.composition.contains(&0) {
            self.price_cents.saturating_add(row.value_cents)
        } else {
            row.value_cents
        }
    }

    /// The game at a smaller scale, for tests and demonstrations: pools of `pool_size` tickets
    /// (whole books) holding a `divisor`-th of each row's winners per pool, at least one.
    #[must_use]
    pub fn scaled(&self, pool_size: u64, divisor: u64) -> GameDefinition {
        let mut game = self.clone();
        game.demonstration_scale = Some(divisor);
        let pools = self.tickets_ordered.checked_div(self.pool_size).unwrap_or(1);
        game.pool_size = pool_size;
        game.tickets_ordered = pool_size.saturating_mul(pools);
        for row in &mut game.prizes {
            row.count = row.count.checked_div(divisor.max(1)).unwrap_or(0).max(1);
            row.stated_cost_cents =
                row.value_cents.saturating_mul(i64::try_from(row.count).unwrap_or(i64::MAX));
        }
        game
    }

    /// Refuses what cannot be a game; reports where the printed figures disagree.
    pub fn check(&self) -> Result<Report, DefinitionError> {
        self.check_shape()?;
        self.check_symbols_and_legend()?;
        if self.prizes.is_empty() {
            return Err(invalid(format!("game {}: no prizes", self.number)));
        }
        let mut mismatches = Vec::new();
        let (mut winners, mut cost) = (0u64, 0i64);
        for row in &self.prizes {
            let row_cost = self.check_prize_row(row, &mut mismatches)?;
            winners = winners.saturating_add(row.count);
            cost = cost.saturating_add(row_cost);
        }
        for other in &self.other_costs {
            cost = cost.saturating_add(other.cost_cents);
        }
        #[allow(clippy::cast_precision_loss)] // ticket counts far below 2^52
        let odds = self.tickets_ordered as f64 / winners.max(1) as f64;
        self.compare_totals(winners, cost, odds, &mut mismatches);
        #[allow(clippy::cast_precision_loss)]
        let payout_percent =
            cost as f64 * 100.0 / (self.tickets_ordered as f64 * self.price_cents as f64).max(1.0);
        Ok(Report {
            winners,
            prize_cost_cents: cost,
            odds_one_in: odds,
            pools: self.tickets_ordered.checked_div(self.pool_size).unwrap_or(0),
            payout_percent,
            mismatches,
            source_notes: self.source_notes.clone(),
        })
    }

    /// The price, the ticket numbers, and whole pools of whole books.
    fn check_shape(&self) -> Result<(), DefinitionError> {
        if self.price_cents <= 0 {
            return Err(invalid(format!("game {}: the price must be positive", self.number)));
        }
        if self.ticket_numbers.last < self.ticket_numbers.first {
            return Err(invalid(format!("game {}: ticket numbers end before they start", self.number)));
        }
        if self.pool_size == 0
            || self.tickets_ordered == 0
            || !self.tickets_ordered.is_multiple_of(self.pool_size)
        {
            return Err(invalid(format!(
                "game {}: {} tickets do not make whole pools of {}",
                self.number, self.tickets_ordered, self.pool_size
            )));
        }
        if !self.pool_size.is_multiple_of(self.ticket_numbers.tickets_per_book()) {
            return Err(invalid(format!(
                "game {}: a pool of {} tickets is not whole books of {}",
                self.number,
                self.pool_size,
                self.ticket_numbers.tickets_per_book()
            )));
        }
        Ok(())
    }

    /// Symbols named once; every legend line names known symbols and areas and pays something.
    fn check_symbols_and_legend(&self) -> Result<(), DefinitionError> {
        let mut names = HashSet::new();
        for symbol in &self.symbols {
            if !names.insert(symbol.name.as_str()) {
                return Err(invalid(format!("game {}: symbol {:?} appears twice", self.number, symbol.name)));
            }
        }
        for line in &self.legend {
            if let Some(symbol) = line.symbol.as_ref().filter(|s| !names.contains(s.as_str())) {
                return Err(invalid(format!(
                    "game {}: the legend names an unknown symbol {symbol:?}",
                    self.number
                )));
            }
            if line.area.as_ref().is_some_and(|a| !self.areas.contains(a)) {
                return Err(invalid(format!("game {}: the legend names an unknown play area", self.number)));
            }
            if line.prize_cents < 0 || (line.prize_cents == 0) != line.free_ticket {
                return Err(invalid(format!("game {}: a legend line pays nothing", self.number)));
            }
        }
        Ok(())
    }

    /// One prize row: its parts add up, it has winners, wins a ticket can hold, known areas, and
    /// parts the legend pays; where its printed cost or its spread over pools disagrees, the
    /// mismatch is noted. Returns the row's cost.
    fn check_prize_row(
        &self,
        row: &PrizeRow,
        mismatches: &mut Vec<Mismatch>,
    ) -> Result<i64, DefinitionError> {
        let parts: i64 = row.composition.iter().sum();
        let label = row.composition.iter().map(|&c| dollars(c)).collect::<Vec<_>>().join(" + ");
        let refuse = |why: String| Err(invalid(format!("game {}: the prize {label} {why}", self.number)));
        if row.composition.is_empty() || parts != row.value_cents {
            return refuse(format!("adds up to {}, not {}", dollars(parts), dollars(row.value_cents)));
        }
        if row.count == 0 {
            return refuse("has no winners".to_owned());
        }
        if u32::try_from(row.composition.len()).unwrap_or(u32::MAX) > self.max_wins {
            return refuse(format!(
                "needs {} wins; a ticket wins at most {}",
                row.composition.len(),
                self.max_wins
            ));
        }
        if !self.areas.is_empty()
            && (row.areas.len() != row.composition.len() || row.areas.iter().any(|a| !self.areas.contains(a)))
        {
            return refuse("needs a known play area for each part".to_owned());
        }
        // A part is paid when a legend line in its area (or in every area) pays that much.
        let paid = |cents: i64, area: Option<&String>| {
            self.legend.iter().any(|l| {
                l.prize_cents == cents && (l.area.is_none() || area.is_none() || l.area.as_ref() == area)
            })
        };
        let unpaid =
            row.composition.iter().enumerate().find(|&(i, c)| !paid(*c, row.areas.get(i))).map(|(_, c)| c);
        if let (false, Some(unpaid)) = (self.legend.is_empty(), unpaid) {
            return refuse(format!("has a part of {} that no legend line pays", dollars(*unpaid)));
        }
        let row_cost = row.value_cents.saturating_mul(i64::try_from(row.count).unwrap_or(i64::MAX));
        if row_cost != row.stated_cost_cents {
            mismatches.push(Mismatch {
                what: format!("prize cost of {label} × {}", row.count),
                stated: dollars(row.stated_cost_cents),
                computed: dollars(row_cost),
                assumed: "the count and value; the cost is their product".to_owned(),
            });
        }
        let pools = self.tickets_ordered.checked_div(self.pool_size).unwrap_or(1).max(1);
        if !row.count.is_multiple_of(pools) {
            mismatches.push(Mismatch {
                what: format!("winners of {label} per pool"),
                stated: format!("the same number in every pool of {} (subsection (h))", self.pool_size),
                computed: format!("{} winners over {pools} pools", row.count),
                assumed: "spread as evenly as whole numbers allow: some pools hold one more".to_owned(),
            });
        }
        Ok(row_cost)
    }

    /// The printed totals (winners, prize cost, odds) beside the rows' own.
    fn compare_totals(&self, winners: u64, cost: i64, odds: f64, mismatches: &mut Vec<Mismatch>) {
        if winners != self.stated.winners {
            mismatches.push(Mismatch {
                what: "total winners".to_owned(),
                stated: self.stated.winners.to_string(),
                computed: winners.to_string(),
                assumed: "the rows' counts".to_owned(),
            });
        }
        if cost != self.stated.prize_cost_cents {
            mismatches.push(Mismatch {
                what: "total prize cost".to_owned(),
                stated: dollars(self.stated.prize_cost_cents),
                computed: dollars(cost),
                assumed: "the rows' costs".to_owned(),
            });
        }
        if (odds * 100.0).round() != (self.stated.odds_one_in * 100.0).round() {
            mismatches.push(Mismatch {
                what: "overall odds".to_owned(),
                stated: format!("1 in {:.2}", self.stated.odds_one_in),
                computed: format!("1 in {odds:.2}"),
                assumed: "the rows' counts".to_owned(),
            });
        }
    }
}

/// Why a run cannot be printed (by `print_run`, or the crossword faces it prints with).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrintError {
    #[error("a pool of {pool} tickets cannot hold its {winners} winners")]
    TooManyWinners { pool: u64, winners: u64 },
    #[error("{0}")]
    Unsupported(String),
}
