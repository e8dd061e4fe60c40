//! Secrets kept in the database sealed (ChaCha20-Poly1305 under a key kept outside it, as the
//! other secrets are): a player file's SSN digits (Illinois iLottery 1770.185) and the staff's
//! TOTP secrets.

use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use platform::AppError;
use platform::config::Secret;
use sha2::{Digest, Sha256};

/// The ChaCha20-Poly1305 key made from `key` (any length): its SHA-256.
fn cipher(key: &Secret) -> ChaCha20Poly1305 {
    let digest = Sha256::digest(key.expose());
    ChaCha20Poly1305::new(Key::from_slice(&digest))
}

/// `plain` sealed under `key`: a random nonce, then the ciphertext with its tag.
pub fn seal(key: &Secret, plain: &[u8]) -> Result<Vec<u8>, AppError> {
    let nonce = platform::auth::random_bytes::<12>();
    let sealed = cipher(key)
        .encrypt(Nonce::from_slice(&nonce), plain)
        .map_err(|_| AppError::internal("sealing a secret failed"))?;
    Ok([nonce.as_slice(), sealed.as_slice()].concat())
}

/// A keyed digest of `text` (HMAC-SHA-256 under `key`, for the use `label` names): what is
/// compared without being kept in the clear (the SSN's last four on a list and in a file; four
/// digits alone are guessed at once, so the digest is keyed).
pub fn keyed_digest(key: &Secret, label: &str, text: &str) -> Vec<u8> {
    use hmac::{Hmac, Mac, digest::KeyInit};
    // HMAC takes a key of any length.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key.expose())
        .unwrap_or_else(|_| <Hmac<Sha256> as KeyInit>::new(&Default::default()));
    mac.update(label.as_bytes());
    mac.update(&[0]);
    mac.update(text.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// What [`seal`] sealed under `key`; `None` when it was sealed under another key or altered.
pub fn open(key: &Secret, sealed: &[u8]) -> Option<Vec<u8>> {
    let (nonce, body) = sealed.split_at_checked(12)?;
    cipher(key).decrypt(Nonce::from_slice(nonce), body).ok()
}

#[cfg(test)]
mod tests {
    use platform::config::Secret;

    use super::{open, seal};

    #[test]
    fn a_sealed_secret_opens_only_under_its_key_and_unaltered() {
        let key = Secret::new(b"a player file key".to_vec());
        let sealed = seal(&key, b"1234").unwrap();
        assert!(!sealed.windows(4).any(|w| w == b"1234"), "the digits are not stored in the clear");
        assert_eq!(open(&key, &sealed).as_deref(), Some(b"1234".as_slice()));
        assert_eq!(open(&Secret::new(b"another key".to_vec()), &sealed), None);
        let mut altered = sealed.clone();
        *altered.last_mut().unwrap() ^= 1;
        assert_eq!(open(&key, &altered), None);
        assert_ne!(seal(&key, b"1234").unwrap(), sealed, "each sealing has its own nonce");
    }
}
