//! Cross-origin requests (issue 15): a single-page app served from another origin calls the API
//! from the browser, which first asks with a preflight `OPTIONS`. The origins allowed are a
//! setting (`LOTTO_CORS_ORIGINS`): exact origins, comma-separated; `local` for any
//! `http://localhost:<port>` or `http://127.0.0.1:<port>` (a front end's dev server on this
//! machine); none by default, except in `lotto`'s local mode where `local` is the default. The
//! web client the gateway serves itself at `/` is same-origin and needs none of it.

use axum::http::{HeaderName, HeaderValue, Method, header};
use tower_http::cors::{AllowOrigin, CorsLayer};

/// Which origins may call the API from a browser.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CorsOrigins {
    /// None: a browser on another origin is refused (no CORS headers are sent).
    #[default]
    None,
    /// `http://localhost:<port>` and `http://127.0.0.1:<port>`, any port.
    Local,
    /// Exactly these origins (`scheme://host[:port]`).
    List(Vec<String>),
}

impl CorsOrigins {
    /// Reads the setting's text: empty or `none`, `local`, or origins separated by commas.
    pub fn parse(text: &str) -> Result<CorsOrigins, String> {
        let text = text.trim();
        match text {
            "" | "none" => return Ok(CorsOrigins::None),
            "local" => return Ok(CorsOrigins::Local),
            _ => {}
        }
        let mut origins = Vec::new();
        for origin in text.split(',').map(str::trim) {
            let (scheme, rest) =
                origin.split_once("://").ok_or_else(|| format!("{origin:?} is not scheme://host"))?;
            let plain = !rest.is_empty()
                && !rest.contains('/')
                && rest.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':'));
            if !matches!(scheme, "http" | "https") || !plain {
                return Err(format!("{origin:?} is not an origin (http[s]://host[:port], no path)"));
            }
            origins.push(origin.to_owned());
        }
        Ok(CorsOrigins::List(origins))
    }

    /// The layer that answers preflights and marks allowed answers; none when no origin is.
    pub fn layer(&self) -> Option<CorsLayer> {
        let allow = match self {
            CorsOrigins::None => return None,
            CorsOrigins::Local => AllowOrigin::predicate(|origin: &HeaderValue, _| is_local(origin)),
            CorsOrigins::List(list) => {
                AllowOrigin::list(list.iter().filter_map(|o| HeaderValue::from_str(o).ok()))
            }
        };
        Some(
            CorsLayer::new()
                .allow_origin(allow)
                .allow_methods([Method::GET, Method::POST, Method::PUT, Method::DELETE])
                .allow_headers([
                    header::AUTHORIZATION,
                    header::CONTENT_TYPE,
                    HeaderName::from_static("idempotency-key"),
                    HeaderName::from_static("x-request-id"),
                ])
                .expose_headers([
                    header::LOCATION,
                    header::RETRY_AFTER,
                    HeaderName::from_static("idempotent-replayed"),
                    HeaderName::from_static("x-request-id"),
                    HeaderName::from_static("x-lotto-sha256"),
                    HeaderName::from_static("x-lotto-signature"),
                    HeaderName::from_static("ratelimit-limit"),
                    HeaderName::from_static("ratelimit-remaining"),
                    HeaderName::from_static("ratelimit-reset"),
                ])
                .max_age(std::time::Duration::from_secs(600)),
        )
    }
}

/// `http://localhost[:port]` or `http://127.0.0.1[:port]`.
fn is_local(origin: &HeaderValue) -> bool {
    let Ok(origin) = origin.to_str() else { return false };
    let Some(rest) = origin.strip_prefix("http://") else { return false };
    let host = rest.split_once(':').map_or(rest, |(host, port)| {
        if port.chars().all(|c| c.is_ascii_digit()) && !port.is_empty() { host } else { "" }
    });
    matches!(host, "localhost" | "127.0.0.1")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_setting_reads_none_local_or_origins() {
        assert_eq!(CorsOrigins::parse("").unwrap(), CorsOrigins::None);
        assert_eq!(CorsOrigins::parse("local").unwrap(), CorsOrigins::Local);
        assert_eq!(
            CorsOrigins::parse("https://play.example.com, http://localhost:5173").unwrap(),
            CorsOrigins::List(vec![
                "https://play.example.com".to_owned(),
                "http://localhost:5173".to_owned()
            ])
        );
        for bad in ["*", "play.example.com", "https://play.example.com/app", "ftp://x"] {
            assert!(CorsOrigins::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn local_means_this_machine_on_any_port() {
        for ok in ["http://localhost:5173", "http://127.0.0.1:8080", "http://localhost"] {
            assert!(is_local(&HeaderValue::from_static(ok)), "{ok}");
        }
        for no in [
            "https://localhost:5173",
            "http://localhost.evil.com",
            "http://127.0.0.1:80x",
            "http://10.0.0.1:80",
        ] {
            assert!(!is_local(&HeaderValue::from_static(no)), "{no}");
        }
    }
}
