//! Check digits and ticket serials: the Luhn digit that instant barcodes and draw tickets'
//! serials carry, so a mistyped or misread number is caught at the counter before it is looked up.

use rand::Rng;

/// The Luhn check digit of `digits` (ASCII digits; anything else is skipped).
pub fn luhn_digit(digits: &str) -> u32 {
    // Double every second digit from the right, summing a doubled digit's digits.
    const DOUBLED: [u32; 10] = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9];
    let sum: u32 = digits
        .chars()
        .rev()
        .filter_map(|c| c.to_digit(10))
        .enumerate()
        .map(|(i, d)| if i.is_multiple_of(2) { DOUBLED.get(d as usize).copied().unwrap_or(0) } else { d })
        .fold(0u32, u32::wrapping_add);
    (10u32.wrapping_sub(sum.checked_rem(10).unwrap_or(0))).checked_rem(10).unwrap_or(0)
}

/// The smallest and one past the largest serial body: always 18 digits.
const BODY_FROM: i64 = 100_000_000_000_000_000;
const BODY_TO: i64 = 1_000_000_000_000_000_000;

/// A draw ticket's serial: 18 random digits from the server's generator and their Luhn digit,
/// 19 in all, printed `DDDD-DDDD-DDDD-DDDD-DDD`. It says nothing about the ticket (not its
/// plays, draws, cost, seller or time) and cannot be guessed from another ticket's: holding it
/// is what lets a ticket be claimed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TicketSerial(i64);

/// A serial that is not 19 digits with a good check digit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SerialError {
    #[error("a ticket serial is 19 digits (dashes and spaces allowed)")]
    Malformed,
    #[error("the serial's check digit does not match: misread or mistyped")]
    CheckDigit,
}

impl TicketSerial {
    /// Every serial's body, as stored: the range a serial is drawn from uniformly, so equal
    /// slices of it hold about as many tickets each.
    pub const BODIES: std::ops::Range<i64> = BODY_FROM..BODY_TO;

    /// A fresh serial from `rng` (a CSPRNG: serials must not be guessable).
    pub fn random(rng: &mut impl Rng) -> TicketSerial {
        TicketSerial(rng.random_range(BODY_FROM..BODY_TO))
    }

    /// The serial whose 18-digit body is `body`, as stored; none when it is not 18 digits.
    pub fn from_body(body: i64) -> Option<TicketSerial> {
        (BODY_FROM..BODY_TO).contains(&body).then_some(TicketSerial(body))
    }

    /// The 18-digit body, as stored.
    pub fn body(self) -> i64 {
        self.0
    }

    /// The 19 digits: the body and its check digit.
    pub fn digits(self) -> String {
        let body = self.0.to_string();
        format!("{body}{}", luhn_digit(&body))
    }

    /// Reads a serial as a scanner (19 raw digits) or a person (with dashes or spaces) types it.
    pub fn parse(text: &str) -> Result<TicketSerial, SerialError> {
        let digits: String = text.chars().filter(|c| !matches!(c, '-' | ' ')).collect();
        if digits.len() != 19 || !digits.chars().all(|c| c.is_ascii_digit()) {
            return Err(SerialError::Malformed);
        }
        let (body, check) = digits.split_at(18);
        let body_value: i64 = body.parse().map_err(|_| SerialError::Malformed)?;
        let serial = TicketSerial::from_body(body_value).ok_or(SerialError::Malformed)?;
        if check.parse::<u32>().ok() != Some(luhn_digit(body)) {
            return Err(SerialError::CheckDigit);
        }
        Ok(serial)
    }
}

impl std::fmt::Display for TicketSerial {
    /// `DDDD-DDDD-DDDD-DDDD-DDD`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let digits = self.digits();
        let groups: Vec<&str> =
            [0..4, 4..8, 8..12, 12..16, 16..19].into_iter().filter_map(|r| digits.get(r)).collect();
        f.write_str(&groups.join("-"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn luhn_matches_the_textbook_example() {
        // 7992739871 has check digit 3.
        assert_eq!(luhn_digit("7992739871"), 3);
    }

    #[test]
    fn a_serial_reads_back_in_both_forms_and_catches_every_single_digit_error() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
        for _ in 0..200 {
            let serial = TicketSerial::random(&mut rng);
            let printed = serial.to_string();
            assert_eq!(printed.len(), 23, "{printed}");
            assert_eq!(TicketSerial::parse(&printed), Ok(serial));
            assert_eq!(TicketSerial::parse(&serial.digits()), Ok(serial));
            let digits = serial.digits();
            for i in 0..digits.len() {
                for d in b'0'..=b'9' {
                    let mut wrong = digits.clone().into_bytes();
                    if wrong[i] == d {
                        continue;
                    }
                    wrong[i] = d;
                    let wrong = String::from_utf8(wrong).unwrap();
                    assert!(TicketSerial::parse(&wrong).is_err(), "{wrong} passed for {digits}");
                }
            }
        }
        assert_eq!(TicketSerial::parse("12-34"), Err(SerialError::Malformed));
        assert_eq!(TicketSerial::parse("0000000000000000000"), Err(SerialError::Malformed));
    }
}
