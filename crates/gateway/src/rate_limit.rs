//! Rate limits per identity and per client address: token buckets every gateway replica shares
//! in Postgres; and the live streams a client address may hold open at once
//! ([`StreamsPerAddress`]).
//!
//! A bucket lives in the gateway's schema (`rate_buckets`, unlogged: see its migration), and a
//! replica draws from it an allowance at a time (a second's worth of the rate, at most a tenth
//! of the burst), spent locally for up to a second and what is left put back at the next draw:
//! N replicas admit the configured rate, not N times it, for one statement per key and second
//! rather than one per request. While the database cannot be reached (a failover), each replica
//! limits alone with the same figures, as every replica did before (ADR 0013 §5). A refused
//! request gets 429 with `Retry-After`. Every answer says where its caller stands (ADR 0009 §7):
//! `RateLimit-Limit` (the burst), `RateLimit-Remaining` (requests left in it now) and
//! `RateLimit-Reset` (seconds until it is full again), for the identity when the request carries
//! a valid token, else for the client address.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use platform::AppError;
use platform::codes;
use platform::single_flight::SingleFlight;
use sqlx::PgPool;

use crate::GatewayState;
use crate::store::rate_limits as store;

/// Claims the rate limiter already verified for this request.
#[derive(Debug, Clone)]
pub struct VerifiedClaims(pub platform::auth::Claims);

/// A sustained rate and the burst allowed above it.
#[derive(Debug, Clone, Copy)]
pub struct Quota {
    pub per_minute: u32,
    pub burst: u32,
}

impl Quota {
    fn per_second(self) -> f64 {
        f64::from(self.per_minute) / 60.0
    }

    fn unlimited(self) -> bool {
        self.burst == u32::MAX
    }

    /// The tokens a replica draws from a shared bucket at once: a second's worth of the rate,
    /// at most a tenth of the burst, at least one.
    fn allowance(self) -> u32 {
        (self.per_minute / 60).min(self.burst / 10).max(1)
    }
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    updated: Instant,
}

/// Tokens a replica drew from a shared bucket: spent here until `until`, then put back.
#[derive(Debug, Clone, Copy)]
struct Allowance {
    tokens: u32,
    until: Instant,
    /// What the shared bucket held after the draw, for the caller's standing.
    shared_left: f64,
    /// The draw granted nothing: requests are refused here until `until`.
    refused: bool,
}

/// How long an allowance is spent before what is left of it goes back.
const ALLOWANCE_LIFETIME: Duration = Duration::from_secs(1);

/// Buckets are forgotten when the map grows past this and they have been idle a while.
const MAX_BUCKETS: usize = 100_000;

#[derive(Debug)]
pub struct RateLimiter {
    pub per_identity: Quota,
    pub per_address: Quota,
    /// The gateway's pool, where the shared buckets are; None for a replica limiting alone.
    shared: Option<PgPool>,
    allowances: Mutex<HashMap<String, Allowance>>,
    /// The draws from the shared buckets in flight, one per key.
    draws: SingleFlight<String, bool>,
    /// This replica's own buckets: used when there is no shared store, or it cannot be reached.
    buckets: Mutex<HashMap<String, Bucket>>,
}

impl RateLimiter {
    /// A limiter of this replica alone (a test's, or a process that is the only gateway).
    pub fn new(per_identity: Quota, per_address: Quota) -> Self {
        RateLimiter {
            per_identity,
            per_address,
            shared: None,
            allowances: Mutex::new(HashMap::new()),
            draws: SingleFlight::default(),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// A limiter drawing from the buckets every replica shares in `pool`'s schema.
    pub fn shared(pool: PgPool, per_identity: Quota, per_address: Quota) -> Self {
        RateLimiter { shared: Some(pool), ..RateLimiter::new(per_identity, per_address) }
    }

    /// Takes one token for `key` and says what is left, or says how long until one is there.
    pub async fn take(&self, key: &str, quota: Quota) -> Result<Standing, Duration> {
        let Some(pool) = self.shared.as_ref().filter(|_| !quota.unlimited()) else {
            return self.take_here(key, quota);
        };
        // Spent from this replica's allowance; when it is empty, one request of the key draws
        // the next from the shared bucket while the others of the key wait for it (drawing one
        // each would take the bucket's burst many times over).
        // Every draw grants a token or refuses the key, so the waiting requests of a busy key
        // each get one or the refusal in a few rounds; the bound only guards against a bug.
        for _ in 0..1_000 {
            if let Some(answer) = self.spend(key, quota) {
                return answer;
            }
            let key = key.to_owned();
            let (drawn, _) = self.draws.run(key.clone(), || self.draw(pool, &key, quota)).await;
            if !drawn {
                tracing::warn!("shared rate limits unreachable; this replica limits alone");
                return self.take_here(key.as_str(), quota);
            }
        }
        Err(Duration::from_secs(1))
    }

    /// One token from this replica's allowance for `key`; None when it has none to give.
    fn spend(&self, key: &str, quota: Quota) -> Option<Result<Standing, Duration>> {
        let now = Instant::now();
        let mut allowances = lock(&self.allowances);
        let allowance = allowances.get_mut(key).filter(|a| a.until > now)?;
        if allowance.refused {
            return Some(Err(allowance.until - now));
        }
        let tokens = allowance.tokens.checked_sub(1)?;
        allowance.tokens = tokens;
        Some(Ok(standing(quota, allowance.shared_left, tokens)))
    }

    /// Draws `key`'s next allowance from the shared bucket, putting back what is left of an
    /// expired one; false when the bucket could not be reached.
    async fn draw(&self, pool: &PgPool, key: &str, quota: Quota) -> bool {
        let now = Instant::now();
        let returned = {
            let mut allowances = lock(&self.allowances);
            if allowances.len() > MAX_BUCKETS {
                allowances.retain(|_, a| a.until > now);
            }
            allowances.get_mut(key).filter(|a| a.until <= now).map_or(0, |a| std::mem::take(&mut a.tokens))
        };
        let (rate, burst) = (quota.per_second(), f64::from(quota.burst.max(1)));
        let Ok(drawn) = store::take_tokens(pool, key, rate, burst, quota.allowance(), returned).await else {
            return false;
        };
        let allowance = if drawn.granted == 0 {
            let wait = ((1.0 - drawn.tokens_left) / rate.max(f64::MIN_POSITIVE)).clamp(0.0, 3600.0);
            Allowance {
                tokens: 0,
                until: now + Duration::from_secs_f64(wait),
                shared_left: drawn.tokens_left,
                refused: true,
            }
        } else {
            let until = now + ALLOWANCE_LIFETIME;
            Allowance { tokens: drawn.granted, until, shared_left: drawn.tokens_left, refused: false }
        };
        lock(&self.allowances).insert(key.to_owned(), allowance);
        true
    }

    /// Takes one token from this replica's own bucket for `key`.
    fn take_here(&self, key: &str, quota: Quota) -> Result<Standing, Duration> {
        let rate = quota.per_second();
        let burst = f64::from(quota.burst.max(1));
        let now = Instant::now();
        let mut buckets = lock(&self.buckets);
        if buckets.len() > MAX_BUCKETS {
            buckets.retain(|_, b| now.duration_since(b.updated) < Duration::from_secs(60));
        }
        let bucket = buckets.entry(key.to_owned()).or_insert(Bucket { tokens: burst, updated: now });
        let refilled = bucket.tokens + now.duration_since(bucket.updated).as_secs_f64() * rate;
        bucket.tokens = refilled.min(burst);
        bucket.updated = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(standing(quota, bucket.tokens, 0))
        } else {
            Err(Duration::from_secs_f64(((1.0 - bucket.tokens) / rate.max(f64::MIN_POSITIVE)).min(3600.0)))
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A caller's standing: `held` tokens in the bucket and `allowance` more drawn but unspent.
fn standing(quota: Quota, held: f64, allowance: u32) -> Standing {
    let left = held.max(0.0) + f64::from(allowance);
    let to_full = (f64::from(quota.burst.max(1)) - left).max(0.0) / quota.per_second().max(f64::MIN_POSITIVE);
    Standing {
        limit: quota.burst,
        // Whole requests: the fractions are refill in progress.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        remaining: left.floor().min(f64::from(u32::MAX)) as u32,
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        reset_seconds: to_full.min(3600.0).ceil() as u64,
    }
}

/// Where a caller stands after a request: its bucket's size, what is left, and when it is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Standing {
    pub limit: u32,
    pub remaining: u32,
    pub reset_seconds: u64,
}

impl Standing {
    fn write(self, response: &mut Response) {
        let headers = response.headers_mut();
        headers.insert("ratelimit-limit", HeaderValue::from(self.limit));
        headers.insert("ratelimit-remaining", HeaderValue::from(self.remaining));
        headers.insert("ratelimit-reset", HeaderValue::from(self.reset_seconds));
    }
}

/// 429 for the caller's `whose` (`address` or `identity`: the metric's label), counted.
fn too_many(wait: Duration, whose: &'static str, quota: Quota) -> Response {
    metrics::counter!(platform::metrics::HTTP_RATE_LIMITED, "scope" => whose).increment(1);
    let seconds = wait.as_secs().saturating_add(1);
    let mut response = AppError::new(
        StatusCode::TOO_MANY_REQUESTS,
        codes::RATE_LIMITED,
        format!("too many requests from this {whose}; slow down"),
    )
    .with_header(header::RETRY_AFTER, HeaderValue::from(seconds))
    .into_response();
    Standing { limit: quota.burst, remaining: 0, reset_seconds: seconds }.write(&mut response);
    response
}

/// Middleware: one token per request from the client address, and from the identity when the
/// request carries a valid token.
/// Verified claims are left in the request's extensions, so the handler does not verify again.
pub async fn limit(State(state): State<GatewayState>, mut request: Request, next: Next) -> Response {
    let address = client_address(&request).map_or_else(|| "unknown".to_owned(), |ip| ip.to_string());
    let per_address = state.limiter.per_address;
    let mut standing = match state.limiter.take(&format!("addr:{address}"), per_address).await {
        Ok(standing) => standing,
        Err(wait) => return too_many(wait, "address", per_address),
    };
    let claims =
        platform::auth::bearer_token(request.headers()).and_then(|token| state.tokens.verify(token).ok());
    if let Some(claims) = claims {
        let per_identity = state.limiter.per_identity;
        standing = match state.limiter.take(&format!("id:{}", claims.sub), per_identity).await {
            Ok(standing) => standing,
            Err(wait) => return too_many(wait, "identity", per_identity),
        };
        request.extensions_mut().insert(VerifiedClaims(claims));
    }
    let mut response = next.run(request).await;
    standing.write(&mut response);
    response
}

/// The live-results streams each client address holds open through this replica, at most
/// `per_address` (`LOTTO_MAX_STREAMS_PER_ADDRESS`): a stream holds a connection and a file
/// handle for as long as its client likes, so one address must not take a process's share
/// (1,500 anonymous streams from one address were accepted before, issue 32 §5). The count lives
/// with the stream's answer ([`StreamPermit`]): it falls when the client goes.
#[derive(Debug)]
pub struct StreamsPerAddress {
    pub per_address: usize,
    open: Mutex<HashMap<IpAddr, usize>>,
}

impl StreamsPerAddress {
    pub fn new(per_address: usize) -> Arc<Self> {
        Arc::new(StreamsPerAddress { per_address, open: Mutex::new(HashMap::new()) })
    }

    /// A permit for one more stream from `address`, or none when it holds its share.
    pub fn open(self: &Arc<Self>, address: IpAddr) -> Option<StreamPermit> {
        let mut open = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let count = open.entry(address).or_insert(0);
        if *count >= self.per_address {
            return None;
        }
        *count += 1;
        Some(StreamPermit { streams: Arc::clone(self), address })
    }

    /// The streams `address` holds open now.
    pub fn open_from(&self, address: IpAddr) -> usize {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&address)
            .copied()
            .unwrap_or(0)
    }
}

/// One open stream of an address; dropped with the stream's answer.
#[derive(Debug)]
pub struct StreamPermit {
    streams: Arc<StreamsPerAddress>,
    address: IpAddr,
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        let mut open = self.streams.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(count) = open.get_mut(&self.address) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.address);
            }
        }
    }
}

/// The client's address, as the server saw the connection.
pub fn client_address(request: &Request) -> Option<IpAddr> {
    address_in(request.extensions())
}

fn address_in(extensions: &axum::http::Extensions) -> Option<IpAddr> {
    extensions.get::<ConnectInfo<SocketAddr>>().map(|ConnectInfo(addr)| addr.ip())
}

/// The client's address as a handler's argument ([`client_address`]; `None` without a socket).
#[derive(Debug, Clone, Copy)]
pub struct ClientAddress(pub Option<IpAddr>);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Self, Self::Rejection> {
        Ok(ClientAddress(address_in(&parts.extensions)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_its_share_of_streams_until_one_ends() {
        let streams = StreamsPerAddress::new(2);
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let first = streams.open(a).unwrap();
        let _second = streams.open(a).unwrap();
        assert!(streams.open(a).is_none(), "a third from one address");
        assert!(streams.open(b).is_some(), "another address has its own share");
        drop(first);
        assert_eq!(streams.open_from(a), 1);
        assert!(streams.open(a).is_some(), "a stream ended frees its place");
    }

    #[tokio::test]
    async fn a_bucket_allows_its_burst_then_refuses_with_a_wait() {
        let limiter =
            RateLimiter::new(Quota { per_minute: 60, burst: 3 }, Quota { per_minute: 60, burst: 3 });
        let quota = limiter.per_identity;
        for left in [2, 1, 0] {
            assert_eq!(limiter.take("a", quota).await.map(|s| s.remaining), Ok(left));
        }
        let wait = limiter.take("a", quota).await.unwrap_err();
        assert!(wait > Duration::from_millis(500) && wait <= Duration::from_secs(1), "{wait:?}");
        assert!(limiter.take("b", quota).await.is_ok(), "buckets are per key");
    }
}
