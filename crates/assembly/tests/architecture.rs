//! The layering rules of ADR 0006, checked on the source tree itself (no database, no network):
//!
//! - no circle among a crate's files: a file that uses another (by a `crate::` or `super::`
//!   path) is never used back, directly or through others;
//! - in the game services, no SQL outside their `store` floor;
//! - no transfer built by hand as JSON outside the ledger and `ledger-api`;
//! - a service's floors (`platform::floor!`) named only by the service itself and its own tests
//!   and benchmarks, and their `internals` feature enabled by no other crate.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// A file's module path in its crate: `store/tickets.rs` → `["store", "tickets"]`,
/// `blackjack/mod.rs` → `["blackjack"]`, `lib.rs` → `[]`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// The `crate::a::b` and `super::c` paths a file names, as absolute module paths (identifiers
/// only; what follows a `{` is not followed).
fn paths_named(text: &str, module: &[String], is_mod_file: bool) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for (prefix, base) in [
        ("crate::", Vec::new()),
        ("super::", {
            // `super` of a `mod.rs` file is its parent directory's module's parent.
            let mut parent = module.to_vec();
            if !is_mod_file || !parent.is_empty() {
                parent.pop();
            }
            parent
        }),
    ] {
        let mut rest = text;
        while let Some(at) = rest.find(prefix) {
            let before = rest[..at].chars().next_back();
            rest = &rest[at + prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let end =
                rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(rest.len());
            let mut path = base.clone();
            path.extend(rest[..end].split("::").filter(|s| !s.is_empty()).map(str::to_owned));
            found.push(path);
        }
    }
    found
}

#[test]
fn no_crate_has_a_circle_among_its_files() {
    let mut circles = Vec::new();
    for krate in std::fs::read_dir(crates_dir()).unwrap() {
        let src = krate.unwrap().path().join("src");
        if !src.is_dir() {
            continue;
        }
        let files = rust_files(&src);
        let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(&src, f)).collect();
        let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        for file in &files {
            let module = module_of(&src, file);
            if module.is_empty() {
                continue; // the crate root declares every module; it is not a floor
            }
            let is_mod_file = file.file_name().is_some_and(|n| n == "mod.rs");
            // Code only: a doc comment's link to another module is not a use of it.
            let text: String = std::fs::read_to_string(file)
                .unwrap()
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            for path in paths_named(&text, &module, is_mod_file) {
                // The longest prefix of the path that is a module of the crate.
                let target = (1..=path.len()).rev().map(|n| path[..n].to_vec()).find(|p| modules.contains(p));
                if let Some(target) = target.filter(|t| *t != module && !module.starts_with(t)) {
                    edges.entry(module.clone()).or_default().insert(target);
                }
            }
        }
        // Depth-first search for a back edge.
        fn visit(
            node: &Vec<String>,
            edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
            stack: &mut Vec<Vec<String>>,
            done: &mut BTreeSet<Vec<String>>,
            circles: &mut Vec<String>,
        ) {
            if let Some(i) = stack.iter().position(|n| n == node) {
                let circle: Vec<String> = stack[i..].iter().chain([node]).map(|m| m.join("::")).collect();
                circles.push(circle.join(" -> "));
                return;
            }
            if !done.insert(node.clone()) {
                return;
            }
            stack.push(node.clone());
            for next in edges.get(node).into_iter().flatten() {
                visit(next, edges, stack, done, circles);
            }
            stack.pop();
        }
        let mut done = BTreeSet::new();
        for node in edges.keys() {
            let mut found = Vec::new();
            visit(node, &edges, &mut Vec::new(), &mut done, &mut found);
            circles.extend(found.into_iter().map(|c| format!("{}: {c}", src.display())));
        }
    }
    assert!(circles.is_empty(), "files that use each other:\n{}", circles.join("\n"));
}

#[test]
fn every_service_writes_sql_only_in_its_store() {
    let mut outside = Vec::new();
    for service in ["ledger", "gateway", "draw-games", "table-games", "instant"] {
        let src = crates_dir().join(service).join("src");
        for file in rust_files(&src) {
            let module = module_of(&src, &file);
            let text = std::fs::read_to_string(&file).unwrap();
            if !module.iter().any(|m| m == "store")
                && (text.contains("sqlx::query") || text.contains("copy_in_raw"))
            {
                outside.push(file.display().to_string());
            }
        }
    }
    assert!(outside.is_empty(), "SQL outside a store floor: {outside:?}");
}

/// No transaction is open across a call to the ledger: a row lock held while the ledger works
/// makes every request for that row wait on it (issue 33 §2). Read from the text: from each
/// `.begin()` (or `Connection::begin(`) to the `commit` or `rollback` after it, nothing calls the
/// ledger.
#[test]
fn no_transaction_is_open_across_a_ledger_call() {
    let mut held = Vec::new();
    for service in ["gateway", "draw-games", "table-games", "instant"] {
        let src = crates_dir().join(service).join("src");
        for file in rust_files(&src) {
            let text = std::fs::read_to_string(&file).unwrap();
            let mut from = 0;
            let begins = |from: usize| {
                [".begin()", "Connection::begin("]
                    .iter()
                    .filter_map(|b| text[from..].find(b))
                    .min()
                    .map(|at| from + at)
            };
            while let Some(start) = begins(from) {
                let rest = &text[start..];
                let end = ["commit()", "rollback()"]
                    .iter()
                    .filter_map(|e| rest.find(e))
                    .min()
                    .unwrap_or(rest.len());
                if rest[..end].contains("ledger.") || rest[..end].contains("ledger_api::") {
                    let line = text[..start].lines().count();
                    held.push(format!("{}:{line}", file.display()));
                }
                from = start + 1;
            }
        }
    }
    assert!(held.is_empty(), "a transaction open across a ledger call: {held:?}");
}

/// The ledger's paths are written in `ledger-api` alone: a service calls the ledger through its
/// typed client, never by a path it builds (issue 33 §2).
#[test]
fn no_service_builds_a_ledger_path() {
    let ledger_paths = ledger_api::PATH_PREFIXES.map(|prefix| format!("\"{prefix}"));
    let mut by_hand = Vec::new();
    for krate in std::fs::read_dir(crates_dir()).unwrap() {
        let dir = krate.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if matches!(name.as_str(), "ledger" | "ledger-api") || !dir.join("src").is_dir() {
            continue;
        }
        for file in rust_files(&dir.join("src")) {
            let text = std::fs::read_to_string(&file).unwrap();
            if ledger_paths.iter().any(|path| text.contains(path.as_str())) {
                by_hand.push(file.display().to_string());
            }
        }
    }
    assert!(by_hand.is_empty(), "ledger paths written outside ledger-api: {by_hand:?}");
}

/// The source files of the services other than the ledger and its client that hold any of
/// `needles`.
fn services_sources_holding(needles: &[&str]) -> Vec<String> {
    let mut holding = Vec::new();
    for krate in std::fs::read_dir(crates_dir()).unwrap() {
        let dir = krate.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if matches!(name.as_str(), "ledger" | "ledger-api" | "assembly") || !dir.join("src").is_dir() {
            continue;
        }
        for file in rust_files(&dir.join("src")) {
            let text = std::fs::read_to_string(&file).unwrap();
            if needles.iter().any(|n| text.contains(n)) {
                holding.push(file.display().to_string());
            }
        }
    }
    holding
}

#[test]
fn no_service_builds_a_transfer_by_hand() {
    let by_hand = services_sources_holding(&["\"debit_account_id\""]);
    assert!(by_hand.is_empty(), "transfers written as JSON outside ledger-api: {by_hand:?}");
}

/// What a transfer is for is a `ledger_api::Purpose` (issue 48 §2), never an object written by
/// hand: no service's source writes a journal's `game` as JSON.
#[test]
fn no_service_writes_a_transfer_s_purpose_by_hand() {
    let by_hand = services_sources_holding(&["json!({\"game\"", "round_metadata"]);
    assert!(by_hand.is_empty(), "a transfer's purpose written as JSON outside ledger-api: {by_hand:?}");
}

/// Every crate's floors (`platform::floor!(name)` in its `src`), as `lib_name::a::b` paths.
fn floors() -> Vec<(String, String)> {
    let mut floors = Vec::new();
    for krate in std::fs::read_dir(crates_dir()).unwrap() {
        let dir = krate.unwrap().path();
        let src = dir.join("src");
        if !src.is_dir() {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let lib = name.replace('-', "_");
        for file in rust_files(&src) {
            let text = std::fs::read_to_string(&file).unwrap();
            for line in text.lines() {
                let Some(floor) = line.trim().strip_prefix("platform::floor!(") else { continue };
                let floor = floor.trim_end_matches([')', ';']);
                let mut path = vec![lib.clone()];
                path.extend(module_of(&src, &file));
                path.push(floor.to_owned());
                floors.push((name.clone(), path.join("::")));
            }
        }
    }
    floors
}

#[test]
fn a_services_floors_are_named_only_by_the_service_and_its_own_tests() {
    let floors = floors();
    assert!(floors.len() > 20, "the floors were not found: {floors:?}");
    let mut reached = Vec::new();
    for krate in std::fs::read_dir(crates_dir()).unwrap() {
        let dir = krate.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut files = Vec::new();
        for part in ["src", "tests", "benches"] {
            if dir.join(part).is_dir() {
                files.extend(rust_files(&dir.join(part)));
            }
        }
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for (owner, floor) in &floors {
                let named = text.contains(&format!("{floor}::")) || text.contains(&format!("{floor};"));
                if *owner != name && named {
                    reached.push(format!("{} names {floor}", file.display()));
                }
            }
        }
        // The feature that opens the floors: enabled by the crate's own dev-dependency only.
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        for line in manifest.lines().filter(|l| l.contains("\"internals\"") && l.contains("features")) {
            let dependency = line.split('=').next().unwrap().trim();
            if dependency != name {
                reached.push(format!("{name}'s Cargo.toml opens {dependency}'s floors"));
            }
        }
    }
    assert!(reached.is_empty(), "floors reached from outside their service: {reached:#?}");
}

/// The README stays a page a newcomer reads (issue 48 §4: under 250 lines; the long chapters are
/// in `docs/`), and every link of the README and of `docs/` to a file of the repository leads to
/// one that exists.
#[test]
fn the_readme_is_short_and_every_link_of_the_docs_resolves() {
    let root = crates_dir().join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines < 250, "README.md has {lines} lines: move the long chapters to docs/");
    let mut pages = vec![root.join("README.md")];
    for dir in [root.join("docs"), root.join("docs/adr")] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    let mut broken = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for (_, rest) in text.match_indices("](").map(|(i, _)| ((), &text[i + 2..])) {
            let Some(target) = rest.split(')').next() else { continue };
            let target = target.split('#').next().unwrap_or_default();
            if target.is_empty()
                || target.contains("://")
                || target.starts_with("mailto:")
                || target.contains(' ')
            {
                continue;
            }
            if !page.parent().unwrap().join(target).exists() {
                broken.push(format!("{}: {target}", page.strip_prefix(&root).unwrap_or(page).display()));
            }
        }
    }
    assert!(broken.is_empty(), "links to files that do not exist: {broken:#?}");
}

/// Every citation of the architecture page by section (`architecture §4`, or `DESIGN §4` in the
/// migrations written before the page had its sections) names a section the page has.
#[test]
fn every_citation_of_the_architecture_names_a_section_that_exists() {
    let root = crates_dir().join("..");
    let page = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let sections: BTreeSet<String> = page
        .lines()
        .filter_map(|l| l.strip_prefix("## ")?.split_once(". ").map(|(n, _)| n.to_owned()))
        .collect();
    assert!(sections.len() >= 10, "the page's numbered sections were not found: {sections:?}");
    let mut files = rust_files(&root.join("crates"));
    let mut stack = vec![root.join("migrations"), root.join("web/src"), root.join("docs")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| ["sql", "ts", "tsx", "md"].iter().any(|x| e == *x)) {
                files.push(path);
            }
        }
    }
    files.push(root.join("openapi.yaml"));
    let (mut cited, mut missing) = (0, Vec::new());
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for name in ["architecture §", "DESIGN §"] {
            for (at, _) in text.match_indices(name) {
                let number: String =
                    text[at + name.len()..].chars().take_while(char::is_ascii_digit).collect();
                if number.is_empty() {
                    continue; // the words themselves (this test's), not a citation
                }
                cited += 1;
                if !sections.contains(&number) {
                    missing.push(format!("{}: {name}{number}", file.strip_prefix(&root).unwrap().display()));
                }
            }
        }
    }
    assert!(cited > 40, "the citations were not found ({cited})");
    assert!(missing.is_empty(), "citations of sections docs/architecture.md does not have: {missing:#?}");
}

/// The lines of each function of `text` longer than `most`: (name, first line, lines). Braces
/// are counted outside comments, strings (raw ones too) and character literals.
fn long_functions(text: &str, most: usize) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_start();
        let signature =
            ["pub ", "pub(crate) ", "async ", "const ", "fn "].iter().any(|p| line.starts_with(p))
                && line.contains("fn ")
                && !line.starts_with("//");
        if !signature {
            i += 1;
            continue;
        }
        let name: String = line
            .split("fn ")
            .nth(1)
            .unwrap_or("")
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let (mut depth, mut opened, mut j) = (0i32, false, i);
        'lines: while j < lines.len() {
            let chars: Vec<char> = lines[j].chars().collect();
            let mut k = 0;
            while k < chars.len() {
                match chars[k] {
                    '/' if chars.get(k + 1) == Some(&'/') => break,
                    'r' if chars.get(k + 1) == Some(&'#') && chars.get(k + 2) == Some(&'"') => {
                        // A raw string, to its `"#` (on this line or a later one).
                        let closed = chars[k + 3..].iter().collect::<String>().contains("\"#");
                        if !closed {
                            while j + 1 < lines.len() && !lines[j + 1].contains("\"#") {
                                j += 1;
                            }
                            j += 1;
                        }
                        k = chars.len();
                    }
                    '"' => {
                        k += 1;
                        while k < chars.len() && chars[k] != '"' {
                            k += if chars[k] == '\\' { 2 } else { 1 };
                        }
                    }
                    '\'' if chars.get(k + 2) == Some(&'\'') || chars.get(k + 1) == Some(&'\\') => {
                        k += if chars.get(k + 1) == Some(&'\\') { 3 } else { 2 };
                    }
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => {
                        depth -= 1;
                        if opened && depth == 0 {
                            break 'lines;
                        }
                    }
                    ';' if !opened => break 'lines,
                    _ => {}
                }
                k += 1;
            }
            j += 1;
        }
        if opened && j + 1 - i > most {
            found.push((name, i + 1, j + 1 - i));
        }
        i = if opened { j + 1 } else { i + 1 };
    }
    found
}

/// At most five functions in the services' and libraries' sources run over 70 lines, each with
/// its reason beside it ("Long by design"), so a reader meets short steps (issue 48 §4).
#[test]
fn few_functions_are_long_and_each_says_why() {
    let mut long = Vec::new();
    let mut unexplained = Vec::new();
    for krate in std::fs::read_dir(crates_dir()).unwrap() {
        let src = krate.unwrap().path().join("src");
        if !src.is_dir() {
            continue;
        }
        for file in rust_files(&src) {
            let text = std::fs::read_to_string(&file).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for (name, first, count) in long_functions(&text, 70) {
                let before = lines[first.saturating_sub(7)..first - 1].join("\n");
                let at = format!("{}:{first} {name} ({count} lines)", file.display());
                if !before.contains("Long by design") {
                    unexplained.push(at.clone());
                }
                long.push(at);
            }
        }
    }
    assert!(
        unexplained.is_empty(),
        "functions over 70 lines without their reason beside them: {unexplained:#?}"
    );
    assert!(long.len() <= 5, "{} functions over 70 lines (at most 5): {long:#?}", long.len());
}
