//! The service kit: what every service needs and none writes again.
//!
//! - [`audit`]: the hash-chained audit log of game outcomes;
//! - [`auth`]: signed access tokens, roles, and the [`auth::Caller`] extractor;
//! - [`clock`]: the time a service acts on, movable by tests;
//! - [`config`]: settings from environment variables, with local defaults;
//! - [`secrets`]: secrets the environment does not give, made once and kept in files;
//! - [`telemetry`]: `tracing` setup;
//! - [`events`]: the significant-events log, hash-chained, every service writing to it;
//! - [`error`]: [`AppError`], the one error type, rendered as RFC 9457 problem+json;
//! - [`extract`]: JSON, path and query extractors whose rejections are problems too;
//! - [`group_commit`]: many small writes sharing one transaction;
//! - [`db`]: a Postgres pool bound to the service's own schema, migrated at start;
//! - [`http`]: health, readiness, metrics, request ids, limits, timeouts and graceful shutdown;
//! - [`openapi`]: the security scheme every OpenAPI description shares;
//! - [`recovery`]: the pass that finishes sagas a crash left between steps;
//! - [`upstream`]: another service, mounted in this process or reached over HTTP;
//! - `testing` (feature): a fresh database per test, the load runner of the benchmarks, and
//!   `client`, the typed HTTP client tests and benchmarks call a running platform with (services
//!   reach each other only through [`upstream`]);
//! - [`codes`]: every problem code, its status and meaning;
//! - [`state`]: `stored_state!`, the typed saga states stored as text.

pub mod audit;
pub mod auth;
pub mod boundary;
#[cfg(feature = "testing")]
pub mod client;
pub mod clock;
pub mod codes;
pub mod config;
pub mod db;
#[cfg(test)]
mod doc_tables;
pub mod error;
pub mod events;
pub mod extract;
pub mod group_commit;
pub mod http;
pub mod metrics;
pub mod openapi;
pub mod page;
pub mod recovery;
pub mod secrets;
pub mod single_flight;
pub mod state;
pub mod telemetry;
#[cfg(feature = "testing")]
pub mod testing;
pub mod upstream;
pub mod webhook;
pub mod words;

pub use error::{AppError, Problem};

pub use extract::{IdempotencyKey, Json, Path, Query};
pub use page::{Cursor, PageParams, TimeIdCursor};
/// serde and sqlx, as `stored_state!` names them in the crates that use the macro.
#[doc(hidden)]
pub use serde as __serde;
#[doc(hidden)]
pub use sqlx as __sqlx;
