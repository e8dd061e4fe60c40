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
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/errors.md");
    let readme = std::fs::read_to_string(&path).unwrap_or_default();
    let (begin, end) = ("<!-- error-codes:begin -->\n", "<!-- error-codes:end -->");
    let start = readme.find(begin).map(|i| i + begin.len());
    let stop = readme.find(end);
    let (Some(start), Some(stop)) = (start, stop) else {
        panic!("docs/errors.md has no error-code table between {begin:?} and {end:?}");
    };
    let table = markdown_table();
    if std::env::var("UPDATE_README").is_ok() {
        let updated = format!("{}{table}{}", &readme[..start], &readme[stop..]);
        std::fs::write(&path, updated).unwrap_or_else(|e| panic!("{e}"));
        return;
    }
    assert_eq!(
        &readme[start..stop],
        table,
        "docs/errors.md's error table differs: UPDATE_README=1 cargo test -p platform"
    );
}
