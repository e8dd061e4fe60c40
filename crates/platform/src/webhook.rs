//! Signed webhooks: how a payment provider proves a callback is its own (architecture §2).
//!
//! The scheme the large payment providers use: the provider sends
//! `Lotto-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>` where the HMAC, under the secret both
//! sides share, covers `"<t>.<raw body>"`. The receiver recomputes it over the bytes it received,
//! compares in constant time, and refuses a timestamp outside its replay window, so a captured
//! request cannot be sent again later. (A replay inside the window is stopped by the receiver's
//! idempotency per event id.)

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The header carrying the signature.
pub const SIGNATURE_HEADER: &str = "lotto-signature";

/// A webhook secret: never printed.
#[derive(Clone)]
pub struct WebhookSecret(Vec<u8>);

impl std::fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WebhookSecret(hidden)")
    }
}

impl WebhookSecret {
    pub fn new(secret: impl Into<Vec<u8>>) -> WebhookSecret {
        WebhookSecret(secret.into())
    }

    /// 32 random bytes, for a process that signs and verifies its own callbacks (the sandbox).
    pub fn random() -> WebhookSecret {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).unwrap_or_default();
        WebhookSecret(bytes.to_vec())
    }

    /// The MAC of `"<timestamp>.<body>"`; HMAC takes a key of any length, so this is always
    /// `Some`.
    fn mac(&self, timestamp: i64, body: &[u8]) -> Option<Hmac<Sha256>> {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.0).ok()?;
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        Some(mac)
    }

    /// The header value for `body` sent at `timestamp` (unix seconds).
    pub fn sign(&self, timestamp: i64, body: &[u8]) -> String {
        let digest = self.mac(timestamp, body).map(|m| hex::encode(m.finalize().into_bytes()));
        format!("t={timestamp},v1={}", digest.unwrap_or_default())
    }

    /// Checks a received header against the body, at `now` (unix seconds), allowing timestamps
    /// up to `tolerance_seconds` away.
    pub fn verify(
        &self,
        header: &str,
        body: &[u8],
        now: i64,
        tolerance_seconds: i64,
    ) -> Result<(), SignatureError> {
        let mut timestamp = None;
        let mut signatures = Vec::new();
        for part in header.split(',') {
            match part.trim().split_once('=') {
                Some(("t", t)) => timestamp = t.parse::<i64>().ok(),
                Some(("v1", v)) => signatures.extend(hex::decode(v).ok()),
                _ => {}
            }
        }
        let timestamp = timestamp.ok_or(SignatureError::Malformed)?;
        if signatures.is_empty() {
            return Err(SignatureError::Malformed);
        }
        if now.abs_diff(timestamp) > tolerance_seconds.unsigned_abs() {
            return Err(SignatureError::OutsideWindow);
        }
        // `verify_slice` compares in constant time.
        if signatures.iter().any(|s| self.mac(timestamp, body).is_some_and(|m| m.verify_slice(s).is_ok())) {
            Ok(())
        } else {
            Err(SignatureError::Mismatch)
        }
    }
}

/// Why a signature was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("the signature header is missing or malformed")]
    Malformed,
    #[error("the signature's timestamp is outside the replay window")]
    OutsideWindow,
    #[error("the signature does not match the body")]
    Mismatch,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_holds_only_for_its_body_secret_and_window() {
        let secret = WebhookSecret::new("a shared secret of thirty-two bytes!");
        let body = br#"{"id":"evt_1"}"#;
        let header = secret.sign(1_000, body);
        assert_eq!(secret.verify(&header, body, 1_100, 300), Ok(()));
        assert_eq!(secret.verify(&header, b"{}", 1_100, 300), Err(SignatureError::Mismatch));
        assert_eq!(
            WebhookSecret::new("another").verify(&header, body, 1_100, 300),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(secret.verify(&header, body, 1_301, 300), Err(SignatureError::OutsideWindow));
        assert_eq!(secret.verify(&header, body, 699, 300), Err(SignatureError::OutsideWindow));
        assert_eq!(secret.verify("v1=00", body, 1_000, 300), Err(SignatureError::Malformed));
        assert_eq!(secret.verify("t=1000", body, 1_000, 300), Err(SignatureError::Malformed));
        // A rotated secret: any of several v1 signatures may match.
        let rotated = format!("{header},v1={}", "ab".repeat(32));
        assert_eq!(secret.verify(&rotated, body, 1_000, 300), Ok(()));
        assert!(!format!("{secret:?}").contains("shared"));
    }
}
