//! `sqlx::migrate!` embeds this service's migrations when the crate compiles; cargo would not
//! compile it again when only a migration file is added or changed, and the binary would run the
//! old schema and functions. This tells it to.
#![allow(clippy::print_stdout)]

fn main() {
    println!("cargo:rerun-if-changed=../../migrations/gateway");
}
