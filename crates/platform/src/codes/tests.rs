//! The catalogue's own checks: each code once, in order, and the error page listing them all.

use super::*;

#[test]
fn each_code_and_status_is_listed_once_in_order() {
    for pair in ALL.windows(2) {
        assert!((pair[0].status, pair[0].code) < (pair[1].status, pair[1].code), "{pair:?}");
    }
    for c in ALL {
        assert!(c.code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{}", c.code);
        assert!((400..600).contains(&c.status), "{}", c.code);
    }
}

/// The error table the README links (`docs/errors.md`) is this one (`UPDATE_README=1`
/// rewrites it).
#[test]
fn the_error_page_lists_every_code() {
    crate::doc_tables::check("docs/errors.md", "error-codes", &markdown_table());
}
