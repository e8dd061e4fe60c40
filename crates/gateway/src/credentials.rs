//! Secrets at rest: argon2id password hashes and SHA-256 digests of terminal API keys.
//!
//! Passwords are low-entropy, so they get a slow, salted, memory-hard hash (argon2id with the
//! crate's defaults: 19 MiB, 2 passes). API keys are 256 random bits, so a fast digest is enough
//! and lets every terminal request be checked cheaply.

use argon2::Argon2;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use platform::AppError;
use platform::codes;
use sha2::{Digest, Sha256};

/// The shortest password accepted.
pub const MIN_PASSWORD_CHARS: usize = 10;
/// The longest: argon2 would take anything, but megabyte passwords are a denial of service.
pub const MAX_PASSWORD_CHARS: usize = 256;

/// How hard a new password must be to guess, by the zxcvbn estimator (a well-kept port of
/// Dropbox's): 3 of 0-4, "safely unguessable", about 10^10 guesses. A common word, a keyboard
/// run, a date, a repeated character or anything built from the account's own name scores less.
pub const MIN_PASSWORD_SCORE: zxcvbn::Score = zxcvbn::Score::Three;

/// Checks a new password: its length, that it does not contain the account's login (an email or
/// a username, nor an email's part before the `@`), and its strength by the estimator, told the
/// login so that variations of it count as guessable.
pub fn validate_password(password: &str, login: &str) -> Result<(), AppError> {
    let weak = |why: String| AppError::unprocessable(codes::WEAK_PASSWORD, why);
    let n = password.chars().count();
    if !(MIN_PASSWORD_CHARS..=MAX_PASSWORD_CHARS).contains(&n) {
        return Err(weak(format!("a password has {MIN_PASSWORD_CHARS} to {MAX_PASSWORD_CHARS} characters")));
    }
    let lower = password.to_lowercase();
    let login = login.trim().to_lowercase();
    let local = login.split('@').next().unwrap_or_default();
    if !login.is_empty() && (lower.contains(&login) || (local.chars().count() >= 3 && lower.contains(local)))
    {
        return Err(weak("a password may not contain your email or username".to_owned()));
    }
    let estimate = zxcvbn::zxcvbn(password, &[login.as_str(), local]);
    if estimate.score() < MIN_PASSWORD_SCORE {
        let hint = estimate
            .feedback()
            .and_then(|f| {
                f.warning()
                    .map(|w| w.to_string())
                    .or_else(|| f.suggestions().first().map(ToString::to_string))
            })
            .unwrap_or_else(|| "add more words or characters".to_owned());
        return Err(weak(format!("that password is too easy to guess: {hint}")));
    }
    Ok(())
}

/// Hashes a password with argon2id, off the async threads (it takes tens of milliseconds).
pub async fn hash_password(password: String) -> Result<String, AppError> {
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::generate(&mut OsRng);
        Argon2::default().hash_password(password.as_bytes(), &salt).map(|h| h.to_string())
    })
    .await
    .map_err(AppError::internal)?
    .map_err(AppError::internal)
}

/// Whether `password` matches `hash`. With no hash (an unknown user) a dummy hash is checked so
/// that the answer takes as long and reveals nothing.
pub async fn verify_password(password: String, hash: Option<String>) -> Result<bool, AppError> {
    tokio::task::spawn_blocking(move || {
        let known = hash.is_some();
        let hash = hash.unwrap_or_else(|| DUMMY_HASH.to_owned());
        let parsed = PasswordHash::new(&hash).map_err(AppError::internal)?;
        Ok(Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok() && known)
    })
    .await
    .map_err(AppError::internal)?
}

/// argon2id of a random string nobody knows, with the default parameters.
const DUMMY_HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$Hc7Y5dQBZwjM6d0QmFY6Sj0IY2RcEOvJ7xW+oQx0W3k";

/// A new terminal API key: `lk_<prefix>_<secret>`, with the prefix (which finds the row) and
/// the digest of the whole key (which is stored).
pub fn new_api_key() -> (String, String, Vec<u8>) {
    let prefix = hex::encode(platform::auth::random_bytes::<6>());
    let secret = hex::encode(platform::auth::random_bytes::<32>());
    let key = format!("lk_{prefix}_{secret}");
    let digest = digest_api_key(&key);
    (key, prefix, digest)
}

/// The prefix of a key as a terminal presents it, if it has the right shape.
pub fn api_key_prefix(key: &str) -> Option<&str> {
    let rest = key.strip_prefix("lk_")?;
    let (prefix, secret) = rest.split_once('_')?;
    (prefix.len() == 12 && secret.len() == 64).then_some(prefix)
}

pub fn digest_api_key(key: &str) -> Vec<u8> {
    Sha256::digest(key.as_bytes()).to_vec()
}

/// Compares digests in constant time.
pub fn digests_equal(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn passwords_hash_with_argon2id_and_verify() {
        let hash = hash_password("correct horse battery".into()).await.unwrap();
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_password("correct horse battery".into(), Some(hash.clone())).await.unwrap());
        assert!(!verify_password("wrong horse battery".into(), Some(hash)).await.unwrap());
        assert!(!verify_password("anything at all".into(), None).await.unwrap());
    }

    #[test]
    fn api_keys_are_random_and_only_their_digest_matches() {
        let (key, prefix, digest) = new_api_key();
        let (other, other_prefix, _) = new_api_key();
        assert_ne!((key.as_str(), prefix.as_str()), (other.as_str(), other_prefix.as_str()));
        assert_eq!(api_key_prefix(&key), Some(prefix.as_str()));
        assert!(digests_equal(&digest_api_key(&key), &digest));
        assert!(!digests_equal(&digest_api_key(&other), &digest));
        assert_eq!(api_key_prefix("lk_short_x"), None);
    }

    #[test]
    fn password_length_is_bounded() {
        assert_eq!(validate_password("short", "a@b.c").unwrap_err().code(), "weak_password");
        assert!(validate_password("correct horse battery staple", "ann@example.com").is_ok());
        assert!(validate_password(&"x".repeat(300), "a@b.c").is_err());
        // What the attack run got accepted.
        for (password, login) in [
            ("1234567890", "ann@example.com"),
            ("          ", "ann@example.com"),
            ("ann@example.com", "ann@example.com"),
            ("ANN@EXAMPLE.COM!!", "ann@example.com"),
            ("annabelle-1990", "annabelle@example.com"),
            ("password1234", "bob@example.com"),
            ("qwertyuiop", "bob@example.com"),
            ("aaaaaaaaaaaa", "bob@example.com"),
        ] {
            assert_eq!(
                validate_password(password, login).unwrap_err().code(),
                "weak_password",
                "{password:?}"
            );
        }
    }
}
