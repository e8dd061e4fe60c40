//! Spaces as the contract counts them. `openapi.yaml`'s patterns are ECMA-262 regular
//! expressions, whose `\s` is ECMA-262's white space and line terminators: not Unicode's
//! White_Space, which `char::is_whitespace` and `str::trim` use. The two differ in U+0085 (a
//! space to Rust, a letter to the contract) and U+FEFF (the reverse). A rule the contract states
//! with `\s` or `\S` (an email, a name not all spaces) is checked with these, so that the server
//! and the contract agree on every character (a schemathesis run found the difference).

/// ECMA-262's `\s`: tab, vertical tab, form feed, the byte order mark, every space separator
/// (Unicode's Zs), and the four line terminators.
pub fn is_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{B}' | '\u{C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}' | '\u{FEFF}'
    )
}

/// `text` without the contract's spaces at either end.
pub fn trim(text: &str) -> &str {
    text.trim_matches(is_space)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spaces_are_the_contracts_not_unicodes() {
        assert!(!is_space('\u{85}'), "NEL is not an ECMA-262 space");
        assert!(is_space('\u{FEFF}'), "the byte order mark is");
        assert_eq!(trim("\u{FEFF} Pat \u{3000}"), "Pat");
        assert_eq!(trim("\u{85}"), "\u{85}");
        // Every other Unicode space is one to both.
        for c in (0..=0x3000u32).filter_map(char::from_u32).filter(|c| c.is_whitespace() && *c != '\u{85}') {
            assert!(is_space(c), "{:?}", c);
        }
    }
}
