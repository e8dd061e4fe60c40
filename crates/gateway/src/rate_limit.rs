//! Rate limits per identity and per client address: token buckets kept in memory.
//!
//! Each replica limits on its own, so a deployment of N gateways admits up to N times the rate;
//! the figures are set per replica. A refused request gets 429 with `Retry-After`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use platform::AppError;

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

    /// Takes one token from `key`'s bucket, or says how long until one is there.
    pub fn take(&self, key: &str, quota: Quota) -> Result<(), Duration> {
        let rate = f64::from(quota.per_minute) / 60.0;
        let burst = f64::from(quota.burst.max(1));
        let now = Instant::now();
        let Ok(mut buckets) = self.buckets.lock() else { return Ok(()) };
        if buckets.len() > MAX_BUCKETS {
            buckets.retain(|_, b| now.duration_since(b.updated) < Duration::from_secs(60));
        }
        let bucket = buckets.entry(key.to_owned()).or_insert(Bucket { tokens: burst, updated: now });
        let refilled = bucket.tokens + now.duration_since(bucket.updated).as_secs_f64() * rate;
        bucket.tokens = refilled.min(burst);
        bucket.updated = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64(((1.0 - bucket.tokens) / rate.max(f64::MIN_POSITIVE)).min(3600.0)))
        }
    }
}

fn too_many(wait: Duration, whose: &str) -> Response {
    let seconds = wait.as_secs().saturating_add(1);
    AppError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "rate_limited",
        format!("too many requests from this {whose}; slow down"),
    )
    .with_header(header::RETRY_AFTER, HeaderValue::from(seconds))
    .into_response()
}

/// Middleware: one token per request from the client address, and from the identity when the
/// request carries a valid token.
/// Verified claims are left in the request's extensions, so the handler does not verify again.
pub async fn limit(State(state): State<GatewayState>, mut request: Request, next: Next) -> Response {
    let address = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or_else(|| "unknown".to_owned(), |ConnectInfo(addr)| addr.ip().to_string());
    if let Err(wait) = state.limiter.take(&format!("addr:{address}"), state.limiter.per_address) {
        return too_many(wait, "address");
    }
    let claims =
        platform::auth::bearer_token(request.headers()).and_then(|token| state.tokens.verify(token).ok());
    if let Some(claims) = claims {
        if let Err(wait) = state.limiter.take(&format!("id:{}", claims.sub), state.limiter.per_identity) {
            return too_many(wait, "identity");
        }
        request.extensions_mut().insert(VerifiedClaims(claims));
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_allows_its_burst_then_refuses_with_a_wait() {
        let limiter =
            RateLimiter::new(Quota { per_minute: 60, burst: 3 }, Quota { per_minute: 60, burst: 3 });
        let quota = limiter.per_identity;
        for _ in 0..3 {
            assert!(limiter.take("a", quota).is_ok());
        }
        let wait = limiter.take("a", quota).unwrap_err();
        assert!(wait > Duration::from_millis(500) && wait <= Duration::from_secs(1), "{wait:?}");
        assert!(limiter.take("b", quota).is_ok(), "buckets are per key");
    }
}
