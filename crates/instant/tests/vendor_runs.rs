//! A run the printing vendor generated (issue 14), imported from its validation file delivered
//! encrypted to the lottery's key: checked line by line and stored whole, or refused whole with
//! its reasons and nothing kept; a ticket of an imported run paid at the counter exactly once.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::Write;

use axum::http::StatusCode;
use common::{get, post, scan, service, staff, till};
use domain::instant::GameDefinition;
use domain::instant::print_run::{PrintedTicket, pool_counts, print_pool};
use platform::auth::Role;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde_json::{Value, json};

/// The vendor's run of `game` from book `first_book`, as its own generator made it.
fn vendors_run(game: &GameDefinition, first_book: u32, seed: u64) -> Vec<PrintedTicket> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut tickets = Vec::new();
    for (pool, counts) in pool_counts(game).iter().enumerate() {
        tickets.extend(print_pool(game, first_book, u32::try_from(pool).unwrap(), counts, &mut rng).unwrap());
    }
    tickets
}

/// The file's clear text (docs/formats/vendor-validation-file.md).
fn clear_text(game: &GameDefinition, tickets: &[PrintedTicket]) -> String {
    let mut text = format!("lotto vendor validation file v1\ngame|{}\n", game.number);
    for t in tickets {
        let prize = t
            .prize_row
            .map(|r| game.prizes[r].composition.iter().map(i64::to_string).collect::<Vec<_>>().join("+"))
            .unwrap_or_default();
        text.push_str(&format!(
            "ticket|{}|{}|{}|{}|{prize}|{}\n",
            t.book,
            t.ticket,
            t.barcode,
            t.virn,
            t.face.to_text()
        ));
    }
    text.push_str(&format!("end|{}\n", tickets.len()));
    text
}

/// Delivers `text` to the inbox as `name`, encrypted to `recipient`.
fn deliver(state: &instant::InstantState, name: &str, text: &str, recipient: &age::x25519::Recipient) {
    std::fs::create_dir_all(&state.settings.vendor_file_dir).unwrap();
    let file = std::fs::File::create(state.settings.vendor_file_dir.join(name)).unwrap();
    let encryptor =
        age::Encryptor::with_recipients(std::iter::once(recipient as &dyn age::Recipient)).unwrap();
    let mut writer = encryptor.wrap_output(file).unwrap();
    writer.write_all(text.as_bytes()).unwrap();
    writer.finish().unwrap();
}

/// Starts the import of `name` and follows its job to its end.
async fn import(router: &axum::Router, operator: &str, name: &str) -> Value {
    let started = post(router, "/v1/instant/games/283/vendor-runs", operator, json!({"file": name})).await;
    assert_eq!(started.status, StatusCode::ACCEPTED, "{}", started.body);
    assert_eq!(started.body["source"], "vendor_file");
    let job = started.body["id"].as_str().unwrap().to_owned();
    for _ in 0..1_200 {
        let now = get(router, &format!("/v1/instant/print-jobs/{job}"), operator).await;
        if !matches!(now.body["state"].as_str(), Some("queued" | "running")) {
            return now.body;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the import did not finish in a minute");
}

/// Packs and tickets stored.
async fn packs(state: &instant::InstantState) -> (i64, i64) {
    sqlx::query_as("SELECT (SELECT count(*) FROM packs), (SELECT count(*) FROM tickets)")
        .fetch_one(&state.pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_vendors_file_is_imported_whole_and_its_ticket_paid_once_or_refused_whole_with_reasons() {
    let (router, state, tokens) = service().await;
    let operator = staff(&tokens, "olga", Role::Operator);
    let shop = till(&tokens, "till-1", "shop-vendor");
    let game = common::game(&state, 283);
    let lottery = state.settings.lottery_identity.0.to_public();
    let keys = get(&router, "/v1/instant/keys", &operator).await;
    assert_eq!(keys.body["lottery_recipient"], lottery.to_string());
    let tickets = vendors_run(&game, 0, 99);
    let places: std::collections::HashSet<(u32, u32)> = tickets.iter().map(|t| (t.book, t.ticket)).collect();
    assert_eq!(
        places.len(),
        tickets.len(),
        "first {:?}",
        tickets.iter().take(3).map(|t| (t.book, t.ticket)).collect::<Vec<_>>()
    );

    // Refused whole: a winner listed as a loser (its face still pays), a barcode not its
    // ticket's, a ticket missing; every reason given, nothing kept.
    let mut wrong = tickets.clone();
    let winner_at = wrong.iter().position(|t| t.prize_row.is_some()).unwrap();
    wrong[winner_at].prize_row = None;
    wrong[1].barcode = "283-000000-000-4".to_owned();
    wrong.remove(5);
    deliver(&state, "vendor-283-wrong.age", &clear_text(&game, &wrong), &lottery);
    let refused = import(&router, &operator, "vendor-283-wrong.age").await;
    assert_eq!(refused["state"], "failed", "{refused}");
    let reasons = refused["error"].as_str().unwrap();
    for reason in
        ["refused whole", "the face pays", "is not ticket 0-1's", "comes next", "winners; the game has"]
    {
        assert!(reasons.contains(reason), "{reason:?} missing from {reasons}");
    }
    assert_eq!(packs(&state).await, (0, 0), "a refused file keeps nothing");

    // Not encrypted to the lottery: refused, saying why.
    let stranger = age::x25519::Identity::generate().to_public();
    deliver(&state, "vendor-283-stranger.age", &clear_text(&game, &tickets), &stranger);
    let undecryptable = import(&router, &operator, "vendor-283-stranger.age").await;
    assert!(undecryptable["error"].as_str().unwrap().contains("cannot be decrypted"), "{undecryptable}");

    // The right file: imported, its books and prizes as the vendor printed them.
    deliver(&state, "vendor-283.age", &clear_text(&game, &tickets), &lottery);
    let imported = import(&router, &operator, "vendor-283.age").await;
    assert_eq!(imported["state"], "succeeded", "{imported}");
    assert_eq!(imported["tickets_stored"].as_u64(), Some(game.tickets_ordered));
    let held = i64::try_from(tickets.len()).unwrap();
    let books = held / i64::try_from(game.ticket_numbers.tickets_per_book()).unwrap();
    assert_eq!(packs(&state).await, (books, held));
    let (source, sha): (String, Option<Vec<u8>>) =
        sqlx::query_as("SELECT source, vendor_file_sha256 FROM print_runs WHERE id = $1")
            .bind(imported["print_run"].as_str().unwrap().parse::<uuid::Uuid>().unwrap())
            .fetch_one(&state.pool)
            .await
            .unwrap();
    use sha2::Digest;
    let delivered = std::fs::read(state.settings.vendor_file_dir.join("vendor-283.age")).unwrap();
    assert_eq!((source.as_str(), sha), ("vendor_file", Some(sha2::Sha256::digest(&delivered).to_vec())));
    // The clear VIRNs were hashed: no column holds one.
    let winner = tickets.iter().find(|t| t.prize_row == Some(0)).unwrap();
    let clear: i64 = sqlx::query_scalar("SELECT count(*) FROM tickets WHERE face LIKE '%' || $1 || '%' OR encode(virn_hash, 'escape') LIKE '%' || $1 || '%'")
        .bind(&winner.virn)
        .fetch_one(&state.pool)
        .await
        .unwrap();
    assert_eq!(clear, 0);

    // Its ticket at the counter: paid once.
    post(
        &router,
        &format!("/v1/instant/packs/283/{}/ship", winner.book),
        &operator,
        json!({"retailer_id": "shop-vendor"}),
    )
    .await;
    post(&router, &format!("/v1/instant/packs/283/{}/activate", winner.book), &shop, json!(null)).await;
    let paid = post(&router, "/v1/instant/claims", &shop, scan(winner)).await;
    assert_eq!(
        (paid.status, paid.body["paid_cents"].as_i64()),
        (StatusCode::CREATED, Some(game.prizes[0].value_cents)),
        "{}",
        paid.body
    );
    assert_eq!(post(&router, "/v1/instant/claims", &shop, scan(winner)).await.code(), "already_paid");

    // The same file again: its books are printed now.
    let again = import(&router, &operator, "vendor-283.age").await;
    assert!(again["error"].as_str().unwrap().contains("are printed already"), "{again}");
    assert_eq!(packs(&state).await, (books, held));

    // A link in the inbox is not followed, even to a good file: whoever writes there must not
    // make the service read what lies elsewhere.
    let elsewhere = platform::config::scratch_dir("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::copy(state.settings.vendor_file_dir.join("vendor-283.age"), elsewhere.join("v.age")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(elsewhere.join("v.age"), state.settings.vendor_file_dir.join("linked.age"))
        .unwrap();
    // Names outside the inbox, or not there, are refused before any job.
    for name in ["../vendor-283.age", "nothing-here.age", "", "linked.age"] {
        let no = post(&router, "/v1/instant/games/283/vendor-runs", &operator, json!({"file": name})).await;
        assert_eq!(no.code(), "vendor_file_not_found", "{name}");
    }
    let till_may_not =
        post(&router, "/v1/instant/games/283/vendor-runs", &shop, json!({"file": "vendor-283.age"})).await;
    assert_eq!(till_may_not.status, StatusCode::FORBIDDEN);
}
