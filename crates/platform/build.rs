//! `sqlx::migrate!` embeds the events log's and the audit chain's migrations when the crate
//! compiles; cargo would not compile it again when only a migration file is added or changed, and
//! the binary would run the old schema. This tells it to.
#![allow(clippy::print_stdout)]

fn main() {
    println!("cargo:rerun-if-changed=../../migrations/events");
    println!("cargo:rerun-if-changed=../../migrations/audit-chain");
}
