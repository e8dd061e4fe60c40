//! State and operator exclusion lists (issue 35, ADR 0014 §5): entries entered by an operator
//! or imported from a file, matched against every player on every replica's check (every
//! `LOTTO_EXCLUSION_LIST_CHECK_S`, 15 minutes by default, so within the hour) and at once after
//! each change, and at registration; every match logged. A matched player's play is suspended
//! in the ledger, their sessions end and their tickets for future draws are voided, as at a
//! self-exclusion; they may log in to withdraw. And the dormant accounts' list.
//!
//! The file (`POST /v1/exclusion-list/import`, `text/csv`): a header line
//! `source,reference,email,date_of_birth,ends_on` (or the same with `,legal_name,ssn_last4`),
//! then one person a line: `source` `state` or `operator`; `reference` the list's own, 1 to 64
//! characters; `email`; `date_of_birth` and `ends_on` as `YYYY-MM-DD` or empty; `legal_name`
//! and `ssn_last4` (four digits) or empty. A player matches by email, or by a verified
//! identity's legal name and date of birth (and the SSN's last four where both give them). No field holds a comma or a quote. The whole file is
//! taken or, at its first bad line, none of it (422 `invalid_exclusion_list` naming the line
//! and field).

use chrono::NaiveDate;
use platform::AppError;
use platform::codes;
use platform::config::Secret;
use platform::page::{PageParams, TimeIdCursor};
use uuid::Uuid;

use crate::GatewayState;
use crate::auth::end_sessions;
use crate::credentials::valid_email;
use crate::saga::mail::Letter;
use crate::saga::protection::{each_player, sync_play};
use crate::store::exclusions::{self as store, NewEntry};
use crate::views::protection::{
    DormantAccount, DormantAccounts, ExclusionEntry, ExclusionEntryRequest, ExclusionImport,
    ExclusionRemoval, ExclusionSource,
};

/// The most lines one file may hold.
const MAX_LINES: usize = 100_000;

/// The header a file starts with.
pub const CSV_HEADER: &str = "source,reference,email,date_of_birth,ends_on";
/// The header of a file that names people by their legal name (and SSN digits) too.
pub const CSV_HEADER_WITH_NAMES: &str = "source,reference,email,date_of_birth,ends_on,legal_name,ssn_last4";

/// What an entry names a person by beyond the email.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Named<'a> {
    pub legal_name: Option<&'a str>,
    pub ssn_last4: Option<&'a str>,
}

fn bad(line: usize, detail: impl std::fmt::Display) -> AppError {
    let at = if line == 0 { String::new() } else { format!("line {line}: ") };
    AppError::unprocessable(codes::INVALID_EXCLUSION_LIST, format!("{at}{detail}"))
        .with_context(serde_json::json!({ "line": line }))
}

/// One entry checked: the reference's length, the email's form (lower-cased), a legal name's
/// (with the date of birth it needs), the SSN's four digits (kept as a digest under `key`).
#[allow(clippy::too_many_arguments)] // Each a field of the entry, as the line gives it.
fn entry(
    line: usize,
    source: ExclusionSource,
    reference: &str,
    email: &str,
    date_of_birth: Option<NaiveDate>,
    ends_on: Option<NaiveDate>,
    named: Named<'_>,
    key: &Secret,
) -> Result<NewEntry, AppError> {
    let (sent, reference) = (reference.chars().count(), reference.trim());
    if reference.is_empty() || sent > 64 || reference.chars().any(char::is_control) {
        return Err(bad(line, "`reference` is 1 to 64 visible characters"));
    }
    let email = email.trim().to_lowercase();
    if !valid_email(&email) {
        return Err(bad(line, format!("`email` {email:?} is not an email address")));
    }
    // Empty is none; a name of spaces alone is not a name.
    let legal_name = named.legal_name.filter(|n| !n.is_empty());
    if legal_name.is_some_and(|n| n.trim_matches(domain::text::is_space).is_empty()) {
        return Err(bad(line, "`legal_name` is not all spaces"));
    }
    let legal_name = legal_name.map(|n| n.trim_matches(domain::text::is_space));
    if let Some(name) = legal_name {
        if name.chars().count() > 200 || name.chars().any(char::is_control) {
            return Err(bad(line, "`legal_name` is at most 200 visible characters"));
        }
        if date_of_birth.is_none() {
            return Err(bad(line, "a `legal_name` is matched with the `date_of_birth`: give it"));
        }
    }
    let ssn = named.ssn_last4.filter(|s| !s.is_empty());
    if ssn.is_some_and(|s| s.len() != 4 || !s.chars().all(|c| c.is_ascii_digit())) {
        return Err(bad(line, "`ssn_last4` is the last four digits of the SSN"));
    }
    Ok(NewEntry {
        source: source.as_str().to_owned(),
        reference: reference.to_owned(),
        email_key: domain::text::email_match_key(&email),
        email,
        date_of_birth,
        ends_on,
        legal_name: legal_name.map(str::to_owned),
        name_key: legal_name.map(domain::text::name_match_key),
        ssn_digest: ssn.map(|s| crate::saga::identity::ssn_digest(key, s)),
    })
}

/// A file's entries, every line checked.
pub(crate) fn parse_csv(text: &str, key: &Secret) -> Result<Vec<NewEntry>, AppError> {
    let mut lines = text.lines();
    let header = lines.next().map(|h| h.trim().trim_start_matches('\u{feff}'));
    let columns = match header {
        Some(CSV_HEADER) => 5,
        Some(CSV_HEADER_WITH_NAMES) => 7,
        _ => {
            return Err(bad(
                1,
                format!("the first line is the header `{CSV_HEADER}` or `{CSV_HEADER_WITH_NAMES}`"),
            ));
        }
    };
    let date = |line: usize, name: &str, text: &str| -> Result<Option<NaiveDate>, AppError> {
        match text.trim() {
            "" => Ok(None),
            t => t
                .parse()
                .map(Some)
                .map_err(|_| bad(line, format!("`{name}` {t:?} is not a date (YYYY-MM-DD)"))),
        }
    };
    let mut entries = Vec::new();
    for (i, text) in lines.enumerate() {
        let line = i + 2;
        if text.trim().is_empty() {
            continue;
        }
        if entries.len() == MAX_LINES {
            return Err(bad(line, format!("a file holds at most {MAX_LINES} lines")));
        }
        let fields: Vec<&str> = text.split(',').collect();
        if fields.len() != columns {
            return Err(bad(line, format!("{columns} fields, not {}", fields.len())));
        }
        let [source, reference, email, born, ends, ..] = fields[..] else {
            return Err(bad(line, format!("{columns} fields, not {}", fields.len())));
        };
        let named = Named {
            legal_name: fields.get(5).map(|f| f.trim_matches(domain::text::is_space)),
            ssn_last4: fields.get(6).map(|f| f.trim()),
        };
        let source = match source.trim() {
            "state" => ExclusionSource::State,
            "operator" => ExclusionSource::Operator,
            other => return Err(bad(line, format!("`source` {other:?} is `state` or `operator`"))),
        };
        let born = date(line, "date_of_birth", born)?;
        let ends = date(line, "ends_on", ends)?;
        entries.push(entry(line, source, reference, email, born, ends, named, key)?);
    }
    if entries.is_empty() {
        return Err(bad(0, "the file names nobody"));
    }
    Ok(entries)
}

/// Rows sent as JSON (`POST /v1/exclusion-list/import`), each checked as a file's line is (the
/// first row is line 1).
pub(crate) fn parse_rows(rows: Vec<ExclusionEntryRequest>, key: &Secret) -> Result<Vec<NewEntry>, AppError> {
    if rows.is_empty() {
        return Err(bad(0, "the list names nobody"));
    }
    if rows.len() > MAX_LINES {
        return Err(bad(0, format!("a list holds at most {MAX_LINES} people")));
    }
    rows.into_iter()
        .enumerate()
        .map(|(i, r)| {
            let named = Named { legal_name: r.legal_name.as_deref(), ssn_last4: r.ssn_last4.as_deref() };
            entry(i + 1, r.source, &r.reference, &r.email, r.date_of_birth, r.ends_on, named, key)
        })
        .collect()
}

/// Adds one entry (as an operator enters it) and applies the lists at once.
pub(crate) async fn add(
    state: &GatewayState,
    by: &str,
    request: ExclusionEntryRequest,
) -> Result<ExclusionImport, AppError> {
    let new = parse_rows(vec![request], &state.identity.key)?;
    import(state, by, new).await
}

/// Writes `entries` and applies the lists at once.
pub(crate) async fn import(
    state: &GatewayState,
    by: &str,
    entries: Vec<NewEntry>,
) -> Result<ExclusionImport, AppError> {
    let count = u64::try_from(entries.len()).unwrap_or(u64::MAX);
    let added = store::upsert(&state.pool, &entries, by).await?;
    let (excluded, _) = apply(state).await?;
    Ok(ExclusionImport { added, replaced: count - added, players_excluded: excluded })
}

/// Takes entry `id` off the lists (kept on the record, with who took it off) and applies the
/// lists at once: the players it held have their standing worked out again.
pub(crate) async fn remove(state: &GatewayState, by: &str, id: Uuid) -> Result<ExclusionRemoval, AppError> {
    if !store::remove(&state.pool, id, by).await? {
        return Err(AppError::not_found(
            codes::EXCLUSION_ENTRY_NOT_FOUND,
            format!("no entry {id} is on the exclusion lists"),
        ));
    }
    let (_, released) = apply(state).await?;
    Ok(ExclusionRemoval { players_released: released })
}

/// Matches the lists against every player: the newly matched are excluded (their play
/// suspended, sessions ended, future tickets voided) and those whose entry ended or left the
/// list have their standing worked out again. Answers how many of each.
pub(crate) async fn apply(state: &GatewayState) -> Result<(u64, u64), AppError> {
    // Marked by one statement, so each player is handled by the pass that marked them: sessions
    // end first (this database), then the ledger and draw games are told; a call that fails
    // there is asked again by the voids' worker (`voids_pending_since`).
    key_unkeyed_addresses(state).await?;
    let matched = store::mark_matches(&state.pool).await?;
    let excluded = each_player(&matched, |player| async move {
        tracing::warn!(%player, "a player matched an exclusion list: excluded");
        end_sessions(state, &player.to_string(), None, "exclusion_list").await?;
        let email = crate::saga::players::load_player(state, player).await?.email;
        let letter = Letter::excluded(None, true, &state.protection.help_line);
        crate::saga::mail::tell(state, player, &email, &letter).await?;
        sync_play(state, player).await.map(drop)
    })
    .await;
    let ended = store::unmark_ended(&state.pool).await?;
    each_player(&ended, |player| sync_play(state, player)).await?;
    excluded?;
    let count = |v: &[Uuid]| u64::try_from(v.len()).unwrap_or(u64::MAX);
    Ok((count(&matched), count(&ended)))
}

/// Gives the addresses written before match keys existed their keys, a thousand at a time, so
/// that every list pass matches them as it matches the rest.
async fn key_unkeyed_addresses(state: &GatewayState) -> Result<(), AppError> {
    loop {
        let (players, entries) = store::unkeyed(&state.pool, 1_000).await?;
        if players.is_empty() && entries.is_empty() {
            return Ok(());
        }
        let key = |rows: Vec<(Uuid, String)>| {
            rows.into_iter()
                .map(|(id, email)| (id, domain::text::email_match_key(&email)))
                .collect::<Vec<_>>()
        };
        store::keep_keys(&state.pool, &key(players), &key(entries)).await?;
    }
}

/// The entries on the lists.
pub(crate) async fn entries(state: &GatewayState) -> Result<Vec<ExclusionEntry>, AppError> {
    Ok(store::entries(&state.pool)
        .await?
        .into_iter()
        .map(|e| ExclusionEntry {
            id: e.id,
            source: e.source,
            reference: e.reference,
            email: e.email,
            legal_name: e.legal_name,
            date_of_birth: e.date_of_birth,
            ends_on: e.ends_on,
            added_by: e.added_by,
            added_at: e.added_at,
            matches: e.matches,
        })
        .collect())
}

/// A page of the dormant accounts with their balances (still their players').
pub(crate) async fn dormant(
    state: &GatewayState,
    page: &PageParams<TimeIdCursor>,
) -> Result<DormantAccounts, AppError> {
    let (after, limit) = (page.after()?, page.limit()?);
    let days = state.protection.dormant_after_days;
    let days = i32::try_from(days).unwrap_or(i32::MAX);
    let rows = store::dormant(&state.pool, days, after.map(|c| (c.at, c.id)), limit).await?;
    let last = rows.last().map(|r| TimeIdCursor { at: r.last_login_at.unwrap_or(r.created_at), id: r.id });
    let next = page.next_cursor(rows.len(), last);
    let mut accounts = Vec::with_capacity(rows.len());
    for row in rows {
        accounts.push(DormantAccount {
            player_id: row.id,
            email: row.email,
            last_login_at: row.last_login_at,
            inactive_since: row.last_login_at.unwrap_or(row.created_at),
            balance_cents: state.ledger.balance(row.wallet_account_id).await?,
        });
    }
    let total_balance_cents = accounts.iter().map(|a| a.balance_cents).sum();
    Ok(DormantAccounts {
        dormant_after_days: state.protection.dormant_after_days,
        accounts,
        total_balance_cents,
        next,
    })
}

/// Marks dormant the accounts whose players have not logged in for the dormancy period, each
/// once with its significant event (a login clears it); returns how many this call marked.
pub(crate) async fn mark_dormant(state: &GatewayState) -> Result<usize, AppError> {
    let days = i32::try_from(state.protection.dormant_after_days).unwrap_or(i32::MAX);
    store::mark_dormant(&state.pool, days, 500).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_taken_whole_or_refused_at_its_first_bad_line() {
        let good = format!(
            "{CSV_HEADER}\nstate,KS-1,Ann@Example.com,1980-02-03,\n\noperator,OP-9,bob@example.com,,2027-01-31\n"
        );
        let entries = parse_csv(&good, &Secret::new(b"k".to_vec())).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(
            (entries[0].email.as_str(), entries[0].date_of_birth),
            ("ann@example.com", NaiveDate::from_ymd_opt(1980, 2, 3))
        );
        assert_eq!(entries[1].ends_on, NaiveDate::from_ymd_opt(2027, 1, 31));
        let named = format!(
            "{CSV_HEADER_WITH_NAMES}\nstate,KS-2,c@d.co,1975-06-07,,José  Ortiz,0042\nstate,KS-3,e@f.co,,,,\n"
        );
        let entries = parse_csv(&named, &Secret::new(b"k".to_vec())).unwrap();
        assert_eq!(
            (entries[0].legal_name.as_deref(), entries[0].name_key.as_deref()),
            (Some("José  Ortiz"), Some("joseortiz"))
        );
        assert_eq!(entries[0].ssn_digest.as_ref().map(Vec::len), Some(32), "kept as a digest");
        assert_eq!((entries[1].name_key.as_deref(), entries[1].ssn_digest.as_ref()), (None, None));
        for (text, line) in [
            (format!("{CSV_HEADER_WITH_NAMES}\nstate,KS-2,c@d.co,,,José Ortiz,"), 2),
            (format!("{CSV_HEADER_WITH_NAMES}\nstate,KS-2,c@d.co,1975-06-07,,José Ortiz,42"), 2),
            (format!("{CSV_HEADER_WITH_NAMES}\nstate,KS-2,c@d.co,1975-06-07,"), 2),
            ("source,email\nstate,a@b.c".to_owned(), 1),
            (format!("{CSV_HEADER}\nstate,KS-1,a@b.co,,\ncounty,KS-2,c@d.co,,"), 3),
            (format!("{CSV_HEADER}\nstate,KS-1,not-an-email,,"), 2),
            (format!("{CSV_HEADER}\nstate,KS-1,a@b.co,03/02/1980,"), 2),
            (format!("{CSV_HEADER}\nstate,,a@b.co,,"), 2),
            (format!("{CSV_HEADER}\nstate,KS-1,a@b.co"), 2),
            (CSV_HEADER.to_owned(), 0),
        ] {
            let refused = parse_csv(&text, &Secret::new(b"k".to_vec())).unwrap_err();
            assert_eq!(refused.code(), "invalid_exclusion_list", "{text}");
            assert_eq!(refused.to_problem().context.and_then(|c| c["line"].as_u64()), Some(line), "{text}");
        }
    }
}
