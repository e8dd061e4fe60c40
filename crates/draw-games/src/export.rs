//! The frozen wager set's canonical export, read back (docs/formats/powerball-wager-set.md):
//! the independent recount `lotto verify-draw` makes from the file alone, with the rules of
//! `domain` and no database. The service finds winners in SQL; this counts them line by line,
//! so the two agree only if both are right.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use domain::powerball::Board;
use domain::powerball::drawing::{Results, Tally, TierResult};
use sha2::{Digest, Sha256};

/// The first line of every export.
pub const EXPORT_HEADER: &str = "serial|board|w1|w2|w3|w4|w5|powerball|power_play|online";

/// A play as the export writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExportedPlay {
    /// The ticket's serial without its check digit (18 digits).
    pub serial: i64,
    pub board: u8,
    pub whites: [u8; 5],
    pub powerball: u8,
    pub power_play: bool,
    pub online: bool,
}

impl ExportedPlay {
    /// Appends the play's line (`serial|board|w1|w2|w3|w4|w5|powerball|power_play|online\n`).
    /// Written digit by digit: ten million lines are a large drawing's export.
    pub fn write_line(&self, out: &mut Vec<u8>) {
        write_digits(out, u64::try_from(self.serial).unwrap_or(0));
        for n in [self.board, self.whites[0], self.whites[1], self.whites[2], self.whites[3], self.whites[4]] {
            out.push(b'|');
            write_digits(out, u64::from(n));
        }
        out.push(b'|');
        write_digits(out, u64::from(self.powerball));
        out.extend_from_slice(if self.power_play { b"|1" } else { b"|0" });
        out.extend_from_slice(if self.online { b"|1\n" } else { b"|0\n" });
    }
}

/// `n` in decimal, without leading zeros.
fn write_digits(out: &mut Vec<u8>, n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at = at.saturating_sub(1);
        if let Some(d) = digits.get_mut(at) {
            *d = b'0'.saturating_add(u8::try_from(rest % 10).unwrap_or(0));
        }
        rest /= 10;
        if rest == 0 || at == 0 {
            break;
        }
    }
    out.extend_from_slice(digits.get(at..).unwrap_or_default());
}

/// What the recount found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recount {
    /// The file's SHA-256, every byte of it.
    pub sha256: [u8; 32],
    pub plays: u64,
    /// Every tier with and without Power Play, in the chart's order.
    pub prize_table: Vec<TierResult>,
}

/// An export that cannot be read, or that breaks its format or the rules.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("cannot read the export: {0}")]
    Io(#[from] std::io::Error),
    #[error("line {line}: {reason}")]
    Malformed { line: u64, reason: String },
}

/// Hashes the bytes read through it.
struct Hashing<R> {
    inner: R,
    hash: Sha256,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hash.update(buf.get(..n).unwrap_or_default());
        Ok(n)
    }
}

/// Recounts every play of the export at `path` against `results`, the grand prize pool being
/// `grand_pool_cents`.
pub fn recount(path: &Path, results: &Results, grand_pool_cents: i64) -> Result<Recount, ExportError> {
    let file = std::fs::File::open(path)?;
    let mut reader = BufReader::with_capacity(1 << 20, Hashing { inner: file, hash: Sha256::new() });
    let mut tally = Tally::default();
    // Read as bytes, a line and its fields in place: a large drawing's export is ten million
    // lines (one String and one Vec a line took 3.8 s of them; issue 52).
    let mut line = Vec::new();
    let mut number = 0u64;
    let malformed = |line: u64, reason: &str| ExportError::Malformed { line, reason: reason.to_owned() };
    while {
        line.clear();
        reader.read_until(b'\n', &mut line)? > 0
    } {
        number = number.saturating_add(1);
        let text = line.strip_suffix(b"\n").ok_or_else(|| malformed(number, "the line does not end"))?;
        if number == 1 {
            if text != EXPORT_HEADER.as_bytes() {
                return Err(malformed(1, "not a Powerball wager-set export (the header differs)"));
            }
            continue;
        }
        let mut fields = text.split(|&b| b == b'|');
        let mut field = [&[][..]; 10];
        for slot in &mut field {
            *slot = fields.next().ok_or_else(|| malformed(number, "a play has ten fields"))?;
        }
        let [_serial, _board, w1, w2, w3, w4, w5, powerball, power_play, _online] = field;
        if fields.next().is_some() {
            return Err(malformed(number, "a play has ten fields"));
        }
        let number_of = |s: &[u8]| small_number(s).ok_or_else(|| malformed(number, "a number is not 0 to 255"));
        let whites = [number_of(w1)?, number_of(w2)?, number_of(w3)?, number_of(w4)?, number_of(w5)?];
        let board =
            Board::new(&whites, number_of(powerball)?).map_err(|e| malformed(number, &e.to_string()))?;
        let power_play = match power_play {
            b"1" => true,
            b"0" => false,
            _ => return Err(malformed(number, "power_play is 0 or 1")),
        };
        tally.add(&board, power_play, results);
    }
    if number == 0 {
        return Err(malformed(1, "the export is empty (not even its header)"));
    }
    let sha256 = reader.into_inner().hash.finalize().into();
    Ok(Recount { sha256, plays: tally.plays(), prize_table: tally.prize_table(results, grand_pool_cents) })
}

/// A decimal number from 0 to 255 written without sign or space (as `u8`'s parse takes it, but
/// for a leading `+`, which the format never writes).
fn small_number(digits: &[u8]) -> Option<u8> {
    if digits.is_empty() || digits.len() > 3 {
        return None;
    }
    digits.iter().try_fold(0u16, |n, &d| d.is_ascii_digit().then(|| n * 10 + u16::from(d - b'0'))).and_then(|n| u8::try_from(n).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_play_is_written_as_the_format_says() {
        let mut out = Vec::new();
        let play = ExportedPlay {
            serial: 100_000_000_000_000_007,
            board: 10,
            whites: [1, 9, 10, 45, 69],
            powerball: 26,
            power_play: true,
            online: false,
        };
        play.write_line(&mut out);
        ExportedPlay { serial: 999_999_999_999_999_999, board: 1, power_play: false, online: true, ..play }
            .write_line(&mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "100000000000000007|10|1|9|10|45|69|26|1|0\n999999999999999999|1|1|9|10|45|69|26|0|1\n"
        );
    }

    #[test]
    fn numbers_are_read_as_written() {
        for (digits, n) in [(&b"0"[..], Some(0)), (b"7", Some(7)), (b"069", Some(69)), (b"255", Some(255))] {
            assert_eq!(small_number(digits), n);
        }
        for digits in [&b""[..], b"256", b"1000", b"+1", b"-1", b" 1", b"1a"] {
            assert_eq!(small_number(digits), None, "{digits:?}");
        }
    }
}
