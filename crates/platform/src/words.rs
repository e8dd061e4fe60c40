//! A problem's `detail` as a person reads it (issue 47 §6): words and dollars, never cents or a
//! rule's number left in pieces.
//!
//! The rules' refusals cite the paragraph they apply ("... come-out roll (111-501-44(a)(8))").
//! A player at a table or a retailer at a till reads the words; staff and auditors want the
//! paragraph. So every error is split once, where it is made ([`crate::AppError`]): the
//! citation leaves `detail` for the problem's `rule`. Citations nest brackets, so the split
//! matches brackets rather than trusting a pattern to stop at the right one.
//! [`unreadable`] is the check every test applies to every problem it meets
//! ([`crate::testing::send`]).

/// `detail` without the rule citations it carries in brackets, and those citations (each as
/// `K.A.R. ...`, joined by "; "), if any.
pub fn split_rule(detail: &str) -> (String, Option<String>) {
    let mut words = String::with_capacity(detail.len());
    let mut rules: Vec<String> = Vec::new();
    let mut rest = detail;
    while let Some(open) = rest.find('(') {
        let Some(len) = bracketed_len(&rest[open..]) else { break };
        let inside = &rest[open + 1..open + len - 1];
        if is_citation(inside) {
            words.push_str(rest[..open].trim_end());
            rules.push(if inside.starts_with("K.A.R.") {
                inside.to_owned()
            } else {
                format!("K.A.R. {inside}")
            });
        } else {
            words.push_str(&rest[..open + len]);
        }
        rest = &rest[open + len..];
    }
    words.push_str(rest);
    (words, if rules.is_empty() { None } else { Some(rules.join("; ")) })
}

/// Why `detail` is not a person's words, or `None` when it is: a rule's number left in it, a
/// bracket without its pair, or an amount in cents.
pub fn unreadable(detail: &str) -> Option<&'static str> {
    let mut depth = 0i32;
    for c in detail.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return Some("a closing bracket without its opening one");
        }
    }
    if depth != 0 {
        return Some("an opening bracket without its closing one");
    }
    if split_rule(detail).1.is_some() {
        return Some("a rule citation (it belongs in the problem's `rule`)");
    }
    let bytes = detail.as_bytes();
    let cents_after_digit =
        detail.match_indices(" cents").any(|(at, _)| at > 0 && bytes[at - 1].is_ascii_digit());
    if cents_after_digit {
        return Some("an amount in cents (a person reads dollars: domain::money::dollars)");
    }
    None
}

/// The length of the bracketed group `text` starts with, its closing bracket included.
fn bracketed_len(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (at, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// A rule's number: `K.A.R. 111-301-6(g)(3)` or `111-501-45(s)-(u)`, possibly several
/// (`111-5-22, 111-5-24(g)`): the text starts with one, three digits, a dash, digits, a dash.
fn is_citation(text: &str) -> bool {
    let text = text.strip_prefix("K.A.R.").unwrap_or(text).trim_start();
    let mut parts = text.splitn(3, '-');
    let (Some(title), Some(article), Some(section)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    title.len() == 3
        && title.bytes().all(|b| b.is_ascii_digit())
        && !article.is_empty()
        && article.bytes().all(|b| b.is_ascii_digit())
        && section.starts_with(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_citations_leave_no_fragment() {
        let (words, rule) = split_rule(
            "the shooter must have a pass or don't pass bet to throw the come-out roll (111-501-44(a)(8))",
        );
        assert_eq!(words, "the shooter must have a pass or don't pass bet to throw the come-out roll");
        assert_eq!(rule.as_deref(), Some("K.A.R. 111-501-44(a)(8)"));
        let (words, rule) =
            split_rule("Royal Match 21 is offered only at six-deck tables (K.A.R. 111-301-5(m))");
        assert_eq!(words, "Royal Match 21 is offered only at six-deck tables");
        assert_eq!(rule.as_deref(), Some("K.A.R. 111-301-5(m)"));
        let (words, rule) = split_rule("odds (5x) may be at most $10.00 (111-501-45(s)-(u)); ask again");
        assert_eq!(words, "odds (5x) may be at most $10.00; ask again");
        assert_eq!(rule.as_deref(), Some("K.A.R. 111-501-45(s)-(u)"));
    }

    #[test]
    fn words_without_a_citation_are_kept_whole() {
        for detail in ["a wager (an ante) is required", "unbalanced (", "no brackets at all", "(5x)"] {
            assert_eq!(split_rule(detail), (detail.to_owned(), None));
        }
    }

    #[test]
    fn unreadable_names_what_a_person_would_trip_on() {
        assert_eq!(unreadable("the ante must be $5.00 to $500.00"), None);
        assert_eq!(unreadable("not a whole number of cents"), None);
        assert!(unreadable("the ante must be 500 to 50000 cents").is_some());
        assert!(unreadable("the come-out roll(8))").is_some());
        assert!(unreadable("the ante (111-301-75(a)(1))").is_some());
        assert!(unreadable("an open (bracket").is_some());
    }
}
