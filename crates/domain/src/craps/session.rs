//! A craps table session as the tables play it: one player who is also the shooter, the puck, the
//! bets on the layout working across rolls, the making, working and removal rules of
//! 111-501-45, and one roll deciding every bet it decides at once.
//!
//! [`Session::change`] makes, reduces, removes or turns on/off one bet and says what money that
//! moves; [`Session::roll`] throws the dice given to it (the service's CSPRNG throws them) and
//! says what every bet did. The service moves the money through the ledger exactly as these say.

use serde::{Deserialize, Serialize};

use super::{Bet, PowerTable, Roll, amount_unit, commission, lay_odds};

/// The house's settings for a table (45(g), (s)-(w); 44(c)(47)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = CrapsTableRules))]
pub struct TableRules {
    /// Every wager but the odds (45(g)).
    pub min_bet_cents: i64,
    pub max_bet_cents: i64,
    /// Odds behind pass, come and put bets up to this many times the bet, and laid to win as
    /// many times a don't bet (45(s)-(u): up to 100).
    pub odds_multiple: u32,
    /// Power odds (47), when the house offers them: its pay table and how often they light, in
    /// rolls per thousand.
    pub power_odds: Option<PowerOdds>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PowerOdds {
    pub table: PowerTable,
    pub per_thousand_rolls: u32,
}

/// A bet on the layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Placed {
    #[serde(flatten)]
    pub bet: Bet,
    pub amount_cents: i64,
    /// A buy or lay bet's commission, paid when it was made.
    #[serde(default)]
    pub commission_cents: i64,
    /// The player's "on" or "off" (45(f)); none follows the rule for the roll.
    #[serde(default)]
    pub working: Option<bool>,
    /// A bonus wager's totals rolled so far (bits by total).
    #[serde(default)]
    pub progress: u16,
    /// A hot shooter wager's rolls so far.
    #[serde(default)]
    pub rolls: u32,
}

/// A change to the layout before a roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "change")]
pub enum Change {
    /// Make a bet, or add to one.
    Place {
        #[serde(flatten)]
        bet: Bet,
        amount_cents: i64,
    },
    /// Reduce a bet to `amount_cents`.
    Reduce {
        #[serde(flatten)]
        bet: Bet,
        amount_cents: i64,
    },
    /// Take a bet down.
    Remove {
        #[serde(flatten)]
        bet: Bet,
    },
    /// Call a bet "on" (`working: true`) or "off" (45(f)). (Not named `on`: YAML 1.1 reads a bare
    /// `on` as true, and the contract is YAML.)
    Working {
        #[serde(flatten)]
        bet: Bet,
        working: bool,
    },
}

/// A change the rules refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("{0}")]
    InvalidBet(String),
    #[error("this bet cannot be made now: {0}")]
    NotNow(&'static str),
    #[error("a pass, come or put bet cannot be removed or reduced once its point is set (111-501-45(d))")]
    ContractBet,
    #[error(
        "a don't bet removed or reduced cannot be replaced or increased until the next come-out (111-501-45(e))"
    )]
    DontLocked,
    #[error("odds on this bet may be {multiple} times it, at most {} (111-501-45(s)-(u))", crate::money::dollars(*.max_cents))]
    OddsOverMultiple { max_cents: i64, multiple: u32 },
    #[error("a bet must be {} to {} (111-501-45(g))", crate::money::dollars(*.min), crate::money::dollars(*.max))]
    OutOfLimits { min: i64, max: i64 },
    #[error("this bet is made in multiples of {}, so that it pays whole cents", crate::money::dollars(*.unit))]
    NotInUnits { unit: i64 },
    #[error("there is no such bet on the layout")]
    NoSuchBet,
    #[error("the shooter must have a pass or don't pass bet to throw the come-out roll (111-501-44(a)(8))")]
    ShooterNeedsLineBet,
}

/// Money a change moves: into escrow (negative: back to the wallet), and commission to the house
/// (negative: returned).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Moved {
    pub stake_cents: i64,
    pub commission_cents: i64,
}

/// What a roll did to a bet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Result {
    Won,
    Lost,
    /// Void or returned (the bar 12; odds that were off when their bet was decided).
    Push,
    /// A come or don't come bet went to its number.
    Moved,
}

/// One bet decided (or moved) by a roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Outcome {
    #[serde(flatten)]
    pub bet: Bet,
    pub amount_cents: i64,
    pub result: Result,
    /// What the player gets back: the stake with the winnings, the stake alone, or nothing.
    pub returned_cents: i64,
}

/// A roll and everything it decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RollReport {
    pub roll: Roll,
    pub total: u8,
    pub point_before: Option<u8>,
    pub point_after: Option<u8>,
    /// Power odds were lit for this roll (47).
    pub power_odds: bool,
    pub seven_out: bool,
    pub outcomes: Vec<Outcome>,
}

impl RollReport {
    /// Stakes leaving escrow for the wallet (won and pushed bets).
    pub fn stakes_returned(&self) -> i64 {
        self.outcomes
            .iter()
            .filter(|o| matches!(o.result, Result::Won | Result::Push))
            .map(|o| o.amount_cents)
            .fold(0, i64::saturating_add)
    }

    /// Stakes leaving escrow for the house (lost bets).
    pub fn stakes_lost(&self) -> i64 {
        self.outcomes
            .iter()
            .filter(|o| o.result == Result::Lost)
            .map(|o| o.amount_cents)
            .fold(0, i64::saturating_add)
    }

    /// Winnings the house pays.
    pub fn winnings(&self) -> i64 {
        self.outcomes
            .iter()
            .filter(|o| o.result == Result::Won)
            .map(|o| o.returned_cents.saturating_sub(o.amount_cents))
            .fold(0, i64::saturating_add)
    }
}

/// A player's session at a craps table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Session {
    pub rules: TableRules,
    /// The puck: the point, or none (off) before a come-out roll.
    pub point: Option<u8>,
    /// Rolls by the current shooter (a seven-out brings a new shooter: the player again).
    pub shooter_rolls: u32,
    /// The current shooter has set a point (the bonus wagers close, 44(c)(43)-(45)).
    pub shooter_has_point: bool,
    /// A don't bet was removed or reduced since the come-out (45(e)).
    pub dont_locked: bool,
    pub bets: Vec<Placed>,
}

/// Whether `bet` is odds behind another bet (taken down with it).
pub fn is_odds(bet: Bet) -> bool {
    matches!(
        bet,
        Bet::PassOdds
            | Bet::DontPassOdds
            | Bet::ComeOdds { .. }
            | Bet::DontComeOdds { .. }
            | Bet::PutOdds { .. }
    )
}

fn is_dont(bet: Bet) -> bool {
    matches!(bet, Bet::DontPass | Bet::DontCome | Bet::DontComePoint { .. })
}

impl Session {
    pub fn new(rules: TableRules) -> Session {
        Session {
            rules,
            point: None,
            shooter_rolls: 0,
            shooter_has_point: false,
            dont_locked: false,
            bets: Vec::new(),
        }
    }

    fn find(&self, bet: Bet) -> Option<&Placed> {
        self.bets.iter().find(|p| p.bet == bet)
    }

    /// Puts a bet on the layout (or adds to the one there).
    pub(crate) fn put(&mut self, placed: Placed) {
        match self.bets.iter_mut().find(|p| p.bet == placed.bet) {
            Some(existing) => {
                existing.amount_cents = existing.amount_cents.saturating_add(placed.amount_cents);
            }
            None => self.bets.push(placed),
        }
    }

    fn amount_of(&self, bet: Bet) -> i64 {
        self.find(bet).map_or(0, |p| p.amount_cents)
    }

    /// The bet odds sit behind, and the number they work on.
    fn odds_base(&self, bet: Bet) -> Option<(Bet, u8)> {
        match bet {
            Bet::PassOdds => Some((Bet::Pass, self.point?)),
            Bet::DontPassOdds => Some((Bet::DontPass, self.point?)),
            Bet::ComeOdds { number } => Some((Bet::ComePoint { number }, number)),
            Bet::DontComeOdds { number } => Some((Bet::DontComePoint { number }, number)),
            Bet::PutOdds { number } => Some((Bet::Put { number }, number)),
            _ => None,
        }
    }

    /// Whether `bet` may be made (or added to) now (44(c), 45).
    fn check_making(&self, bet: Bet) -> std::result::Result<(), RuleError> {
        let point_on = self.point.is_some();
        match bet {
            Bet::Pass | Bet::DontPass if point_on => {
                Err(RuleError::NotNow("pass and don't pass bets are made before the come-out roll"))
            }
            Bet::Come | Bet::DontCome | Bet::Put { .. } if !point_on => {
                Err(RuleError::NotNow("come, don't come and put bets are made after the come-out roll"))
            }
            Bet::DontCome if self.dont_locked => Err(RuleError::DontLocked),
            Bet::ComePoint { .. } | Bet::DontComePoint { .. } => {
                Err(RuleError::NotNow("a come bet goes to its number by its first roll; bet come instead"))
            }
            Bet::AllSmall | Bet::AllTall | Bet::MakeEmAll if self.shooter_has_point => {
                Err(RuleError::NotNow("the bonus wagers are made before a new shooter sets a point"))
            }
            Bet::HotShooter if self.shooter_rolls > 0 => {
                Err(RuleError::NotNow("the hot shooter wager is made before a new shooter's first roll"))
            }
            odds if is_odds(odds) => match self.odds_base(odds) {
                Some((base, _)) if self.find(base).is_some() => Ok(()),
                _ => Err(RuleError::NotNow("odds are taken behind a bet whose point is set")),
            },
            _ => Ok(()),
        }
    }

    /// 45(s)-(u): the most odds behind their bet.
    fn odds_limit(&self, bet: Bet) -> Option<i64> {
        let (base, number) = self.odds_base(bet)?;
        let behind = self.amount_of(base).saturating_mul(i64::from(self.rules.odds_multiple));
        Some(match bet {
            // Laid to win at most the multiple times the don't bet.
            Bet::DontPassOdds | Bet::DontComeOdds { .. } => {
                let lay = lay_odds(number);
                behind.saturating_mul(i64::from(lay.to)).checked_div(i64::from(lay.to_win)).unwrap_or(0)
            }
            _ => behind,
        })
    }

    /// The commission a buy or lay bet of `amount` pays (16), (17), 45(n): 5% of the wager on a
    /// buy, of the amount it can win on a lay.
    pub fn commission_on(bet: Bet, amount: i64) -> i64 {
        match bet {
            Bet::Buy { .. } => commission(amount),
            Bet::Lay { number } => commission(lay_odds(number).winnings(amount)),
            _ => 0,
        }
    }

    fn check_amount(&self, bet: Bet, total: i64) -> std::result::Result<(), RuleError> {
        let power = self.rules.power_odds.map(|p| p.table);
        let unit = amount_unit(bet, self.point, power);
        if total.checked_rem(unit).unwrap_or(0) != 0 {
            return Err(RuleError::NotInUnits { unit });
        }
        if let Some(max) = self.odds_limit(bet) {
            if total > max || total <= 0 {
                return Err(RuleError::OddsOverMultiple {
                    max_cents: max,
                    multiple: self.rules.odds_multiple,
                });
            }
            return Ok(());
        }
        if !(self.rules.min_bet_cents..=self.rules.max_bet_cents).contains(&total) {
            return Err(RuleError::OutOfLimits {
                min: self.rules.min_bet_cents,
                max: self.rules.max_bet_cents,
            });
        }
        Ok(())
    }

    /// Applies one change to the layout, or refuses it and changes nothing.
    pub fn change(&mut self, change: Change) -> std::result::Result<Moved, RuleError> {
        match change {
            Change::Place { bet, amount_cents } => self.place(bet, amount_cents),
            Change::Reduce { bet, amount_cents } => self.reduce(bet, amount_cents),
            Change::Remove { bet } => self.remove(bet),
            Change::Working { bet, working: on } => {
                let placed = self.bets.iter_mut().find(|p| p.bet == bet).ok_or(RuleError::NoSuchBet)?;
                placed.working = Some(on);
                Ok(Moved::default())
            }
        }
    }

    /// A bet made, or added to.
    fn place(&mut self, bet: Bet, amount_cents: i64) -> std::result::Result<Moved, RuleError> {
        bet.check().map_err(|e| RuleError::InvalidBet(e.to_string()))?;
        self.check_making(bet)?;
        if amount_cents <= 0 {
            return Err(RuleError::OutOfLimits {
                min: self.rules.min_bet_cents,
                max: self.rules.max_bet_cents,
            });
        }
        // One look along the layout: a roll re-makes several bets, each through here.
        let index = self.bets.iter().position(|p| p.bet == bet);
        let (before, paid) =
            index.and_then(|i| self.bets.get(i)).map_or((0, 0), |p| (p.amount_cents, p.commission_cents));
        let total = before.saturating_add(amount_cents);
        self.check_amount(bet, total)?;
        let commission = Self::commission_on(bet, total);
        match index.and_then(|i| self.bets.get_mut(i)) {
            Some(placed) => {
                placed.amount_cents = total;
                placed.commission_cents = commission;
            }
            None => self.bets.push(Placed {
                bet,
                amount_cents: total,
                commission_cents: commission,
                working: None,
                progress: 0,
                rolls: 0,
            }),
        }
        Ok(Moved { stake_cents: amount_cents, commission_cents: commission.saturating_sub(paid) })
    }

    /// A bet reduced (never to nothing: that is a removal).
    fn reduce(&mut self, bet: Bet, amount_cents: i64) -> std::result::Result<Moved, RuleError> {
        let placed = *self.find(bet).ok_or(RuleError::NoSuchBet)?;
        if amount_cents <= 0 || amount_cents >= placed.amount_cents {
            return Err(RuleError::InvalidBet(
                "a reduced bet is more than nothing and less than it was".to_owned(),
            ));
        }
        self.check_removal(bet)?;
        self.check_amount(bet, amount_cents)?;
        let commission = Self::commission_on(bet, amount_cents);
        if let Some(p) = self.bets.iter_mut().find(|p| p.bet == bet) {
            p.amount_cents = amount_cents;
            p.commission_cents = commission;
        }
        self.lock_if_dont(bet);
        // Odds behind a reduced bet may now be over the multiple: they come down to it.
        let mut moved = Moved {
            stake_cents: amount_cents.saturating_sub(placed.amount_cents),
            commission_cents: commission.saturating_sub(placed.commission_cents),
        };
        moved.stake_cents = moved.stake_cents.saturating_sub(self.trim_odds_behind(bet));
        Ok(moved)
    }

    /// A bet taken down, with its odds.
    fn remove(&mut self, bet: Bet) -> std::result::Result<Moved, RuleError> {
        let placed = *self.find(bet).ok_or(RuleError::NoSuchBet)?;
        self.check_removal(bet)?;
        self.bets.retain(|p| p.bet != bet);
        self.lock_if_dont(bet);
        let odds_back = self.trim_odds_behind(bet);
        Ok(Moved {
            stake_cents: placed.amount_cents.saturating_add(odds_back).saturating_neg(),
            // 45(q): a lay bet's commission comes back with it (a buy bet's too: the text
            // is silent, and the two are alike).
            commission_cents: placed.commission_cents.saturating_neg(),
        })
    }

    /// Whether the player may take `bet` down now (45(d): not a contract bet).
    pub fn may_remove(&self, bet: Bet) -> bool {
        self.check_removal(bet).is_ok()
    }

    /// 45(d): pass, come (once on its number) and put bets stay until decided.
    fn check_removal(&self, bet: Bet) -> std::result::Result<(), RuleError> {
        match bet {
            Bet::Pass if self.point.is_some() => Err(RuleError::ContractBet),
            Bet::ComePoint { .. } | Bet::Put { .. } => Err(RuleError::ContractBet),
            _ => Ok(()),
        }
    }

    fn lock_if_dont(&mut self, bet: Bet) {
        if is_dont(bet) && self.point.is_some() {
            self.dont_locked = true;
        }
    }

    /// Brings the odds behind `base` down to what is allowed behind it now; returns the cents.
    fn trim_odds_behind(&mut self, base: Bet) -> i64 {
        let odds = match base {
            Bet::Pass => Bet::PassOdds,
            Bet::DontPass => Bet::DontPassOdds,
            Bet::DontComePoint { number } => Bet::DontComeOdds { number },
            _ => return 0,
        };
        let Some(limit) = self.odds_limit(odds).or(Some(0)) else { return 0 };
        let power = self.rules.power_odds.map(|p| p.table);
        let unit = amount_unit(odds, self.point, power).max(1);
        let allowed = limit.checked_div(unit).unwrap_or(0).saturating_mul(unit);
        let mut back = 0;
        for p in self.bets.iter_mut().filter(|p| p.bet == odds) {
            if p.amount_cents > allowed {
                back = p.amount_cents.saturating_sub(allowed);
                p.amount_cents = allowed;
            }
        }
        self.bets.retain(|p| p.amount_cents > 0);
        back
    }

    /// Whether a bet works on the next roll (45(f)): place bets, come odds and hardways are off on
    /// a come-out roll unless called on; every other bet works unless called off; pass, come and
    /// put bets and their points always work (45(d)).
    pub fn works(&self, placed: &Placed) -> bool {
        Session::works_at(self.point, placed)
    }

    /// [`Session::works`] with the puck at `point`.
    pub fn works_at(point: Option<u8>, placed: &Placed) -> bool {
        if Session::always_works(placed.bet) {
            return true;
        }
        let off_on_come_out =
            matches!(placed.bet, Bet::Place { .. } | Bet::ComeOdds { .. } | Bet::Hardway { .. });
        placed.working.unwrap_or(!(off_on_come_out && point.is_none()))
    }

    /// 45(d), (f): the line, come and put bets and their points always work, so calling one
    /// off would change nothing (a player is not offered it).
    pub fn always_works(bet: Bet) -> bool {
        matches!(
            bet,
            Bet::Pass
                | Bet::DontPass
                | Bet::Come
                | Bet::DontCome
                | Bet::ComePoint { .. }
                | Bet::DontComePoint { .. }
                | Bet::Put { .. }
        )
    }

    /// 44(a)(8): the come-out roll needs the shooter's pass or don't pass bet.
    pub fn check_roll(&self) -> std::result::Result<(), RuleError> {
        if self.point.is_none() && self.find(Bet::Pass).is_none() && self.find(Bet::DontPass).is_none() {
            return Err(RuleError::ShooterNeedsLineBet);
        }
        Ok(())
    }
}
