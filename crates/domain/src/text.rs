//! Spaces as the contract counts them. `openapi.yaml`'s patterns are ECMA-262 regular
//! expressions, whose `\s` is ECMA-262's white space and line terminators: not Unicode's
//! White_Space, which `char::is_whitespace` and `str::trim` use. The two differ in U+0085 (a
//! space to Rust, a letter to the contract) and U+FEFF (the reverse). A rule the contract states
//! with `\s` or `\S` (an email, a name not all spaces) is checked with these, so that the server
//! and the contract agree on every character (a schemathesis run found the difference).
//!
//! And email addresses as a person reads them (issue 47 §3): a self-excluded or listed person
//! re-registered with `+tag`, a dot, a zero-width space, a full-width letter or a Cyrillic
//! look-alike in the address. [`email_refusal`] says why an address may not be registered;
//! [`email_match_key`] is the form two addresses are compared in when a person is looked for.

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

/// Why `email` may not be registered, if it may not: it holds an invisible or control
/// character (Unicode's Other categories: a zero-width space, a direction mark, a soft hyphen),
/// a compatibility form (its NFKC differs from its NFC: a full-width letter, a ligature), or
/// letters of two scripts in one part (a Cyrillic `а` among Latin letters; a part wholly in
/// one script, `иван@example.com`, is someone's real address).
pub fn email_refusal(email: &str) -> Option<&'static str> {
    use unicode_normalization::UnicodeNormalization;
    use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};
    use unicode_security::MixedScript;
    if email.chars().any(|c| c.general_category_group() == GeneralCategoryGroup::Other) {
        return Some("an email may not hold invisible or control characters");
    }
    if !email.nfkc().eq(email.nfc()) {
        return Some("an email is written in ordinary letters (no full-width letters or ligatures)");
    }
    let (local, domain) = email.rsplit_once('@').unwrap_or((email, ""));
    if !local.is_single_script() || !domain.split('.').all(MixedScript::is_single_script) {
        return Some(
            "an email may not mix letters of different scripts that look alike (a Cyrillic а among Latin letters)",
        );
    }
    None
}

/// Providers whose addresses are the same under another domain name.
const SAME_MAILBOX_DOMAINS: [(&str, &str); 1] = [("googlemail.com", "gmail.com")];

/// The form `email` is compared in when a person is looked for (exclusion lists, a
/// self-exclusion's re-registration): NFKC and case-folded, each character replaced by its
/// confusable skeleton (UTS #39: a Cyrillic `а`, a full-width `ａ` and `a` alike; invisible
/// characters gone), then the local part's sub-address (`+tag`) and dots dropped and a
/// provider's other domain name mapped to its own. For matching only: the address is kept and
/// mailed as given. Dots are dropped for every provider, not only those that ignore them, since
/// a match also needs the date of birth: two people whose addresses differ only by dots and who
/// were born the same day are rare, and a refusal is logged for an operator to review.
pub fn email_match_key(email: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let folded = email.nfkc().collect::<String>().to_lowercase();
    let (local, domain) = folded.rsplit_once('@').unwrap_or((folded.as_str(), ""));
    let domain =
        SAME_MAILBOX_DOMAINS.iter().find(|(alias, _)| *alias == domain).map_or(domain, |(_, own)| own);
    let skeleton = |text: &str| unicode_security::skeleton(text).collect::<String>().to_lowercase();
    let local: String =
        skeleton(local).split('+').next().unwrap_or_default().chars().filter(|c| *c != '.').collect();
    format!("{local}@{}", skeleton(domain))
}

/// The form a legal name is compared in when a person is looked for on an exclusion list
/// (issue 49 §KYC): compatibility-decomposed (NFKD), its letters and digits only, accents,
/// case, spaces and punctuation aside (`José O'Brien-Smith` and `JOSE OBRIEN SMITH` alike). A
/// match needs the date of birth too.
pub fn name_match_key(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    name.nfkd().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_matched_as_a_person_reads_it() {
        let key = name_match_key;
        assert_eq!(key("José O'Brien-Smith"), key("JOSE  OBRIEN SMITH"));
        assert_eq!(key("Ｖｉｃ Vance"), "vicvance");
        assert_ne!(key("Vic Vance"), key("Vick Vance"));
    }

    /// The five ways the outside check re-registered a self-excluded person, and the plain
    /// addresses that must still register.
    #[test]
    fn look_alike_addresses_share_one_key_and_the_tricks_are_refused() {
        let key = email_match_key("ann.lee@example.com");
        let tricks = [
            ("ann.lee+again@example.com", false),
            ("annlee@example.com", false),
            ("ann.l\u{200B}ee@example.com", true),
            ("ａnn.lee@example.com", true),
            ("аnn.lee@example.com", true), // Cyrillic а
            ("ANN.Lee@Example.COM", false),
            ("ann.lee@EXAMPLE.com", false),
        ];
        for (trick, refused) in tricks {
            assert_eq!(email_match_key(trick), key, "{trick:?}");
            assert_eq!(email_refusal(trick).is_some(), refused, "{trick:?}");
        }
        assert_eq!(email_match_key("ann.lee@googlemail.com"), email_match_key("annlee@gmail.com"));
        for plain in
            ["ann@example.com", "jürgen@example.de", "иван@example.com", "o'brien-2@mail.example.org"]
        {
            assert_eq!(email_refusal(plain), None, "{plain}");
        }
        // Other people stay other people.
        assert_ne!(email_match_key("ann@example.com"), email_match_key("anne@example.com"));
        assert_ne!(email_match_key("ann@example.com"), email_match_key("ann@example.org"));
        // Control characters and direction marks are refused too.
        for hidden in ["ann\u{7}@example.com", "ann\u{202E}@example.com", "an\u{AD}n@example.com"] {
            assert!(email_refusal(hidden).is_some(), "{hidden:?}");
        }
    }

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

/// The lottery's time zone (Kansas: central time), the one every time a person reads is shown
/// in, labelled: the web client's `LOTTERY_ZONE` is the same.
pub const LOTTERY_ZONE: chrono_tz::Tz = chrono_tz::America::Chicago;

/// `at` as a receipt or a refusal prints it: `2026-12-06 18:05:00 CST` (CDT in summer).
pub fn lottery_time(at: chrono::DateTime<chrono::Utc>) -> String {
    at.with_timezone(&LOTTERY_ZONE).format("%Y-%m-%d %H:%M:%S %Z").to_string()
}

#[cfg(test)]
mod lottery_time_tests {
    use chrono::TimeZone;

    #[test]
    fn central_time_labelled_with_daylight_saving() {
        let winter = chrono::Utc.with_ymd_and_hms(2026, 12, 6, 0, 5, 0).single().unwrap_or_default();
        assert_eq!(super::lottery_time(winter), "2026-12-05 18:05:00 CST");
        let summer = chrono::Utc.with_ymd_and_hms(2026, 7, 1, 3, 0, 0).single().unwrap_or_default();
        assert_eq!(super::lottery_time(summer), "2026-06-30 22:00:00 CDT");
    }
}
