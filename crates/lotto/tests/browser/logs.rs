//! What the run's `lotto` logged (issue 51): JSON lines, a line per request with its route,
//! status, latency and caller, and never a secret the run handed out or was handed: no password,
//! access token, API key, TOTP secret, recovery code, VIRN, kept key or seed, no SSN.

use std::collections::HashSet;
use std::path::Path;

/// Checks the log at `log`; `dir` holds the secrets `lotto` kept (`.lotto/secrets`). `whole`:
/// every journey ran (a run of some of them may log few requests, or none).
pub fn nothing_secret(log: &Path, dir: &Path, whole: bool) -> Result<(), String> {
    let text = std::fs::read_to_string(log).map_err(|e| format!("{}: {e}", log.display()))?;
    let mut requests = 0usize;
    for (n, line) in text.lines().enumerate() {
        let parsed: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("line {} is not JSON ({e}): {line}", n + 1))?;
        if parsed["target"] == "lotto::access" {
            let span = &parsed["span"];
            for field in ["route", "method", "request_id"] {
                if span[field].is_null() || parsed["status"].is_null() || parsed["latency_ms"].is_null() {
                    return Err(format!("an access line without its {field}: {line}"));
                }
            }
            requests += 1;
        }
    }
    let callers = text.matches("\"caller_kind\":\"player\"").count();
    if whole && (requests < 100 || callers == 0 || !text.contains("\"caller_kind\":\"operator\"")) {
        return Err(format!(
            "{requests} access lines, {callers} of a player's: the requests are not logged with their callers"
        ));
    }
    let mut secrets = crate::common::handed_out();
    secrets.extend(
        [crate::journeys::STAFF_PASSWORD, crate::journeys::PLAYER_PASSWORD, crate::journeys::NEW_PASSWORD]
            .map(str::to_owned),
    );
    secrets.push(crate::common::SECRET.to_owned());
    // The keys lotto made and kept (the signing key's seed, the VIRN key, the age identities):
    // each of their words long enough to be one.
    let kept = dir.join(".lotto/secrets");
    for entry in std::fs::read_dir(&kept).map_err(|e| format!("{}: {e}", kept.display()))?.flatten() {
        let content = std::fs::read_to_string(entry.path()).unwrap_or_default();
        secrets.extend(content.split_whitespace().filter(|w| w.len() >= 16).map(str::to_owned));
    }
    if whole && secrets.len() < 50 {
        return Err(format!("only {} secrets were handed out: the scan would prove little", secrets.len()));
    }
    // Thousands of secrets (every printed ticket's VIRN) in a log of megabytes: each is looked
    // for among the log's words first, and in the whole text only if its words are all there.
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let words: HashSet<&str> = text.split(|c: char| !word(c)).filter(|w| w.len() >= 8).collect();
    let leaked: Vec<&String> = secrets
        .iter()
        .filter(|secret| {
            let mut parts = secret.split(|c: char| !word(c)).filter(|w| w.len() >= 8).peekable();
            let maybe = parts.peek().is_none() || parts.all(|p| words.contains(p));
            maybe && text.contains(secret.as_str())
        })
        .collect();
    if !leaked.is_empty() {
        return Err(format!(
            "the log holds {} secrets handed out, among them {:?}",
            leaked.len(),
            &leaked[..1]
        ));
    }
    // Tokens the pages got for themselves: any JSON Web Token at all.
    if let Some(at) = text.find("eyJ") {
        let around = &text[at.saturating_sub(80)..(at + 40).min(text.len())];
        return Err(format!("the log holds what looks like a token: ...{around}..."));
    }
    if text.to_lowercase().contains("ssn") {
        return Err("the log names a social security number".to_owned());
    }
    println!(
        "    {requests} requests logged as JSON lines; none of {} secrets handed out appears",
        secrets.len()
    );
    Ok(())
}
