//! Super Red Hot Crossword's faces (K.A.R. 111-4-3661(e), (f)): twenty YOUR LETTERS, a black
//! (top) and a red (bottom) crossword grid, and a BONUS area of two prize symbols.
//!
//! A word is every unbroken string of three or more letter squares between black spaces, read
//! left to right or top to bottom (111-4-3661(f)(1)-(4)); it is completed when every one of its
//! letters is among YOUR LETTERS ((f)(5)). The crossword pays the highest legend line whose black
//! and red word counts the ticket reaches ((e): "only the highest corresponding prize"); the bonus
//! pays when its two prize symbols match.
//!
//! Printing a face: grids are filled from a word list written for this game (`words.txt`) over
//! one layout and its mirror and transposes, a library of them made once per pool. A ticket
//! draws a black and a red grid, chooses which words it completes (exactly the legend line's
//! counts for a winner; three words or fewer for a loser, which no line pays however the legend
//! is read) and then the six letters left out, so that every other word lacks one of them.

use rand::Rng;

use super::GameDefinition;
use super::PrintError;

/// Rows and columns of a grid.
pub const SIDE: usize = 10;
/// How many letters YOUR LETTERS shows (111-4-3661(e)).
pub const YOUR_LETTERS: u32 = 20;

/// The layout every grid is filled over, or its mirror or transpose: `.` a letter square, `#` a
/// black space. Twelve words of four to seven letters, each crossing at least one other.
const LAYOUT: [&str; SIDE] = [
    "......####",
    ".##.#.####",
    ".##.#.####",
    ".#.......#",
    ".#.##.##.#",
    ".#.##.##.#",
    ".....#....",
    "##.#.#.#.#",
    "##.#.#.#.#",
    "#.......##",
];

/// The words grids are filled with, written for this game.
const WORDS: &str = include_str!("words.txt");

/// A square's index in a grid's text, row by row.
fn square(row: usize, column: usize) -> usize {
    row.wrapping_mul(SIDE).wrapping_add(column)
}

fn letter_bit(letter: u8) -> u32 {
    if letter.is_ascii_uppercase() { 1u32 << (letter.wrapping_sub(b'A') & 31) } else { 0 }
}

/// The letters of `text` as a set.
pub fn letter_set(text: &[u8]) -> u32 {
    text.iter().fold(0, |set, &b| set | letter_bit(b))
}

/// The words of a grid (rows of `SIDE` squares, `#` black): each the indexes of its squares.
pub fn words_of(grid: &[u8]) -> Vec<Vec<usize>> {
    let rows = (0..SIDE).map(|r| (0..SIDE).map(|c| square(r, c)).collect::<Vec<_>>());
    let columns = (0..SIDE).map(|c| (0..SIDE).map(|r| square(r, c)).collect::<Vec<_>>());
    let mut words = Vec::new();
    for line in rows.chain(columns) {
        let mut run = Vec::new();
        // A black space, or the grid's edge, ends a run.
        for i in line.into_iter().chain(std::iter::once(usize::MAX)) {
            if grid.get(i).is_some_and(|&b| b != b'#') {
                run.push(i);
            } else if run.len() >= 3 {
                words.push(std::mem::take(&mut run));
            } else {
                run.clear();
            }
        }
    }
    words
}

fn word_letters(grid: &[u8], word: &[usize]) -> u32 {
    word.iter().filter_map(|&i| grid.get(i)).fold(0, |set, &b| set | letter_bit(b))
}

/// How many of a grid's words YOUR LETTERS complete.
pub fn completed_words(grid: &[u8], letters: u32) -> usize {
    words_of(grid).iter().filter(|w| word_letters(grid, w) & !letters == 0).count()
}

/// A line of the crossword's prize legend: so many black and red words win this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Find {
    pub black: usize,
    pub red: usize,
    pub prize_cents: i64,
    pub free_ticket: bool,
}

/// "2 black words + 3 red words" → (2, 3).
fn parse_find(text: &str) -> Option<(usize, usize)> {
    let (mut black, mut red) = (0, 0);
    for part in text.split('+') {
        let mut words = part.split_whitespace();
        let count: usize = words.next()?.parse().ok()?;
        match (words.next()?, words.next()?) {
            ("black", "words") => black = count,
            ("red", "words") => red = count,
            _ => return None,
        }
    }
    Some((black, red))
}

/// The crossword's legend lines, checked so that a ticket completing exactly a line's words wins
/// that line and nothing higher.
pub fn legend(game: &GameDefinition) -> Result<Vec<Find>, PrintError> {
    let lines: Vec<Find> = game
        .legend
        .iter()
        .filter(|l| l.area.as_deref() == Some("crossword"))
        .map(|l| {
            let find = l.find.as_deref().unwrap_or_default();
            let (black, red) = parse_find(find)
                .ok_or_else(|| PrintError::Unsupported(format!("cannot read the legend line {find:?}")))?;
            Ok(Find { black, red, prize_cents: l.prize_cents, free_ticket: l.free_ticket })
        })
        .collect::<Result<_, PrintError>>()?;
    for line in &lines {
        if prize_for(&lines, line.black, line.red) != Some(*line) {
            return Err(PrintError::Unsupported(format!(
                "{} black and {} red words would win more than their own line",
                line.black, line.red
            )));
        }
        if line.black.saturating_add(line.red) <= 3 {
            return Err(PrintError::Unsupported("a legend line pays three words or fewer".to_owned()));
        }
    }
    Ok(lines)
}

/// The highest line the counts reach, if any (111-4-3661(e)).
pub fn prize_for(legend: &[Find], black: usize, red: usize) -> Option<Find> {
    legend.iter().filter(|f| black >= f.black && red >= f.red).max_by_key(|f| f.prize_cents).copied()
}

/// The word list by length.
struct Lexicon {
    by_length: Vec<Vec<&'static [u8]>>,
}

impl Lexicon {
    fn new() -> Lexicon {
        let mut by_length: Vec<Vec<&'static [u8]>> = vec![Vec::new(); SIDE.saturating_add(1)];
        for word in WORDS.split_whitespace() {
            if word.bytes().all(|b| b.is_ascii_uppercase())
                && let Some(list) = by_length.get_mut(word.len())
                && !list.contains(&word.as_bytes())
            {
                list.push(word.as_bytes());
            }
        }
        Lexicon { by_length }
    }

    fn of_length(&self, length: usize) -> &[&'static [u8]] {
        self.by_length.get(length).map_or(&[], Vec::as_slice)
    }
}

/// The layout, its mirror, and the transposes of both.
fn layouts() -> Vec<Vec<u8>> {
    let base: Vec<u8> = LAYOUT.iter().flat_map(|row| row.bytes()).collect();
    let at = |grid: &[u8], r: usize, c: usize| grid.get(square(r, c)).copied().unwrap_or(b'#');
    let mirror: Vec<u8> = (0..SIDE)
        .flat_map(|r| (0..SIDE).map(move |c| (r, c)))
        .map(|(r, c)| at(&base, r, SIDE.saturating_sub(1).saturating_sub(c)))
        .collect();
    let transpose = |grid: &[u8]| -> Vec<u8> {
        (0..SIDE).flat_map(|r| (0..SIDE).map(move |c| (r, c))).map(|(r, c)| at(grid, c, r)).collect()
    };
    let (base_t, mirror_t) = (transpose(&base), transpose(&mirror));
    vec![base, mirror, base_t, mirror_t]
}

/// The order words are filled in: the longest first, then always the one crossing the most
/// squares already filled, so each choice is as constrained as it can be.
fn fill_order(words: &[Vec<usize>]) -> Vec<usize> {
    let mut order: Vec<usize> = Vec::with_capacity(words.len());
    let mut filled: Vec<usize> = Vec::new();
    while order.len() < words.len() {
        let next = (0..words.len())
            .filter(|i| !order.contains(i))
            .max_by_key(|&i| {
                let word = words.get(i).map_or(&[][..], Vec::as_slice);
                (word.iter().filter(|s| filled.contains(s)).count(), word.len())
            })
            .unwrap_or(0);
        order.push(next);
        filled.extend(words.get(next).into_iter().flatten());
    }
    order
}

/// Fills `grid`'s words in `order` by backtracking from random starting points in the word
/// list, no word twice; gives up when `budget` tries are spent.
fn place(
    grid: &mut [u8],
    words: &[Vec<usize>],
    order: &[usize],
    lexicon: &Lexicon,
    used: &mut Vec<&'static [u8]>,
    budget: &mut u32,
    rng: &mut impl Rng,
) -> bool {
    let Some((&first, rest)) = order.split_first() else { return true };
    let Some(word) = words.get(first) else { return false };
    let pattern: Vec<u8> = word.iter().map(|&i| grid.get(i).copied().unwrap_or(b'#')).collect();
    let candidates = lexicon.of_length(word.len());
    if candidates.is_empty() {
        return false;
    }
    let start = rng.random_range(0..candidates.len());
    for k in 0..candidates.len() {
        if *budget == 0 {
            return false;
        }
        *budget = budget.saturating_sub(1);
        let Some(&candidate) =
            candidates.get(start.wrapping_add(k).checked_rem(candidates.len()).unwrap_or(0))
        else {
            continue;
        };
        if used.contains(&candidate) || !pattern.iter().zip(candidate).all(|(&p, &c)| p == b'.' || p == c) {
            continue;
        }
        for (&i, &c) in word.iter().zip(candidate) {
            if let Some(s) = grid.get_mut(i) {
                *s = c;
            }
        }
        used.push(candidate);
        if place(grid, words, rest, lexicon, used, budget, rng) {
            return true;
        }
        used.pop();
        for (&i, &p) in word.iter().zip(&pattern) {
            if let Some(s) = grid.get_mut(i) {
                *s = p;
            }
        }
    }
    false
}

/// A filled grid with its words' letter sets.
#[derive(Debug, Clone)]
struct Filled {
    text: Vec<u8>,
    words: Vec<u32>,
}

/// The grids a pool's tickets are printed with.
#[derive(Debug, Clone)]
pub struct Library {
    grids: Vec<Filled>,
}

impl Library {
    /// `size` grids filled at random (at least two, so a ticket's two grids differ).
    pub fn new(size: usize, rng: &mut impl Rng) -> Result<Library, PrintError> {
        let lexicon = Lexicon::new();
        // Each layout with its words and the order they are filled in.
        let layouts: Vec<_> = layouts()
            .into_iter()
            .map(|layout| {
                let words = words_of(&layout);
                let order = fill_order(&words);
                (layout, words, order)
            })
            .collect();
        let mut grids = Vec::with_capacity(size.max(2));
        let mut failures = 0u32;
        while grids.len() < size.max(2) {
            let Some((layout, words, order)) =
                layouts.get(grids.len().checked_rem(layouts.len()).unwrap_or(0))
            else {
                break;
            };
            let mut grid = layout.clone();
            let (mut used, mut budget) = (Vec::new(), 20_000u32);
            if place(&mut grid, words, order, &lexicon, &mut used, &mut budget, rng) {
                let letters = words.iter().map(|w| word_letters(&grid, w)).collect();
                grids.push(Filled { text: grid, words: letters });
            } else {
                failures = failures.saturating_add(1);
                if failures > 1_000 {
                    return Err(PrintError::Unsupported("the word list cannot fill the layout".to_owned()));
                }
            }
        }
        Ok(Library { grids })
    }
}

/// `count` distinct indexes of `0..n`, at random.
fn sample(n: usize, count: usize, rng: &mut impl Rng) -> Vec<usize> {
    let mut all: Vec<usize> = (0..n).collect();
    for i in 0..count.min(n) {
        let j = rng.random_range(i..n);
        all.swap(i, j);
    }
    all.truncate(count);
    all
}

/// Tries before a ticket's choice of grids and words is given up.
const ATTEMPTS: u32 = 10_000;

/// YOUR LETTERS and the two grids for a ticket completing exactly `black` and `red` words.
pub fn crossword_play(
    library: &Library,
    black: usize,
    red: usize,
    rng: &mut impl Rng,
) -> Result<(String, String, String), PrintError> {
    let n = library.grids.len();
    for _ in 0..ATTEMPTS {
        let (b, r) = (rng.random_range(0..n), rng.random_range(0..n));
        let (Some(top), Some(bottom)) = (library.grids.get(b), library.grids.get(r)) else { continue };
        if b == r || black > top.words.len() || red > bottom.words.len() {
            continue;
        }
        let (chosen_black, chosen_red) =
            (sample(top.words.len(), black, rng), sample(bottom.words.len(), red, rng));
        let pick = |grid: &Filled, chosen: &[usize], want: bool| -> Vec<u32> {
            grid.words
                .iter()
                .enumerate()
                .filter(|(i, _)| chosen.contains(i) == want)
                .map(|(_, &w)| w)
                .collect()
        };
        let completed = pick(top, &chosen_black, true).into_iter().chain(pick(bottom, &chosen_red, true));
        let needed = completed.fold(0u32, |set, w| set | w);
        if needed.count_ones() > YOUR_LETTERS {
            continue;
        }
        // Every other word must lack a letter left out: choose those letters greedily.
        let mut others: Vec<u32> = pick(top, &chosen_black, false)
            .into_iter()
            .chain(pick(bottom, &chosen_red, false))
            .map(|w| w & !needed)
            .collect();
        if others.contains(&0) {
            continue;
        }
        let left_out_count = 26u32.saturating_sub(YOUR_LETTERS);
        let mut left_out = 0u32;
        while !others.is_empty() && left_out.count_ones() <= left_out_count {
            let best = (0u8..26)
                .map(|l| 1u32 << l)
                .filter(|&bit| needed & bit == 0 && left_out & bit == 0)
                .max_by_key(|&bit| (others.iter().filter(|&&w| w & bit != 0).count(), rng.random::<u16>()))
                .unwrap_or(0);
            left_out |= best;
            others.retain(|&w| w & left_out == 0);
        }
        if !others.is_empty() || left_out.count_ones() > left_out_count {
            continue;
        }
        while left_out.count_ones() < left_out_count {
            let bit = 1u32 << rng.random_range(0u8..26);
            if needed & bit == 0 {
                left_out |= bit;
            }
        }
        let mut letters: Vec<u8> = (b'A'..=b'Z').filter(|&l| left_out & letter_bit(l) == 0).collect();
        for i in (1..letters.len()).rev() {
            letters.swap(i, rng.random_range(0..=i));
        }
        let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        return Ok((text(&letters), text(&top.text), text(&bottom.text)));
    }
    Err(PrintError::Unsupported(format!(
        "no crossword completing {black} black and {red} red words was found"
    )))
}
