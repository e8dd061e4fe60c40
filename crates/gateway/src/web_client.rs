//! The web client (issue 15, ADR 0009 §9): the pages players, retailers' tills and operators use,
//! built from `web/` by its npm toolchain into `web/dist/` and embedded here, so the gateway (and
//! `lotto`) serve it at `/` with no files to deploy beside the binary. `.ci/run` rebuilds
//! `web/dist/` and fails if the committed files are not what the sources make.

use axum::Router;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;

const INDEX_HTML: &str = include_str!("../../../web/dist/index.html");
const APP_JS: &str = include_str!("../../../web/dist/app.js");
const APP_CSS: &str = include_str!("../../../web/dist/app.css");

/// Same origin only: the page calls this gateway and nothing else, and runs no inline script.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            // The files are not fingerprinted: a browser asks again after each deploy.
            (header::CACHE_CONTROL, "no-cache"),
            (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
        .into_response()
}

/// `/` (and `/index.html`), `/app.js`, `/app.css`: public.
pub fn routes() -> Router {
    let index = || async { asset("text/html; charset=utf-8", INDEX_HTML) };
    Router::new()
        .route("/", get(index))
        .route("/index.html", get(index))
        .route("/app.js", get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }))
        .route("/app.css", get(|| async { asset("text/css; charset=utf-8", APP_CSS) }))
}
