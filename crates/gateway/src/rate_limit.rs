//! Rate limits per identity and per client address: token buckets kept in memory; and the live
//! streams a client address may hold open at once ([`StreamsPerAddress`]).
//!
//! Each replica limits on its own, so a deployment of N gateways admits up to N times the rate;
//! the figures are set per replica. A refused request gets 429 with `Retry-After`. Every answer
//! says where its caller stands (ADR 0009 §7): `RateLimit-Limit` (the burst), `RateLimit-Remaining`
//! (requests left in it now) and `RateLimit-Reset` (seconds until it is full again), for the
//! identity when the request carries a valid token, else for the client address.

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

use crate::GatewayState;

/// A sustained rate and the burst allowed above it.
/// Claims the rate limiter already verified for this request.
#[derive(Debug, Clone)]
pub struct VerifiedClaims(pub platform::auth::Claims);

#[derive(Debug, Clone, Copy)]
pub struct Quota {
    pub per_minute: u32,
    pub burst: u32,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    updated: Instant,
}

/// Buckets are forgotten when the map grows past this and they have been idle a while.
const MAX_BUCKETS: usize = 100_000;

#[derive(Debug)]
pub struct RateLimiter {
    pub per_identity: Quota,
    pub per_address: Quota,
    buckets: Mutex<HashMap<String, Bucket>>,
}

impl RateLimiter {
    pub fn new(per_identity: Quota, per_address: Quota) -> Self {
        RateLimiter { per_identity, per_address, buckets: Mutex::new(HashMap::new()) }
    }

    /// Takes one token from `key`'s bucket and says what is left, or says how long until one is
    /// there.
    pub fn take(&self, key: &str, quota: Quota) -> Result<Standing, Duration> {
        let rate = f64::from(quota.per_minute) / 60.0;
        let burst = f64::from(quota.burst.max(1));
        let now = Instant::now();
        let Ok(mut buckets) = self.buckets.lock() else {
            return Ok(Standing { limit: quota.burst, remaining: quota.burst, reset_seconds: 0 });
        };
        if buckets.len() > MAX_BUCKETS {
            buckets.retain(|_, b| now.duration_since(b.updated) < Duration::from_secs(60));
        }
        let bucket = buckets.entry(key.to_owned()).or_insert(Bucket { tokens: burst, updated: now });
        let refilled = bucket.tokens + now.duration_since(bucket.updated).as_secs_f64() * rate;
        bucket.tokens = refilled.min(burst);
        bucket.updated = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            let to_full = (burst - bucket.tokens) / rate.max(f64::MIN_POSITIVE);
            Ok(Standing {
                limit: quota.burst,
                // Whole requests: the fractions are refill in progress.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                remaining: bucket.tokens.floor() as u32,
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                reset_seconds: to_full.min(3600.0).ceil() as u64,
            })
        } else {
            Err(Duration::from_secs_f64(((1.0 - bucket.tokens) / rate.max(f64::MIN_POSITIVE)).min(3600.0)))
        }
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

fn too_many(wait: Duration, whose: &str, quota: Quota) -> Response {
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
    let mut standing = match state.limiter.take(&format!("addr:{address}"), per_address) {
        Ok(standing) => standing,
        Err(wait) => return too_many(wait, "address", per_address),
    };
    let claims =
        platform::auth::bearer_token(request.headers()).and_then(|token| state.tokens.verify(token).ok());
    if let Some(claims) = claims {
        let per_identity = state.limiter.per_identity;
        standing = match state.limiter.take(&format!("id:{}", claims.sub), per_identity) {
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
    request.extensions().get::<ConnectInfo<SocketAddr>>().map(|ConnectInfo(addr)| addr.ip())
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

    #[test]
    fn a_bucket_allows_its_burst_then_refuses_with_a_wait() {
        let limiter =
            RateLimiter::new(Quota { per_minute: 60, burst: 3 }, Quota { per_minute: 60, burst: 3 });
        let quota = limiter.per_identity;
        for left in [2, 1, 0] {
            assert_eq!(limiter.take("a", quota).map(|s| s.remaining), Ok(left));
        }
        let wait = limiter.take("a", quota).unwrap_err();
        assert!(wait > Duration::from_millis(500) && wait <= Duration::from_secs(1), "{wait:?}");
        assert!(limiter.take("b", quota).is_ok(), "buckets are per key");
    }
}
