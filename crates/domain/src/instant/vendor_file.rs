//! A printing vendor's validation file, checked (docs/formats/vendor-validation-file.md): when the
//! vendor generates a run, the lottery imports the tickets it printed and accepts them only if
//! they hold exactly what the game's definition orders, with the checks a generated run passes by
//! construction: every book whole and in order, each barcode the ticket's own with its check
//! digit, each VIRN twelve digits, each face paying exactly the ticket's prize, and the prize rows'
//! counts and the total equal to the definition's. A file that fails any check is refused whole;
//! [`VendorRunCheck`] gathers every reason (the first [`MAX_REASONS`]) so the vendor can fix them
//! all at once.

use super::GameDefinition;
use super::print_run::{Face, PrintedTicket, barcode, face_pays, virn_digits};

/// The most reasons a refusal lists; beyond, it says how many more there were.
pub const MAX_REASONS: usize = 20;

/// One ticket line as the vendor wrote it.
#[derive(Debug, Clone, Copy)]
pub struct VendorTicket<'a> {
    pub book: &'a str,
    pub ticket: &'a str,
    pub barcode: &'a str,
    pub virn: &'a str,
    /// The prize's composition in cents, `+` between parts (`500+500`); empty for none.
    pub prize: &'a str,
    pub face: &'a str,
}

/// The checks of a vendor's run, fed one ticket at a time in file order.
#[derive(Debug)]
pub struct VendorRunCheck<'g> {
    game: &'g GameDefinition,
    won: Vec<u64>,
    tickets: u64,
    first_book: Option<u32>,
    /// The (book, ticket) the next line must be.
    next: Option<(u32, u32)>,
    reasons: Vec<String>,
    more: usize,
}

/// What a vendor's run holds once every check passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VendorRun {
    pub first_book: u32,
    pub last_book: u32,
    pub tickets: u64,
}

impl<'g> VendorRunCheck<'g> {
    pub fn new(game: &'g GameDefinition) -> Self {
        VendorRunCheck {
            game,
            won: vec![0; game.prizes.len()],
            tickets: 0,
            first_book: None,
            next: None,
            reasons: Vec::new(),
            more: 0,
        }
    }

    #[allow(clippy::needless_pass_by_value)] // every caller formats its reason on the spot
    fn refuse(&mut self, line: usize, reason: String) {
        if self.reasons.len() < MAX_REASONS {
            self.reasons.push(format!("line {line}: {reason}"));
        } else {
            self.more = self.more.saturating_add(1);
        }
    }

    /// A reason that belongs to no one ticket line (the header, the end line).
    pub fn refuse_file(&mut self, line: usize, reason: &str) {
        self.refuse(line, reason.to_owned());
    }

    /// Checks the ticket on line `line`; answers it as the lottery stores it, or none when it
    /// cannot be read (the reason is kept).
    pub fn ticket(&mut self, line: usize, t: VendorTicket<'_>) -> Option<PrintedTicket> {
        let range = self.game.ticket_numbers;
        let (Ok(book), Ok(ticket)) = (t.book.parse::<u32>(), t.ticket.parse::<u32>()) else {
            self.refuse(line, "the book and the ticket are numbers".to_owned());
            return None;
        };
        self.tickets = self.tickets.saturating_add(1);
        let expected = match self.next {
            None => {
                self.first_book = Some(book);
                (book, range.first)
            }
            Some(next) => next,
        };
        if (book, ticket) != expected {
            self.refuse(
                line,
                format!(
                    "ticket {book}-{ticket} where {}-{} comes next (every book whole, in order)",
                    expected.0, expected.1
                ),
            );
        }
        self.next = Some(if ticket >= range.last {
            (book.saturating_add(1), range.first)
        } else {
            (book, ticket.saturating_add(1))
        });
        let printed = barcode(self.game.number, book, ticket);
        if t.barcode != printed {
            self.refuse(
                line,
                format!("the barcode {} is not ticket {book}-{ticket}'s ({printed})", t.barcode),
            );
        }
        let Some(virn) = virn_digits(t.virn).filter(|v| v == t.virn) else {
            self.refuse(line, "the VIRN is not twelve digits".to_owned());
            return None;
        };
        let prize_row = if t.prize.is_empty() {
            None
        } else {
            let parts: Option<Vec<i64>> = t.prize.split('+').map(|p| p.parse().ok()).collect();
            let row = parts.and_then(|parts| self.game.prizes.iter().position(|p| p.composition == parts));
            if row.is_none() {
                self.refuse(line, format!("the prize {} is none of the game's prize rows", t.prize));
                return None;
            }
            row
        };
        let Some(face) = Face::from_text(self.game, t.face) else {
            self.refuse(line, "the face cannot be read as this game's".to_owned());
            return None;
        };
        let mut pays = face_pays(self.game, &face);
        let mut prize = prize_row
            .and_then(|r| self.game.prizes.get(r))
            .map(|p| p.composition.clone())
            .unwrap_or_default();
        pays.sort_unstable();
        prize.sort_unstable();
        if pays != prize {
            self.refuse(line, format!("the face pays {pays:?}, the ticket's prize is {prize:?}"));
        }
        if let Some(won) = prize_row.and_then(|r| self.won.get_mut(r)) {
            *won = won.saturating_add(1);
        }
        Some(PrintedTicket { pool: 0, book, ticket, barcode: printed, virn, prize_row, face })
    }

    /// The end of the file, which says how many tickets it holds: every count checked against
    /// the definition. Every reason the file is refused for, otherwise.
    pub fn finish(mut self, line: usize, end_count: Option<u64>) -> Result<VendorRun, Vec<String>> {
        match end_count {
            None => self.refuse(line, "the file has no end line: it is cut short".to_owned()),
            Some(n) if n != self.tickets => {
                self.refuse(
                    line,
                    format!("the end line counts {n} tickets; the file holds {}", self.tickets),
                );
            }
            Some(_) => {}
        }
        if self.tickets != self.game.tickets_ordered {
            let (held, ordered) = (self.tickets, self.game.tickets_ordered);
            self.refuse(line, format!("the run holds {held} tickets; the game orders {ordered}"));
        }
        if self.next.is_some_and(|(_, t)| t != self.game.ticket_numbers.first) {
            self.refuse(line, "the last book is not whole".to_owned());
        }
        for (row, prize) in self.game.prizes.iter().enumerate() {
            let won = self.won.get(row).copied().unwrap_or(0);
            if won != prize.count {
                let parts: Vec<String> = prize.composition.iter().map(i64::to_string).collect();
                self.refuse(
                    line,
                    format!("prize {}: {won} winners; the game has {}", parts.join("+"), prize.count),
                );
            }
        }
        let first_book = self.first_book.unwrap_or(0);
        let books = self.tickets.checked_div(self.game.ticket_numbers.tickets_per_book()).unwrap_or(0);
        if !self.reasons.is_empty() {
            if self.more > 0 {
                self.reasons.push(format!("and {} more", self.more));
            }
            return Err(self.reasons);
        }
        let last_book =
            u32::try_from(books).ok().and_then(|b| first_book.checked_add(b)).and_then(|b| b.checked_sub(1));
        last_book
            .map(|last_book| VendorRun { first_book, last_book, tickets: self.tickets })
            .ok_or_else(|| vec!["the run holds no book".to_owned()])
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::arithmetic_side_effects)]
mod tests {
    use super::*;
    use crate::instant::print_run::{pool_counts, print_pool};
    use rand::SeedableRng;

    fn game() -> GameDefinition {
        let text = include_str!("../../../../games/instant/283-hit-10.json");
        GameDefinition::load(text).unwrap().0.scaled(3_000, 800)
    }

    fn run(game: &GameDefinition) -> Vec<PrintedTicket> {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(5);
        let mut all = Vec::new();
        for (pool, counts) in pool_counts(game).iter().enumerate() {
            all.extend(print_pool(game, 40, u32::try_from(pool).unwrap(), counts, &mut rng).unwrap());
        }
        all
    }

    fn check(
        game: &GameDefinition,
        tickets: &[PrintedTicket],
        edit: impl Fn(usize, &mut [String; 6]),
    ) -> Result<VendorRun, Vec<String>> {
        let mut check = VendorRunCheck::new(game);
        for (i, t) in tickets.iter().enumerate() {
            let prize = t
                .prize_row
                .map(|r| game.prizes[r].composition.iter().map(i64::to_string).collect::<Vec<_>>().join("+"))
                .unwrap_or_default();
            let mut fields = [
                t.book.to_string(),
                t.ticket.to_string(),
                t.barcode.clone(),
                t.virn.clone(),
                prize,
                t.face.to_text(),
            ];
            edit(i, &mut fields);
            let [book, ticket, barcode, virn, prize, face] = &fields;
            check.ticket(i + 2, VendorTicket { book, ticket, barcode, virn, prize, face });
        }
        check.finish(tickets.len() + 2, Some(tickets.len() as u64))
    }

    #[test]
    fn a_run_as_the_definition_orders_it_passes() {
        let game = game();
        let tickets = run(&game);
        let per_book = game.ticket_numbers.tickets_per_book();
        let books = u32::try_from(tickets.len() as u64 / per_book).unwrap();
        assert_eq!(
            check(&game, &tickets, |_, _| {}),
            Ok(VendorRun { first_book: 40, last_book: 40 + books - 1, tickets: tickets.len() as u64 })
        );
    }

    #[test]
    fn every_wrong_line_is_a_reason_and_the_counts_are_checked() {
        let game = game();
        let tickets = run(&game);
        let winner = tickets.iter().position(|t| t.prize_row.is_some()).unwrap();
        let loser = tickets.iter().position(|t| t.prize_row.is_none()).unwrap();
        let reasons = check(&game, &tickets, |i, f| {
            if i == winner {
                f[4] = String::new(); // a winner sold as a loser: its face still pays
            }
            if i == loser {
                f[2] = "283-000000-000-0".to_owned();
                f[3] = "1234".to_owned();
            }
        })
        .unwrap_err();
        let all = reasons.join("\n");
        assert!(all.contains("the face pays"), "{all}");
        assert!(all.contains("is not ticket"), "{all}");
        assert!(all.contains("the VIRN is not twelve digits"), "{all}");
        assert!(all.contains("winners; the game has"), "{all}");
        // A book cut short is out of order.
        let mut short = tickets;
        short.remove(3);
        let reasons = check(&game, &short, |_, _| {}).unwrap_err().join("\n");
        assert!(reasons.contains("comes next") && reasons.contains("the game orders"), "{reasons}");
    }
}
