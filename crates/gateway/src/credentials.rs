//! Credentials and the logins they belong to: argon2id password hashes, SHA-256 digests of
//! terminal API keys, and the form of an email address a login or a link is asked for by.
//!
//! Passwords are low-entropy, so they get a slow, salted, memory-hard hash (argon2id with the
//! crate's defaults: 19 MiB, 2 passes). API keys are 256 random bits, so a fast digest is enough
//! and lets every terminal request be checked cheaply.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{Output, ParamsString, PasswordHash, Salt, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version, password_hash};
use axum::http::{HeaderValue, header};
use platform::AppError;
use platform::codes;
use sha2::{Digest, Sha256};
use tokio::sync::Semaphore;

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

/// The password work of one replica: argon2id runs bounded in number and in memory.
///
/// Every check (a login, and the dummy check of an unknown login) and every new hash (a
/// registration, a staff member made) takes one of `slots` places. Each place owns one argon2
/// memory area (19 MiB with the default parameters), allocated at its first use and reused by
/// every run after it, so a flood of logins costs `slots` areas whatever its size. Issue 47 §1:
/// with every run on a blocking thread of its own allocating its own area, 200 logins at once
/// took a process to 6.3 GB, and the allocator kept the freed areas. A request that finds every
/// place taken waits up to `wait` for one, then is refused 503 with `Retry-After`: a flood is
/// answered, never queued without end.
#[derive(Clone)]
pub struct PasswordWork {
    slots: Arc<Slots>,
}

struct Slots {
    permits: Arc<Semaphore>,
    /// The memory areas not in use; never more than the number of places.
    areas: Mutex<Vec<Vec<Block>>>,
    count: usize,
    wait: Duration,
}

impl std::fmt::Debug for PasswordWork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PasswordWork")
            .field("slots", &self.slots.count)
            .field("wait", &self.slots.wait)
            .finish()
    }
}

/// The most memory one run may ask for (a stored hash's `m`, in KiB): four times the default,
/// so a hash made with stronger parameters still verifies, and no row can make a run take more.
const MAX_MEMORY_KIB: u32 = 4 * Params::DEFAULT_M_COST;

impl PasswordWork {
    /// `slots` runs at once (at least one); a request waits up to `wait` for a place.
    pub fn new(slots: usize, wait: Duration) -> Self {
        let count = slots.max(1);
        PasswordWork {
            slots: Arc::new(Slots {
                permits: Arc::new(Semaphore::new(count)),
                areas: Mutex::new(Vec::with_capacity(count)),
                count,
                wait,
            }),
        }
    }

    /// Runs `work` on a blocking thread with a place and its memory area. The place is held
    /// until the run ends, even if the request that asked for it is gone.
    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Vec<Block>) -> T + Send + 'static,
    ) -> Result<T, AppError> {
        let wait = self.slots.wait;
        let permit = match tokio::time::timeout(wait, Arc::clone(&self.slots.permits).acquire_owned()).await {
            Ok(Ok(permit)) => permit,
            _ => return Err(busy(wait)),
        };
        let slots = Arc::clone(&self.slots);
        tokio::task::spawn_blocking(move || {
            let _place = permit;
            let mut area =
                slots.areas.lock().unwrap_or_else(PoisonError::into_inner).pop().unwrap_or_default();
            let out = work(&mut area);
            slots.areas.lock().unwrap_or_else(PoisonError::into_inner).push(area);
            out
        })
        .await
        .map_err(AppError::internal)
    }

    /// Hashes a password with argon2id (the crate's default parameters), off the async threads.
    pub async fn hash(&self, password: String) -> Result<String, AppError> {
        self.run(move |area| hash_in(area, password.as_bytes())).await?.map_err(AppError::internal)
    }

    /// Whether `password` matches `hash`. With no hash (an unknown user) a dummy hash is checked
    /// so that the answer takes as long, waits for a place the same way, and reveals nothing.
    pub async fn verify(&self, password: String, hash: Option<String>) -> Result<bool, AppError> {
        self.run(move |area| {
            let known = hash.is_some();
            let hash = hash.as_deref().unwrap_or(DUMMY_HASH);
            Ok(verify_in(area, password.as_bytes(), hash)? && known)
        })
        .await?
        .map_err(|e: password_hash::Error| AppError::internal(e))
    }
}

/// 503: every place is taken and stayed taken for `wait`.
fn busy(wait: Duration) -> AppError {
    let seconds = wait.as_secs().clamp(1, 30);
    AppError::unavailable("too many logins are being checked at once; try again in a moment")
        .with_header(header::RETRY_AFTER, HeaderValue::from(seconds))
}

/// `area` grown to `blocks` blocks if it is smaller (it is never shrunk: it is reused).
fn fit(area: &mut Vec<Block>, blocks: usize) -> &mut [Block] {
    if area.len() < blocks {
        area.resize(blocks, Block::default());
    }
    &mut area[..blocks]
}

/// argon2id of `password` with a new salt, in `area`, as a PHC string (`$argon2id$v=19$...`).
fn hash_in(area: &mut Vec<Block>, password: &[u8]) -> Result<String, password_hash::Error> {
    let salt = SaltString::generate(&mut OsRng);
    let params = Params::default();
    let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    let mut salt_bytes = [0u8; Salt::MAX_LENGTH];
    let salt_bytes = salt.as_salt().decode_b64(&mut salt_bytes)?;
    let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
    argon.hash_password_into_with_memory(password, salt_bytes, &mut out, fit(area, params.block_count()))?;
    let hash = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params)?,
        salt: Some(salt.as_salt()),
        hash: Some(Output::new(&out)?),
    };
    Ok(hash.to_string())
}

/// Whether `password` gives the PHC string `hash`, computed in `area`; the outputs compared in
/// constant time (`Output`'s equality).
fn verify_in(area: &mut Vec<Block>, password: &[u8], hash: &str) -> Result<bool, password_hash::Error> {
    let parsed = PasswordHash::new(hash)?;
    let algorithm = Algorithm::try_from(parsed.algorithm)?;
    let version = parsed.version.map(Version::try_from).transpose()?.unwrap_or_default();
    let params = Params::try_from(&parsed)?;
    if params.m_cost() > MAX_MEMORY_KIB {
        return Err(password_hash::Error::ParamValueInvalid(password_hash::errors::InvalidValue::TooLong));
    }
    let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
        return Err(password_hash::Error::PhcStringField);
    };
    let mut salt_bytes = [0u8; Salt::MAX_LENGTH];
    let salt_bytes = salt.decode_b64(&mut salt_bytes)?;
    let argon = Argon2::new(algorithm, version, params.clone());
    let mut out = [0u8; Output::MAX_LENGTH];
    let out = &mut out[..expected.len()];
    argon.hash_password_into_with_memory(password, salt_bytes, out, fit(area, params.block_count()))?;
    Ok(Output::new(out)? == expected)
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

/// The contract's pattern for an email: a local part, one `@`, and a domain of two or more
/// dot-separated labels, with no spaces; at most 254 characters.
pub(crate) fn valid_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else { return false };
    let part = |t: &str| !t.is_empty() && !t.chars().any(|c| domain::text::is_space(c) || c == '@');
    part(local)
        && domain.split('.').count() >= 2
        && domain.split('.').all(part)
        && email.chars().count() <= 254
}

/// `email` as the platform keeps it (lower-cased), or why it is not an address it takes (a
/// login's, a registration's, a link asked for).
pub(crate) fn checked_email(email: &str) -> Result<String, AppError> {
    if !valid_email(email) {
        return Err(AppError::unprocessable(codes::INVALID_EMAIL, "that is not an email address"));
    }
    if let Some(why) = domain::text::email_refusal(email) {
        return Err(AppError::unprocessable(codes::INVALID_EMAIL_CHARACTERS, why));
    }
    Ok(email.to_lowercase())
}

#[cfg(test)]
mod tests {
    /// The server reads an email as the contract's pattern does (ECMA-262's `\s`): U+0085 is no
    /// space to the contract, so an address holding it is not refused (a schemathesis run found
    /// the two disagreeing); an ideographic space is a space to both.
    #[test]
    fn an_email_is_read_as_the_contracts_pattern_reads_it() {
        assert!(valid_email("pat\u{85}doe@example.com"));
        assert!(!valid_email("pat\u{3000}doe@example.com"));
        assert!(!valid_email("pat@example\u{FEFF}.com"));
        assert!(!valid_email("pat@localhost"));
    }

    use super::*;

    fn work() -> PasswordWork {
        PasswordWork::new(2, Duration::from_secs(30))
    }

    #[tokio::test]
    async fn passwords_hash_with_argon2id_and_verify() {
        let work = work();
        let hash = work.hash("correct horse battery".into()).await.unwrap();
        assert!(hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{hash}");
        assert!(work.verify("correct horse battery".into(), Some(hash.clone())).await.unwrap());
        assert!(!work.verify("wrong horse battery".into(), Some(hash)).await.unwrap());
        assert!(!work.verify("anything at all".into(), None).await.unwrap());
    }

    /// The hashes made in a reused area are the library's own: each verifies the other's, so
    /// the hashes stored before the areas were reused still verify.
    #[tokio::test]
    async fn hashes_in_reused_memory_are_the_librarys_own() {
        use argon2::{PasswordHasher, PasswordVerifier};
        let work = work();
        let ours = work.hash("correct horse battery".into()).await.unwrap();
        let parsed = PasswordHash::new(&ours).unwrap();
        assert!(Argon2::default().verify_password(b"correct horse battery", &parsed).is_ok());
        assert!(Argon2::default().verify_password(b"correct horse batterY", &parsed).is_err());
        let salt = SaltString::generate(&mut OsRng);
        let theirs = Argon2::default().hash_password(b"staple of the day", &salt).unwrap().to_string();
        assert!(work.verify("staple of the day".into(), Some(theirs.clone())).await.unwrap());
        assert!(!work.verify("staple of the dax".into(), Some(theirs)).await.unwrap());
        // The dummy hash is a valid one with the default parameters, so an unknown login costs
        // what a known one does.
        assert!(DUMMY_HASH.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(!work.verify("x".into(), Some(DUMMY_HASH.to_owned())).await.unwrap());
        // A hash naming more memory than a run may take is refused, not run.
        let greedy = ours.replace("m=19456", "m=1000000");
        assert_eq!(
            work.verify("correct horse battery".into(), Some(greedy)).await.unwrap_err().code(),
            "internal"
        );
    }

    /// Forty checks at once through two places: every one answered, and two memory areas exist
    /// after them, not forty.
    #[tokio::test]
    async fn checks_at_once_share_the_places_and_their_memory() {
        let work = work();
        let hash = work.hash("correct horse battery".into()).await.unwrap();
        let checks = (0..40).map(|i| {
            let (work, hash) = (work.clone(), hash.clone());
            async move { work.verify(format!("guess {i}"), if i % 2 == 0 { Some(hash) } else { None }).await }
        });
        for answer in futures_util::future::join_all(checks).await {
            assert!(!answer.unwrap());
        }
        assert_eq!(work.slots.areas.lock().unwrap().len(), 2);
        assert_eq!(work.slots.permits.available_permits(), 2);
    }

    /// With every place taken for longer than the wait, a check is refused 503 with Retry-After
    /// (the dummy check of an unknown login too), and the places come back after.
    #[tokio::test]
    async fn a_check_that_finds_every_place_taken_is_refused_after_the_wait() {
        let work = PasswordWork::new(1, Duration::from_millis(50));
        let hash = work.hash("correct horse battery".into()).await.unwrap();
        let taken = Arc::clone(&work.slots.permits).acquire_owned().await.unwrap();
        for known in [Some(hash.clone()), None] {
            let refused = work.verify("correct horse battery".into(), known).await.unwrap_err();
            assert_eq!((refused.status().as_u16(), refused.code()), (503, "unavailable"));
            let response = axum::response::IntoResponse::into_response(refused);
            assert!(response.headers().contains_key(header::RETRY_AFTER));
        }
        assert_eq!(work.hash("another good password".into()).await.unwrap_err().code(), "unavailable");
        drop(taken);
        assert!(work.verify("correct horse battery".into(), Some(hash)).await.unwrap());
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
