//! The staff's second factor, its parts (issue 49 §Staff): TOTP (RFC 6238: HMAC-SHA-1, six
//! digits, 30-second steps, a step of clock drift either way), its `otpauth://` address drawn as
//! a QR code for an authenticator app, and one-time recovery codes.

use platform::AppError;
use sha2::{Digest, Sha256};
use totp_rs::{Algorithm, Builder, Totp};

/// How the authenticator app names the account's issuer.
pub const ISSUER: &str = "Lottery";

/// Recovery codes made at enrolment, each usable once.
pub const RECOVERY_CODES: usize = 10;

/// A new TOTP secret: 160 random bits (RFC 4226 §4's recommendation).
pub fn new_secret() -> Vec<u8> {
    platform::auth::random_bytes::<20>().to_vec()
}

/// The TOTP of `secret` for staff member `username`.
pub fn totp(secret: &[u8], username: &str) -> Result<Totp, AppError> {
    Builder::new()
        .with_algorithm(Algorithm::SHA1)
        .with_digits(6)
        .with_step_duration(30)
        .with_skew(1)
        .with_secret(secret.to_vec())
        .with_account_name(username)
        .with_issuer(Some(ISSUER))
        .build()
        .map_err(|e| AppError::internal(format!("a TOTP secret: {e}")))
}

/// The time step of `code` for `totp` at `now` (unix seconds), if it is the code of a step
/// within a step of now; a code is six digits (spaces ignored).
pub fn step_of(totp: &Totp, code: &str, now: u64) -> Option<u64> {
    let digits: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    if digits.len() != 6 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    totp.check(&digits, now)
}

/// `text` (an `otpauth://` address) as a QR code, in SVG: black modules on white, with the
/// four-module quiet zone the standard asks for.
pub fn qr_svg(text: &str) -> Result<String, AppError> {
    let code = qrcodegen::QrCode::encode_text(text, qrcodegen::QrCodeEcc::Medium)
        .map_err(|_| AppError::internal("the enrolment address is too long for a QR code"))?;
    let size = code.size();
    let mut path = String::new();
    for y in 0..size {
        for x in 0..size {
            if code.get_module(x, y) {
                path.push_str(&format!("M{},{}h1v1h-1z", x + 4, y + 4));
            }
        }
    }
    let side = size + 8;
    Ok(format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {side} {side}\" shape-rendering=\"crispEdges\">\
         <rect width=\"100%\" height=\"100%\" fill=\"#fff\"/><path d=\"{path}\" fill=\"#000\"/></svg>"
    ))
}

/// The letters of recovery codes: no 0/o, 1/l/i, so a code read aloud or typed is the code.
const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";

/// Ten new recovery codes (`xxxx-xxxx-xxxx`, 59 random bits each).
pub fn new_recovery_codes() -> Vec<String> {
    (0..RECOVERY_CODES)
        .map(|_| {
            let bytes = platform::auth::random_bytes::<12>();
            let letters: Vec<char> =
                bytes.iter().map(|b| char::from(ALPHABET[usize::from(*b) % ALPHABET.len()])).collect();
            letters.chunks(4).map(|c| c.iter().collect::<String>()).collect::<Vec<_>>().join("-")
        })
        .collect()
}

/// What is kept of a recovery code: the SHA-256 of its letters (as typed, in any case, dashes
/// and spaces aside). The code is random enough that no slow hash is needed.
pub fn recovery_digest(code: &str) -> Vec<u8> {
    let letters: String =
        code.chars().filter(|c| c.is_ascii_alphanumeric()).map(|c| c.to_ascii_lowercase()).collect();
    Sha256::digest(letters.as_bytes()).to_vec()
}

#[cfg(test)]
mod tests {
    use super::{new_recovery_codes, qr_svg, recovery_digest, step_of, totp};

    /// RFC 6238 appendix B's SHA-1 vectors (eight digits there; their last six here).
    #[test]
    fn codes_are_rfc_6238s_and_taken_within_a_step_of_now() {
        let totp = totp(b"12345678901234567890", "ops").unwrap();
        for (time, code) in [(59, "287082"), (1_111_111_109, "081804"), (1_234_567_890, "005924")] {
            assert_eq!(totp.generate(time).to_string(), code);
            assert_eq!(step_of(&totp, code, time), Some(time / 30));
        }
        assert_eq!(step_of(&totp, "287 082", 59 + 30), Some(1), "a step late is taken");
        assert_eq!(step_of(&totp, "287082", 59 + 90), None, "three steps late is not");
        assert_eq!(step_of(&totp, "28708", 59), None);
        assert_eq!(step_of(&totp, "2870821", 59), None);
    }

    #[test]
    fn recovery_codes_are_distinct_and_read_in_any_case() {
        let codes = new_recovery_codes();
        assert_eq!(codes.len(), 10);
        assert!(codes.iter().all(|c| c.len() == 14 && c.matches('-').count() == 2), "{codes:?}");
        let mut unique = codes.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 10);
        assert_eq!(recovery_digest(&codes[0]), recovery_digest(&codes[0].to_uppercase().replace('-', " ")));
    }

    #[test]
    fn the_qr_code_is_an_svg() {
        let svg = qr_svg("otpauth://totp/Lottery:ops?secret=ABC&issuer=Lottery").unwrap();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>") && svg.contains("h1v1h-1z"));
    }
}
