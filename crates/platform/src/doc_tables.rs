//! Tables the docs hold that the code generates (the error codes, the event kinds): a test
//! checks each is what the code says, and `UPDATE_README=1` rewrites it.

/// Checks that `file` (from the repository's root) holds `table` between the markers
/// `<!-- {marker}:begin -->` and `<!-- {marker}:end -->`; with `UPDATE_README` set, writes it
/// there instead.
#[allow(clippy::panic)]
pub(crate) fn check(file: &str, marker: &str, table: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let (begin, end) = (format!("<!-- {marker}:begin -->\n"), format!("<!-- {marker}:end -->"));
    let (Some(start), Some(stop)) = (text.find(&begin).map(|i| i + begin.len()), text.find(&end)) else {
        panic!("{file} has no table between {begin:?} and {end:?}");
    };
    if std::env::var("UPDATE_README").is_ok() {
        let updated = format!("{}{table}{}", &text[..start], &text[stop..]);
        std::fs::write(&path, updated).unwrap_or_else(|e| panic!("{e}"));
        return;
    }
    assert_eq!(
        &text[start..stop],
        table,
        "{file}'s {marker} table differs: UPDATE_README=1 cargo test -p platform"
    );
}
