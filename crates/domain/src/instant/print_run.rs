//! A game's print run: exactly the definition's winners of every prize row, spread over the
//! prize pools as evenly as whole numbers allow, shuffled within each pool, cut into books, each
//! ticket with its visible number and barcode, its hidden validation number (VIRN), and the face
//! a player uncovers.
//!
//! The barcode is made from the ticket's place in the run only, so it says nothing of the prize;
//! the VIRN is random and is what proves a claim (the service stores it keyed-hashed).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};

pub use super::PrintError;
use super::crossword::{self, Find, Library};
use super::{GameDefinition, Kind};

/// Grids filled for each pool of a crossword game (any two of them make a ticket's pair).
const CROSSWORD_GRIDS: usize = 96;

/// How many winners of each prize row each pool holds: `counts[pool][row]`. Row `r`'s extra
/// winners (its count modulo the pools) go to the pools after `r`, round robin, so the pools'
/// totals also stay within one of each other where they can.
pub fn pool_counts(game: &GameDefinition) -> Vec<Vec<u64>> {
    let pools = game.tickets_ordered.checked_div(game.pool_size).unwrap_or(0).max(1);
    let pools_usize = usize::try_from(pools).unwrap_or(1);
    let mut counts = vec![vec![0u64; game.prizes.len()]; pools_usize];
    let mut next_extra = 0usize;
    for (r, row) in game.prizes.iter().enumerate() {
        let base = row.count.checked_div(pools).unwrap_or(0);
        let extra = usize::try_from(row.count.checked_rem(pools).unwrap_or(0)).unwrap_or(0);
        for pool in &mut counts {
            if let Some(c) = pool.get_mut(r) {
                *c = base;
            }
        }
        for k in 0..extra {
            let p = next_extra.saturating_add(k).checked_rem(pools_usize).unwrap_or(0);
            if let Some(c) = counts.get_mut(p).and_then(|pool| pool.get_mut(r)) {
                *c = c.saturating_add(1);
            }
        }
        next_extra = next_extra.saturating_add(extra).checked_rem(pools_usize).unwrap_or(0);
    }
    counts
}

/// Each pool's own generator, drawn in order from the run's `rng` (256 bits of seed each): the
/// pools are then independent of one another, so a run may generate several at once and still
/// print exactly what its seed gives.
pub fn pool_generators(rng: &mut impl Rng, pools: usize) -> Vec<ChaCha20Rng> {
    (0..pools).map(|_| ChaCha20Rng::from_seed(rng.random())).collect()
}

/// A whole run printed from `rng` pool by pool, as a print run generates it (each pool from its
/// own generator, [`pool_generators`]): what the printer got, for a test or a benchmark that
/// replays a seeded run.
pub fn print_run_pools<'g>(
    game: &'g GameDefinition,
    first_book: u32,
    rng: &mut impl Rng,
) -> impl Iterator<Item = Result<Vec<PrintedTicket>, PrintError>> + 'g {
    let counts = pool_counts(game);
    let generators = pool_generators(rng, counts.len());
    counts.into_iter().zip(generators).enumerate().map(
        move |(p, (counts, mut generator)): (usize, (Vec<u64>, ChaCha20Rng))| {
            let pool = u32::try_from(p).map_err(|_| PrintError::Unsupported("too many pools".to_owned()))?;
            print_pool(game, first_book, pool, &counts, &mut generator)
        },
    )
}

/// A ticket of the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrintedTicket {
    pub pool: u32,
    pub book: u32,
    pub ticket: u32,
    /// Printed on the ticket: game, book, ticket and a check digit.
    pub barcode: String,
    /// Under the coating: twelve digits.
    pub virn: String,
    /// The prize row it wins, if any (an index into the definition's prizes).
    pub prize_row: Option<usize>,
    /// What the player uncovers.
    pub face: Face,
}

/// A ticket's play area.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Face {
    /// Three symbols under each tab (index into the definition's symbols), one window per tab.
    PullTab { windows: Vec<[u16; 3]> },
    /// Electric 8S (K.A.R. 111-4-3662(c), (f)): nine play spots in a 3×3 grid, the prize box and
    /// the bonus prize box: eleven spots. Three 8s in a line win the prize box; a moneybag
    /// anywhere wins the bonus prize box.
    TicTacToe { grid: [u16; 9], prize_box: u16, bonus_box: u16 },
    /// Super Red Hot Crossword (K.A.R. 111-4-3661(e)): the twenty YOUR LETTERS, the black (top)
    /// and red (bottom) grids, each its rows of letters one after another with `#` for a black
    /// space (see [`super::crossword`]), and the BONUS area's two prize symbols.
    Crossword { letters: String, black: String, red: String, bonus: [u16; 2] },
}

impl Face {
    /// The face as stored: a pull-tab's windows `a,b,c;d,e,f;...`; Electric 8S's grid, prize box
    /// and bonus box `g1,...,g9|p|b`; the crossword's `LETTERS|black|red|s1,s2`.
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        self.write_text(&mut text);
        text
    }

    /// [`Face::to_text`] appended to `out` (a print run writes millions: no string of its own).
    pub fn write_text(&self, out: &mut String) {
        use std::fmt::Write as _;
        let list = |out: &mut String, symbols: &[u16]| {
            for (i, symbol) in symbols.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{symbol}");
            }
        };
        match self {
            Face::PullTab { windows } => {
                for (i, window) in windows.iter().enumerate() {
                    if i > 0 {
                        out.push(';');
                    }
                    list(out, window);
                }
            }
            Face::TicTacToe { grid, prize_box, bonus_box } => {
                list(out, grid);
                let _ = write!(out, "|{prize_box}|{bonus_box}");
            }
            Face::Crossword { letters, black, red, bonus } => {
                let _ = write!(out, "{letters}|{black}|{red}|");
                list(out, bonus);
            }
        }
    }

    /// Reads back what [`Face::to_text`] wrote for a ticket of `game`.
    pub fn from_text(game: &GameDefinition, text: &str) -> Option<Face> {
        let symbols =
            |list: &str| list.split(',').map(|n| n.parse::<u16>().ok()).collect::<Option<Vec<u16>>>();
        if game.kind == Kind::PullTab {
            let windows = text
                .split(';')
                .map(|w| <[u16; 3]>::try_from(symbols(w)?).ok())
                .collect::<Option<Vec<_>>>()?;
            return Some(Face::PullTab { windows });
        }
        let parts: Vec<&str> = text.split('|').collect();
        match parts.as_slice() {
            [grid, prize_box, bonus_box] => Some(Face::TicTacToe {
                grid: <[u16; 9]>::try_from(symbols(grid)?).ok()?,
                prize_box: prize_box.parse().ok()?,
                bonus_box: bonus_box.parse().ok()?,
            }),
            [letters, black, red, bonus] => Some(Face::Crossword {
                letters: (*letters).to_owned(),
                black: (*black).to_owned(),
                red: (*red).to_owned(),
                bonus: <[u16; 2]>::try_from(symbols(bonus)?).ok()?,
            }),
            _ => None,
        }
    }
}

/// The eight lines of a 3×3 grid: rows, columns, diagonals.
const LINES: [[usize; 3]; 8] =
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

/// The number of digits of a VIRN (the validation number under the latex).
pub const VIRN_DIGITS: usize = 12;

/// A VIRN as typed or scanned, its digits only (spaces and dashes between groups dropped); none
/// when it is not twelve digits.
pub fn virn_digits(virn: &str) -> Option<String> {
    let digits: String = virn.chars().filter(|c| !matches!(c, ' ' | '-')).collect();
    (digits.len() == VIRN_DIGITS && digits.bytes().all(|b| b.is_ascii_digit())).then_some(digits)
}

/// `GGG-BBBBBB-TTT-C`: game, book, ticket, and the Luhn digit of the eleven digits before it.
pub fn barcode(game: u32, book: u32, ticket: u32) -> String {
    let digits = format!("{game:03}{book:06}{ticket:03}");
    format!("{game:03}-{book:06}-{ticket:03}-{}", crate::serial::luhn_digit(&digits))
}

/// The (game, book, ticket) of `barcode` when it is well formed and its check digit agrees: the
/// printed form `GGG-BBBBBB-TTT-C`, or the 13 raw digits a keyboard-wedge scanner types.
pub fn barcode_is_valid(barcode: &str) -> Option<(u32, u32, u32)> {
    let barcode = crate::text::trim(barcode);
    let (game, book, ticket, check) = if barcode.contains('-') {
        let parts: Vec<&str> = barcode.split('-').collect();
        let [game, book, ticket, check] = parts.as_slice() else { return None };
        (*game, *book, *ticket, *check)
    } else {
        if barcode.len() != 13 || !barcode.is_ascii() {
            return None;
        }
        (barcode.get(..3)?, barcode.get(3..9)?, barcode.get(9..12)?, barcode.get(12..)?)
    };
    if game.len() != 3 || book.len() != 6 || ticket.len() != 3 || check.len() != 1 {
        return None;
    }
    let digits = format!("{game}{book}{ticket}");
    if !digits.chars().all(|c| c.is_ascii_digit())
        || check.parse::<u32>().ok()? != crate::serial::luhn_digit(&digits)
    {
        return None;
    }
    Some((game.parse().ok()?, book.parse().ok()?, ticket.parse().ok()?))
}

/// Prints pool `pool` of the run, whose books start at `first_book`: its tickets in book order,
/// winners shuffled among them by `rng`.
pub fn print_pool(
    game: &GameDefinition,
    first_book: u32,
    pool: u32,
    counts: &[u64],
    rng: &mut impl Rng,
) -> Result<Vec<PrintedTicket>, PrintError> {
    let tic_tac_toe = game.kind == Kind::Instant && game.areas == ["play", "bonus"];
    let crossword = game.kind == Kind::Instant && game.areas == ["crossword", "bonus"];
    if game.kind != Kind::PullTab && !tic_tac_toe && !crossword {
        return Err(PrintError::Unsupported(format!(
            "game {} has play areas no face is printed for",
            game.number
        )));
    }
    let crossword =
        if crossword { Some((crossword::legend(game)?, Library::new(CROSSWORD_GRIDS, rng)?)) } else { None };
    let size = usize::try_from(game.pool_size).unwrap_or(0);
    let winners: u64 = counts.iter().sum();
    if winners > game.pool_size {
        return Err(PrintError::TooManyWinners { pool: game.pool_size, winners });
    }
    let mut prizes: Vec<Option<usize>> = Vec::with_capacity(size);
    for (row, &n) in counts.iter().enumerate() {
        for _ in 0..n {
            prizes.push(Some(row));
        }
    }
    prizes.resize(size, None);
    for i in (1..prizes.len()).rev() {
        prizes.swap(i, rng.random_range(0..=i));
    }
    let per_book = game.ticket_numbers.tickets_per_book();
    let books_per_pool = game.pool_size.checked_div(per_book).unwrap_or(0);
    let mut tickets = Vec::with_capacity(size);
    for (i, prize_row) in prizes.into_iter().enumerate() {
        let i = u64::try_from(i).unwrap_or(0);
        let book = u64::from(first_book)
            .saturating_add(u64::from(pool).saturating_mul(books_per_pool))
            .saturating_add(i.checked_div(per_book).unwrap_or(0));
        let book = u32::try_from(book).unwrap_or(u32::MAX);
        let ticket = game
            .ticket_numbers
            .first
            .saturating_add(u32::try_from(i.checked_rem(per_book).unwrap_or(0)).unwrap_or(0));
        let face = if let Some((legend, library)) = &crossword {
            crossword_face(game, legend, library, prize_row, rng)?
        } else if tic_tac_toe {
            tic_tac_toe_face(game, prize_row, rng)?
        } else {
            pull_tab_face(game, prize_row, rng)?
        };
        let virn: String =
            (0..VIRN_DIGITS).map(|_| char::from(b'0'.saturating_add(rng.random_range(0..10u8)))).collect();
        tickets.push(PrintedTicket {
            pool,
            book,
            ticket,
            barcode: barcode(game.number, book, ticket),
            virn,
            prize_row,
            face,
        });
    }
    Ok(tickets)
}

/// The symbol whose three-of-a-kind pays `cents`.
fn symbol_paying(game: &GameDefinition, cents: i64) -> Option<u16> {
    let line = game.legend.iter().find(|l| l.prize_cents == cents && l.symbol.is_some())?;
    let index = game.symbols.iter().position(|s| Some(&s.name) == line.symbol.as_ref())?;
    u16::try_from(index).ok()
}

/// K.A.R. 111-9-226(c), (f): three symbols under each tab; each win is three of one legend symbol
/// in one window; every other window shows no three alike, so the ticket wins nothing extra.
fn pull_tab_face(
    game: &GameDefinition,
    prize_row: Option<usize>,
    rng: &mut impl Rng,
) -> Result<Face, PrintError> {
    let tabs = usize::try_from(game.max_wins).unwrap_or(0);
    let symbols = u16::try_from(game.symbols.len()).unwrap_or(0);
    if symbols < 2 {
        return Err(PrintError::Unsupported("a pull-tab needs at least two symbols".to_owned()));
    }
    let parts: &[i64] =
        prize_row.and_then(|r| game.prizes.get(r)).map_or(&[], |row| row.composition.as_slice());
    let mut windows: Vec<[u16; 3]> = Vec::with_capacity(tabs);
    for &cents in parts {
        let s = symbol_paying(game, cents).ok_or_else(|| {
            PrintError::Unsupported(format!("no legend symbol pays {}", crate::money::dollars(cents)))
        })?;
        windows.push([s, s, s]);
    }
    while windows.len() < tabs {
        let mut window = [0u16; 3];
        for slot in &mut window {
            *slot = rng.random_range(0..symbols);
        }
        if window[0] == window[1] && window[1] == window[2] {
            // Never three alike on a losing window: change the last symbol.
            window[2] = (window[2].saturating_add(1)).checked_rem(symbols).unwrap_or(0);
        }
        windows.push(window);
    }
    // The winning windows go anywhere among the tabs.
    for i in (1..windows.len()).rev() {
        windows.swap(i, rng.random_range(0..=i));
    }
    Ok(Face::PullTab { windows })
}

fn symbol_named(game: &GameDefinition, name: &str) -> Result<u16, PrintError> {
    game.symbols
        .iter()
        .position(|s| s.name == name)
        .and_then(|i| u16::try_from(i).ok())
        .ok_or_else(|| PrintError::Unsupported(format!("game {} has no {name:?} symbol", game.number)))
}

/// The prize symbol (by the legend) paying `cents`, any area.
fn prize_symbol(game: &GameDefinition, cents: i64) -> Result<u16, PrintError> {
    symbol_paying(game, cents).ok_or_else(|| {
        PrintError::Unsupported(format!("no prize symbol pays {}", crate::money::dollars(cents)))
    })
}

/// Electric 8S's face for a prize row: a line of three 8s when the play area wins, a moneybag
/// when the bonus wins; otherwise no line of 8s and no moneybag. The boxes always show a prize
/// symbol (a losing box shows any, as printed tickets do).
fn tic_tac_toe_face(
    game: &GameDefinition,
    prize_row: Option<usize>,
    rng: &mut impl Rng,
) -> Result<Face, PrintError> {
    let eight = symbol_named(game, "8 (outlined)")?;
    let moneybag = symbol_named(game, "moneybag")?;
    let numbers: Vec<u16> = ["1", "2", "3", "4", "5", "6", "7", "9"]
        .iter()
        .map(|n| symbol_named(game, n))
        .collect::<Result<_, _>>()?;
    let prizes: Vec<u16> = game
        .legend
        .iter()
        .filter_map(|l| l.symbol.as_deref())
        .map(|n| symbol_named(game, n))
        .collect::<Result<_, _>>()?;
    let pick = |rng: &mut dyn rand::RngCore, from: &[u16]| {
        from.get(rng.random_range(0..from.len().max(1))).copied().unwrap_or(0)
    };
    let row = prize_row.and_then(|r| game.prizes.get(r));
    let part = |area: &str| {
        row.and_then(|r| r.areas.iter().position(|a| a == area).and_then(|i| r.composition.get(i).copied()))
    };
    let (play, bonus) = (part("play"), part("bonus"));
    let mut grid = [0u16; 9];
    // Fillers: numbers and, on losing grids, a few 8s placed so that no line holds three.
    for spot in &mut grid {
        *spot = if rng.random_range(0..4) == 0 { eight } else { pick(rng, &numbers) };
    }
    for line in LINES {
        if line.iter().all(|&i| grid.get(i) == Some(&eight))
            && let Some(spot) = grid.get_mut(line[1])
        {
            *spot = pick(rng, &numbers);
        }
    }
    if play.is_some() {
        let line = LINES.get(rng.random_range(0..LINES.len())).copied().unwrap_or(LINES[0]);
        // Clear other 8s so exactly this one line is made.
        for spot in &mut grid {
            if *spot == eight {
                *spot = pick(rng, &numbers);
            }
        }
        for i in line {
            if let Some(spot) = grid.get_mut(i) {
                *spot = eight;
            }
        }
    }
    if bonus.is_some() {
        let free: Vec<usize> = (0..9).filter(|&i| grid.get(i) != Some(&eight)).collect();
        let at = free.get(rng.random_range(0..free.len().max(1))).copied().unwrap_or(0);
        if let Some(spot) = grid.get_mut(at) {
            *spot = moneybag;
        }
    }
    let prize_box = match play {
        Some(cents) => prize_symbol(game, cents)?,
        None => pick(rng, &prizes),
    };
    let bonus_box = match bonus {
        Some(cents) => prize_symbol(game, cents)?,
        None => pick(rng, &prizes),
    };
    Ok(Face::TicTacToe { grid, prize_box, bonus_box })
}

/// Super Red Hot Crossword's face for a prize row (see [`super::crossword`]): the crossword
/// completes exactly its legend line's words when it wins and three words or fewer otherwise; the
/// bonus shows two matching prize symbols when it wins and two different ones otherwise.
fn crossword_face(
    game: &GameDefinition,
    legend: &[Find],
    library: &Library,
    prize_row: Option<usize>,
    rng: &mut impl Rng,
) -> Result<Face, PrintError> {
    let row = prize_row.and_then(|r| game.prizes.get(r));
    let part = |area: &str| {
        row.and_then(|r| r.areas.iter().position(|a| a == area).and_then(|i| r.composition.get(i).copied()))
    };
    let (black, red) = match part("crossword") {
        Some(cents) => {
            let line = legend.iter().find(|f| f.prize_cents == cents).ok_or_else(|| {
                PrintError::Unsupported(format!(
                    "no crossword legend line pays {}",
                    crate::money::dollars(cents)
                ))
            })?;
            (line.black, line.red)
        }
        None => {
            let black = rng.random_range(0..=3usize);
            (black, rng.random_range(0..=3usize.saturating_sub(black)))
        }
    };
    let (letters, black, red) = crossword::crossword_play(library, black, red, rng)?;
    let prizes: Vec<u16> = game
        .legend
        .iter()
        .filter(|l| l.area.as_deref() == Some("bonus"))
        .filter_map(|l| l.symbol.as_deref())
        .map(|n| symbol_named(game, n))
        .collect::<Result<_, _>>()?;
    if prizes.len() < 2 {
        return Err(PrintError::Unsupported("the bonus needs at least two prize symbols".to_owned()));
    }
    let bonus = match part("bonus") {
        Some(cents) => {
            let s = prize_symbol(game, cents)?;
            [s, s]
        }
        None => {
            let first = rng.random_range(0..prizes.len());
            let second = first.saturating_add(rng.random_range(1..prizes.len())).checked_rem(prizes.len());
            [
                prizes.get(first).copied().unwrap_or(0),
                second.and_then(|i| prizes.get(i)).copied().unwrap_or(0),
            ]
        }
    };
    Ok(Face::Crossword { letters, black, red, bonus })
}

/// What a face pays, read as a player reads it: each window of three alike that the legend pays;
/// on Electric 8S, the prize box for three 8s in a line and the bonus box for a moneybag; on the
/// crossword, the highest legend line its completed words reach and two matching bonus symbols.
pub fn face_pays(game: &GameDefinition, face: &Face) -> Vec<i64> {
    let value = |symbol: u16| {
        let name = &game.symbols.get(usize::from(symbol))?.name;
        game.legend.iter().find(|l| l.symbol.as_ref() == Some(name)).map(|l| l.prize_cents)
    };
    match face {
        Face::TicTacToe { grid, prize_box, bonus_box } => {
            let named = |name: &str| {
                game.symbols.iter().position(|s| s.name == name).and_then(|i| u16::try_from(i).ok())
            };
            let mut pays = Vec::new();
            if let Some(eight) = named("8 (outlined)")
                && LINES.iter().any(|line| line.iter().all(|&i| grid.get(i) == Some(&eight)))
            {
                pays.extend(value(*prize_box));
            }
            if let Some(moneybag) = named("moneybag")
                && grid.contains(&moneybag)
            {
                pays.extend(value(*bonus_box));
            }
            pays
        }
        Face::Crossword { letters, black, red, bonus } => {
            let have = crossword::letter_set(letters.as_bytes());
            let mut pays = Vec::new();
            if let Ok(legend) = crossword::legend(game)
                && let Some(line) = crossword::prize_for(
                    &legend,
                    crossword::completed_words(black.as_bytes(), have),
                    crossword::completed_words(red.as_bytes(), have),
                )
            {
                pays.push(line.prize_cents);
            }
            if bonus[0] == bonus[1] {
                pays.extend(value(bonus[0]));
            }
            pays
        }
        Face::PullTab { windows } => windows
            .iter()
            .filter(|w| w[0] == w[1] && w[1] == w[2])
            .filter_map(|w| {
                let name = &game.symbols.get(usize::from(w[0]))?.name;
                game.legend.iter().find(|l| l.symbol.as_ref() == Some(name)).map(|l| l.prize_cents)
            })
            .collect(),
    }
}
