//! Print runs stored in a real Postgres: exactly the definition's prizes, faces that agree with
//! them, VIRNs only as keyed hashes, packs `printed`, and the public prize counts.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use axum::body::Body;
use axum::http::{Request, StatusCode};
use domain::instant::print_run::{Face, face_pays};
use platform::auth::Role;
use platform::testing::send;
use sqlx::Row;

mod common;
use common::{game, post, service};

#[tokio::test]
async fn a_print_run_stores_exactly_its_prizes_with_faces_that_agree() {
    let (router, state, tokens) = service().await;
    let operator = common::staff(&tokens, "olga", Role::Operator);
    let job = common::print_run(&router, &operator, 283).await;
    let hit10 = game(&state, 283);
    assert_eq!(job["tickets_total"].as_u64(), Some(hit10.tickets_ordered));
    assert_eq!(
        (job["tickets_generated"].as_u64(), job["tickets_stored"].as_u64()),
        (Some(24_000), Some(24_000))
    );
    // 8 pools of 3,000 tickets in books of 300: books 0 to 79.
    assert_eq!(common::books_of(&state, &job["print_run"]).await, (0, 79));

    let rows = sqlx::query(
        "SELECT prize_row, count(*) AS n, sum(prize_cents)::bigint AS cents FROM tickets GROUP BY prize_row",
    )
    .fetch_all(&state.pool)
    .await
    .unwrap();
    for row in &rows {
        let prize: Option<i16> = row.get("prize_row");
        let n: i64 = row.get("n");
        match prize {
            Some(r) => {
                let definition = &hit10.prizes[usize::try_from(r).unwrap()];
                assert_eq!(u64::try_from(n).unwrap(), definition.count, "row {r}");
                assert_eq!(row.get::<i64, _>("cents"), definition.value_cents * n);
            }
            None => assert_eq!(row.get::<i64, _>("cents"), 0),
        }
    }
    let total: i64 = rows.iter().map(|r| r.get::<i64, _>("n")).sum();
    assert_eq!(u64::try_from(total).unwrap(), hit10.tickets_ordered);

    // Every stored face pays exactly its prize row.
    let faces = sqlx::query("SELECT prize_row, face FROM tickets").fetch_all(&state.pool).await.unwrap();
    for face in &faces {
        let text: String = face.get("face");
        let mut pays = face_pays(&hit10, &Face::from_text(&hit10, &text).unwrap());
        pays.sort_unstable();
        let mut expected = face
            .get::<Option<i16>, _>("prize_row")
            .map_or_else(Vec::new, |r| hit10.prizes[usize::try_from(r).unwrap()].composition.clone());
        expected.sort_unstable();
        assert_eq!(pays, expected);
    }
    // No VIRN in the clear: 32-byte keyed hashes, all different.
    let hashes: Vec<Vec<u8>> =
        sqlx::query_scalar("SELECT virn_hash FROM tickets").fetch_all(&state.pool).await.unwrap();
    assert!(hashes.iter().all(|h| h.len() == 32));
    let distinct: std::collections::HashSet<&Vec<u8>> = hashes.iter().collect();
    assert_eq!(distinct.len(), hashes.len());
    let packs: Vec<String> =
        sqlx::query_scalar("SELECT DISTINCT state FROM packs").fetch_all(&state.pool).await.unwrap();
    assert_eq!(packs, ["printed"]);

    // A second run continues the book numbers; the public counts add up.
    let again = common::print_run(&router, &operator, 283).await;
    assert_eq!(common::books_of(&state, &again["print_run"]).await.0, 80);
    let games = send(&router, Request::get("/v1/instant/games").body(Body::empty()).unwrap()).await;
    let listed = games.body.as_array().unwrap().iter().find(|g| g["number"] == 283).unwrap();
    let top = listed["prizes"].as_array().unwrap().last().unwrap();
    assert_eq!(top["remaining"].as_u64(), Some(2 * hit10.prizes.last().unwrap().count));
}

#[tokio::test]
async fn an_electric_8s_run_is_stored_with_its_grids() {
    let (router, state, tokens) = service().await;
    let operator = common::staff(&tokens, "olga", Role::Operator);
    common::print_run(&router, &operator, 228).await;
    let e8 = game(&state, 228);
    let winners: i64 =
        sqlx::query_scalar("SELECT count(*) FROM tickets WHERE game = 228 AND prize_row IS NOT NULL")
            .fetch_one(&state.pool)
            .await
            .unwrap();
    assert_eq!(u64::try_from(winners).unwrap(), e8.prizes.iter().map(|p| p.count).sum::<u64>());
    // Eleven spots: nine in the grid, the prize box and the bonus box.
    let face: String = sqlx::query_scalar("SELECT face FROM tickets WHERE game = 228 LIMIT 1")
        .fetch_one(&state.pool)
        .await
        .unwrap();
    let (grid, boxes) = face.split_once('|').unwrap();
    assert_eq!((grid.split(',').count(), boxes.split('|').count()), (9, 2));
}

#[tokio::test]
async fn a_crossword_run_is_stored_with_letters_grids_and_bonus_that_pay_its_prizes() {
    let (router, state, tokens) = service().await;
    let operator = common::staff(&tokens, "olga", Role::Operator);
    common::print_run(&router, &operator, 286).await;
    let crossword = game(&state, 286);
    let faces = sqlx::query("SELECT prize_row, face FROM tickets WHERE game = 286")
        .fetch_all(&state.pool)
        .await
        .unwrap();
    assert_eq!(u64::try_from(faces.len()).unwrap(), crossword.tickets_ordered);
    let mut won = vec![0u64; crossword.prizes.len()];
    for face in &faces {
        let text: String = face.get("face");
        let parsed = Face::from_text(&crossword, &text).unwrap();
        assert!(matches!(parsed, Face::Crossword { .. }), "{text}");
        let mut pays = face_pays(&crossword, &parsed);
        pays.sort_unstable();
        let row = face.get::<Option<i16>, _>("prize_row").map(|r| usize::try_from(r).unwrap());
        let mut expected = row.map_or_else(Vec::new, |r| crossword.prizes[r].composition.clone());
        expected.sort_unstable();
        assert_eq!(pays, expected, "{text}");
        if let Some(r) = row {
            won[r] += 1;
        }
    }
    assert_eq!(won, crossword.prizes.iter().map(|p| p.count).collect::<Vec<_>>());
}

#[tokio::test]
async fn only_operators_print_and_unknown_games_are_refused() {
    let (router, _, tokens) = service().await;
    let post = |token: Option<String>, number: u32| {
        let mut request = Request::post(format!("/v1/instant/games/{number}/print-runs"));
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        send(&router, request.body(Body::empty()).unwrap())
    };
    assert_eq!(post(None, 283).await.status, StatusCode::UNAUTHORIZED);
    let auditor = common::staff(&tokens, "audrey", Role::Auditor);
    assert_eq!(post(Some(auditor), 283).await.status, StatusCode::FORBIDDEN);
    let operator = common::staff(&tokens, "olga", Role::Operator);
    assert_eq!(post(Some(operator), 999).await.code(), "game_not_found");
    let games = send(&router, Request::get("/v1/instant/games").body(Body::empty()).unwrap()).await;
    assert_eq!(games.body.as_array().unwrap().len(), 5, "public: all five games");
}

/// A full print run outlives a request whose timeout it would pass (issue 14): the request is
/// answered 202 at once with its job, and the job is followed to its end; the run holds one
/// pooled connection and reports its progress on a line of its own, so two connections do.
#[tokio::test]
async fn a_print_run_is_a_job_that_outlives_its_request() {
    let mut options = assembly::Options::for_tests().unwrap();
    // A budget of 25: 12 held apart (writers, the scheduler's lock, a progress line), 13 shared
    // by weight, of which instant's pool gets 2 (assembly::POOL_WEIGHTS).
    options.config.db_max_connections = 25;
    let platform = assembly::Assembly::for_tests(options).await.unwrap();
    let (state, tokens) = (platform.instant, platform.tokens);
    assert_eq!(state.pool.options().get_max_connections(), 2, "instant's share of the budget");
    let limits = platform::http::Limits {
        request_timeout: std::time::Duration::from_millis(1_500),
        ..Default::default()
    };
    let router = instant::router(state.clone(), limits);
    let operator = common::staff(&tokens, "olga", Role::Operator);
    let job = common::print_run(&router, &operator, 283).await;
    assert_eq!(job["attempts"], 1);
    let jobs = common::get(&router, "/v1/instant/print-jobs", &operator).await;
    assert_eq!(jobs.body["items"][0]["id"], job["id"]);
    let cancel = post(
        &router,
        &format!("/v1/instant/print-jobs/{}/cancel", job["id"].as_str().unwrap()),
        &operator,
        serde_json::json!({}),
    )
    .await;
    assert_eq!(cancel.code(), "print_job_finished");
    let unknown =
        common::get(&router, &format!("/v1/instant/print-jobs/{}", uuid::Uuid::nil()), &operator).await;
    assert_eq!(unknown.code(), "print_job_not_found");
    let auditor = common::staff(&tokens, "audrey", Role::Auditor);
    assert_eq!(common::get(&router, "/v1/instant/print-jobs", &auditor).await.status, StatusCode::OK);
    let not_his = post(
        &router,
        &format!("/v1/instant/print-jobs/{}/cancel", job["id"].as_str().unwrap()),
        &auditor,
        serde_json::json!({}),
    )
    .await;
    assert_eq!(not_his.status, StatusCode::FORBIDDEN);
}

/// A cancel (queued or mid-run) and a crash (a worker gone, its lease run out) leave no partial
/// run: the cancelled jobs keep nothing; the crashed one is taken up again and printed once.
#[tokio::test]
async fn a_cancelled_or_crashed_print_job_leaves_no_partial_run() {
    use instant::saga::jobs::{run_job, run_waiting_job};
    use instant::store::print_jobs;
    let (_, state, _) = service().await;
    let counts = |state: &instant::InstantState| {
        let pool = state.pool.clone();
        async move {
            let tickets: i64 =
                sqlx::query_scalar("SELECT count(*) FROM tickets").fetch_one(&pool).await.unwrap();
            let runs: i64 =
                sqlx::query_scalar("SELECT count(*) FROM print_runs").fetch_one(&pool).await.unwrap();
            (tickets, runs)
        }
    };
    // Queued, then cancelled: never taken.
    let queued =
        print_jobs::insert(&state.pool, uuid::Uuid::now_v7(), 283, 24_000, "olga", None).await.unwrap();
    assert_eq!(
        print_jobs::request_cancel(&state.pool, queued.id).await.unwrap().unwrap().state,
        instant::store::JobState::Cancelled
    );
    assert!(!run_waiting_job(&state, Some(queued.id)).await.unwrap());
    // Running, cancelled before its first pool is reported: it stops there.
    let running =
        print_jobs::insert(&state.pool, uuid::Uuid::now_v7(), 283, 24_000, "olga", None).await.unwrap();
    let taken = print_jobs::take(&state.pool, Some(running.id)).await.unwrap().unwrap();
    assert_eq!(
        print_jobs::request_cancel(&state.pool, running.id).await.unwrap().unwrap().state,
        instant::store::JobState::Running
    );
    run_job(&state, &taken).await.unwrap();
    let cancelled = print_jobs::get(&state.pool, running.id).await.unwrap().unwrap();
    assert_eq!((cancelled.state.as_str(), cancelled.print_run), ("cancelled", None));
    assert_eq!(counts(&state).await, (0, 0), "nothing of a cancelled run is kept");
    // Taken by a worker that died: its lease runs out, and the next worker prints it, once.
    let crashed =
        print_jobs::insert(&state.pool, uuid::Uuid::now_v7(), 283, 24_000, "olga", None).await.unwrap();
    print_jobs::take(&state.pool, Some(crashed.id)).await.unwrap().unwrap();
    assert!(!run_waiting_job(&state, None).await.unwrap(), "a live lease is left alone");
    sqlx::query("UPDATE print_jobs SET lease_until = now() - interval '1 second' WHERE id = $1")
        .bind(crashed.id)
        .execute(&state.pool)
        .await
        .unwrap();
    assert!(run_waiting_job(&state, None).await.unwrap());
    let done = print_jobs::get(&state.pool, crashed.id).await.unwrap().unwrap();
    assert_eq!((done.state.as_str(), done.attempts), ("succeeded", 2));
    assert_eq!(counts(&state).await, (24_000, 1));
}

mod validation {
    use super::*;
    use serde_json::{Value, json};

    #[tokio::test]
    async fn a_terminal_validates_tickets_of_its_active_packs_only() {
        let (router, state, tokens) = service().await;
        let tickets = common::printed(&state, 283, 5).await;
        let operator = common::staff(&tokens, "olga", Role::Operator);
        let till = common::till(&tokens, "till-1", "shop-a");
        let other = common::till(&tokens, "till-9", "shop-b");
        let winner = tickets.iter().find(|t| t.book == 0 && t.prize_row == Some(0)).unwrap();
        let loser = tickets.iter().find(|t| t.book == 0 && t.prize_row.is_none()).unwrap();
        let scan = common::scan;

        // Printed, not yet active: cannot be validated.
        assert_eq!(
            post(&router, "/v1/instant/validations", &till, scan(winner)).await.code(),
            "pack_not_active"
        );
        // Packs move only forward, and only for their own retailer.
        assert_eq!(
            post(&router, "/v1/instant/packs/283/0/activate", &till, json!(null)).await.code(),
            "pack_not_found"
        );
        let shipped =
            post(&router, "/v1/instant/packs/283/0/ship", &operator, json!({"retailer_id": "shop-a"})).await;
        assert_eq!((shipped.status, shipped.body["state"].as_str()), (StatusCode::OK, Some("shipped")));
        let again =
            post(&router, "/v1/instant/packs/283/0/ship", &operator, json!({"retailer_id": "shop-b"})).await;
        assert_eq!(again.code(), "pack_not_printed");
        assert_eq!(
            post(&router, "/v1/instant/packs/283/0/activate", &other, json!(null)).await.code(),
            "pack_not_found"
        );
        let active = post(&router, "/v1/instant/packs/283/0/activate", &till, json!(null)).await;
        assert_eq!(active.body["state"], "active", "{}", active.body);

        let won = post(&router, "/v1/instant/validations", &till, scan(winner)).await;
        assert_eq!(
            (won.body["winner"].clone(), won.body["prize_cents"].clone()),
            (json!(true), json!(100)),
            "{}",
            won.body
        );
        assert_eq!(won.body["paid_at"], "retailer");
        let lost = post(&router, "/v1/instant/validations", &till, scan(loser)).await;
        assert_eq!((lost.body["winner"].clone(), lost.body["paid_at"].clone()), (json!(false), Value::Null));
        // The top prize is over the retailer's limit: claimed at the lottery office.
        let top = tickets.iter().find(|t| t.prize_row == Some(9)).unwrap();
        let book = top.book;
        post(
            &router,
            &format!("/v1/instant/packs/283/{book}/ship"),
            &operator,
            json!({"retailer_id": "shop-a"}),
        )
        .await;
        post(&router, &format!("/v1/instant/packs/283/{book}/activate"), &till, json!(null)).await;
        let big = post(&router, "/v1/instant/validations", &till, scan(top)).await;
        assert_eq!(
            (big.body["prize_cents"].clone(), big.body["paid_at"].clone()),
            (json!(100_000), json!("lottery_office"))
        );
    }

    #[tokio::test]
    async fn bad_scans_get_their_own_errors_and_wrong_virns_lock_the_terminal() {
        let (router, state, tokens) = service().await;
        let tickets = common::printed(&state, 283, 5).await;
        let operator = common::staff(&tokens, "olga", Role::Operator);
        let till = common::till(&tokens, "till-1", "shop-a");
        post(&router, "/v1/instant/packs/283/0/ship", &operator, json!({"retailer_id": "shop-a"})).await;
        post(&router, "/v1/instant/packs/283/0/activate", &till, json!(null)).await;
        let t = tickets.iter().find(|t| t.book == 0).unwrap();
        let mut tampered = t.barcode.clone();
        tampered.replace_range(4..5, if &t.barcode[4..5] == "9" { "0" } else { "9" });
        let cases = [
            (json!({"barcode": tampered, "virn": t.virn}), "invalid_barcode"),
            (
                json!({"barcode": domain::instant::print_run::barcode(999, 0, 0), "virn": t.virn}),
                "unknown_game",
            ),
            (
                json!({"barcode": domain::instant::print_run::barcode(283, 99_999, 0), "virn": t.virn}),
                "ticket_not_found",
            ),
            (json!({"barcode": t.barcode, "virn": "000000000000"}), "wrong_virn"),
        ];
        for (body, code) in cases {
            assert_eq!(
                post(&router, "/v1/instant/validations", &till, body.clone()).await.code(),
                code,
                "{body}"
            );
        }
        // Misread VIRNs (not twelve digits) are their own 422 and never count toward the lock.
        for misread in ["12345", "1234567890123", "12345678901x"] {
            let reply = post(
                &router,
                "/v1/instant/validations",
                &till,
                json!({"barcode": t.barcode, "virn": misread}),
            )
            .await;
            assert_eq!((reply.status, reply.code()), (StatusCode::UNPROCESSABLE_ENTITY, "invalid_virn"));
        }
        // A right VIRN does not reset the count: with the wrong one above, four more lock the
        // terminal, even for a right one. It is scanned as a keyboard-wedge scanner types it: the
        // barcode's 13 raw digits, the VIRN in printed groups.
        let raw: String = t.barcode.chars().filter(char::is_ascii_digit).collect();
        let grouped = format!("{} {} {}", &t.virn[..4], &t.virn[4..8], &t.virn[8..]);
        assert_eq!(
            post(&router, "/v1/instant/validations", &till, json!({"barcode": raw, "virn": grouped}))
                .await
                .status,
            StatusCode::OK
        );
        for left in (0..4).rev() {
            let wrong = post(
                &router,
                "/v1/instant/validations",
                &till,
                json!({"barcode": t.barcode, "virn": "111111111111"}),
            )
            .await;
            assert_eq!(
                (wrong.code(), wrong.body["context"]["attempts_left"].as_i64()),
                ("wrong_virn", Some(left))
            );
        }
        let locked =
            post(&router, "/v1/instant/validations", &till, json!({"barcode": t.barcode, "virn": t.virn}))
                .await;
        assert_eq!((locked.status, locked.code()), (StatusCode::FORBIDDEN, "terminal_locked"));
        let logged: i64 = sqlx::query_scalar("SELECT count(*) FROM validations WHERE terminal_id = 'till-1'")
            .fetch_one(&state.pool)
            .await
            .unwrap();
        assert_eq!(logged, 9, "every attempt but the locked one and the misreads is logged");
        let raw_logged: i64 =
            sqlx::query_scalar("SELECT count(*) FROM validations WHERE barcode = $1 AND result = 'winner' OR barcode = $1 AND result = 'not_a_winner'")
                .bind(&t.barcode)
                .fetch_one(&state.pool)
                .await
                .unwrap();
        assert_eq!(raw_logged, 1, "the raw scan is logged in the printed form");
    }

    #[tokio::test]
    async fn concurrent_guesses_and_many_tills_cannot_pass_the_limit() {
        let (router, state, tokens) = service().await;
        let tickets = common::printed(&state, 283, 5).await;
        let operator = common::staff(&tokens, "olga", Role::Operator);
        post(&router, "/v1/instant/packs/283/0/ship", &operator, json!({"retailer_id": "shop-a"})).await;
        let till = common::till(&tokens, "till-1", "shop-a");
        post(&router, "/v1/instant/packs/283/0/activate", &till, json!(null)).await;
        let t = tickets.iter().find(|t| t.book == 0).unwrap();
        // Forty guesses at once, the right one among them: five wrong ones are checked, no more.
        let mut tasks = Vec::new();
        for i in 0..40 {
            let virn = if i == 20 { t.virn.clone() } else { format!("{:012}", 100 + i) };
            let (router, till, barcode) = (router.clone(), till.clone(), t.barcode.clone());
            tasks.push(tokio::spawn(async move {
                post(&router, "/v1/instant/validations", &till, json!({"barcode": barcode, "virn": virn}))
                    .await
            }));
        }
        let mut codes = std::collections::BTreeMap::<String, usize>::new();
        for task in tasks {
            let reply = task.await.unwrap();
            let code = if reply.status == StatusCode::OK { "ok".to_owned() } else { reply.code().to_owned() };
            *codes.entry(code).or_default() += 1;
        }
        assert_eq!(codes.get("wrong_virn"), Some(&5), "{codes:?}");
        assert_eq!(codes.values().sum::<usize>(), 40);
        assert!(codes.get("ok").copied().unwrap_or(0) <= 1, "{codes:?}");
        assert_eq!(
            codes.get("terminal_locked").copied().unwrap_or(0) + codes.get("ok").copied().unwrap_or(0),
            35
        );

        // Four more tills of one shop, five wrong guesses each: the shop's twenty lock all its
        // tills, a fresh one too; another shop's till is untouched.
        post(&router, "/v1/instant/packs/283/1/ship", &operator, json!({"retailer_id": "shop-b"})).await;
        let other_shop = common::till(&tokens, "till-b", "shop-b");
        post(&router, "/v1/instant/packs/283/1/activate", &other_shop, json!(null)).await;
        let b = tickets.iter().find(|t| t.book == 1).unwrap();
        for n in 2..=4 {
            let till = common::till(&tokens, &format!("till-{n}"), "shop-a");
            for _ in 0..5 {
                let wrong = post(
                    &router,
                    "/v1/instant/validations",
                    &till,
                    json!({"barcode": t.barcode, "virn": "999999999999"}),
                )
                .await;
                assert_eq!(wrong.code(), "wrong_virn");
            }
        }
        let fifth = common::till(&tokens, "till-5", "shop-a");
        let refused =
            post(&router, "/v1/instant/validations", &fifth, json!({"barcode": t.barcode, "virn": t.virn}))
                .await;
        assert_eq!(
            (refused.status, refused.code()),
            (StatusCode::FORBIDDEN, "terminal_locked"),
            "{}",
            refused.body
        );
        assert!(refused.headers.contains_key("retry-after"));
        let fine = post(
            &router,
            "/v1/instant/validations",
            &other_shop,
            json!({"barcode": b.barcode, "virn": b.virn}),
        )
        .await;
        assert_eq!(fine.status, StatusCode::OK, "{}", fine.body);
    }
}

mod claims {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn a_prize_is_paid_once_to_the_retailer_whatever_the_race() {
        let (router, state, tokens) = service().await;
        let tickets = common::printed(&state, 283, 5).await;
        let operator = common::staff(&tokens, "olga", Role::Operator);
        let till = common::till(&tokens, "till-1", "shop-a");
        let hit10 = game(&state, 283);
        let liability = instant::liability_account(283);
        let funded = state.ledger.balance(liability).await.unwrap();
        let prizes: i64 = hit10.prizes.iter().map(|p| p.value_cents * i64::try_from(p.count).unwrap()).sum();
        assert_eq!(funded, prizes, "the run's prizes are the game's liability");
        for book in [0, 1] {
            post(
                &router,
                &format!("/v1/instant/packs/283/{book}/ship"),
                &operator,
                json!({"retailer_id": "shop-a"}),
            )
            .await;
            post(&router, &format!("/v1/instant/packs/283/{book}/activate"), &till, json!(null)).await;
        }
        let winners: Vec<_> =
            tickets.iter().filter(|t| t.book < 2 && t.prize_row == Some(1)).take(2).collect();
        let scan = common::scan;

        let paid = post(&router, "/v1/instant/claims", &till, scan(winners[0])).await;
        assert_eq!(
            (paid.status, paid.body["paid_cents"].clone()),
            (StatusCode::CREATED, json!(500)),
            "{}",
            paid.body
        );
        assert_eq!(post(&router, "/v1/instant/claims", &till, scan(winners[0])).await.code(), "already_paid");

        // Eight terminals of the shop claim the second winner at once: one is paid.
        let mut racing = Vec::new();
        for i in 0..8 {
            let token = common::till(&tokens, &format!("till-r{i}"), "shop-a");
            let router = router.clone();
            let body = scan(winners[1]).to_string();
            racing.push(tokio::spawn(async move {
                send(
                    &router,
                    Request::post("/v1/instant/claims")
                        .header("authorization", format!("Bearer {token}"))
                        .header("idempotency-key", format!("race-{i}"))
                        .header("content-type", "application/json")
                        .body(Body::from(body))
                        .unwrap(),
                )
                .await
            }));
        }
        let mut codes = Vec::new();
        for task in racing {
            let reply = task.await.unwrap();
            codes.push(if reply.status == StatusCode::CREATED {
                "paid".to_owned()
            } else {
                reply.code().to_owned()
            });
        }
        assert_eq!(codes.iter().filter(|c| *c == "paid").count(), 1, "{codes:?}");
        assert!(codes.iter().all(|c| c == "paid" || c == "already_paid"), "{codes:?}");

        let shop = state.ledger.balance(ledger_api::retailer_account("shop-a")).await.unwrap();
        assert_eq!(shop, 1_000, "two $5 prizes, each paid once");
        assert_eq!(state.ledger.balance(liability).await.unwrap(), prizes - 1_000);
        let loser = tickets.iter().find(|t| t.book == 0 && t.prize_row.is_none()).unwrap();
        assert_eq!(post(&router, "/v1/instant/claims", &till, scan(loser)).await.code(), "not_a_winner");
        let top = tickets.iter().find(|t| t.prize_row == Some(9)).unwrap();
        let book = top.book;
        post(
            &router,
            &format!("/v1/instant/packs/283/{book}/ship"),
            &operator,
            json!({"retailer_id": "shop-a"}),
        )
        .await;
        post(&router, &format!("/v1/instant/packs/283/{book}/activate"), &till, json!(null)).await;
        assert_eq!(post(&router, "/v1/instant/claims", &till, scan(top)).await.code(), "claim_at_office");
        let trial = common::ledger_get(&state, "/v1/reports/trial-balance").await;
        assert_eq!(trial["balanced"], true, "{trial}");
        let games = send(&router, Request::get("/v1/instant/games").body(Body::empty()).unwrap()).await;
        let listed = games.body.as_array().unwrap().iter().find(|g| g["number"] == 283).unwrap();
        assert_eq!(listed["prizes"][1]["remaining"].as_u64(), Some(hit10.prizes[1].count - 2));
    }
}

/// The way a lottery and its printer work (issue 14): the run's printer's file, downloaded once
/// by an operator (signed, and a second download refused and chained), decrypted with the
/// printer's key; a winning ticket read off it as a person reads it (its face), scanned at the
/// counter of the retailer its pack went to, and paid exactly once.
#[tokio::test]
async fn a_ticket_from_the_printers_file_is_paid_at_the_counter_exactly_once() {
    use domain::instant::print_run::{Face, face_pays};
    use serde_json::json;
    use tower::ServiceExt;
    let (router, state, tokens) = service().await;
    let operator = common::staff(&tokens, "olga", Role::Operator);
    let job = common::print_run(&router, &operator, 283).await;
    assert_eq!(job["file_written"], true);
    let run = job["print_run"].as_str().unwrap();

    let download = |token: String| {
        let request = Request::get(format!("/v1/instant/print-runs/{run}/printer-file"))
            .header("authorization", format!("Bearer {token}"))
            .body(Body::empty())
            .unwrap();
        router.clone().oneshot(request)
    };
    let response = download(operator.clone()).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["cache-control"], "no-store", "the one copy is cached nowhere");
    let signature: [u8; 64] =
        hex::decode(response.headers()["x-lotto-signature"].to_str().unwrap()).unwrap().try_into().unwrap();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    assert!(bytes.starts_with(b"age-encryption.org/v1"), "an age file");
    let remaining = std::fs::read_dir(&state.settings.printer_file_dir).unwrap().count();
    assert_eq!(remaining, 0, "the service keeps no copy");
    let again = common::get(&router, &format!("/v1/instant/print-runs/{run}/printer-file"), &operator).await;
    assert_eq!((again.status, again.code()), (StatusCode::GONE, "printer_file_gone"));
    let kinds: Vec<String> =
        sqlx::query_scalar("SELECT kind FROM audit_log ORDER BY seq").fetch_all(&state.pool).await.unwrap();
    assert_eq!(kinds, ["instant.printer_file.downloaded", "instant.printer_file.refused"]);
    assert!(platform::audit::verify(&state.pool).await.unwrap().intact);

    // The printer's side: verify the lottery's signature with its published key, decrypt.
    let file = std::env::temp_dir().join(format!("printers-file-{run}.age"));
    std::fs::write(&file, &bytes).unwrap();
    let keys = common::get(&router, "/v1/instant/keys", &operator).await;
    let public: [u8; 32] =
        hex::decode(keys.body["signing_key"].as_str().unwrap()).unwrap().try_into().unwrap();
    let verifying = ed25519_dalek::VerifyingKey::from_bytes(&public).unwrap();
    instant::printer_file::verify(&file, &signature, &verifying).unwrap();
    let identity = &state.settings.demo_printer_identity.as_ref().unwrap().0;
    let tickets = instant::printer_file::read_tickets(&file, identity).unwrap();
    assert_eq!(tickets.len(), 24_000);
    let wrong_key = age::x25519::Identity::generate();
    assert!(
        instant::printer_file::read_tickets(&file, &wrong_key).is_err(),
        "only the printer's key opens it"
    );

    // A person reads a $20-or-less winner off its face, and takes it to the counter.
    let hit10 = game(&state, 283);
    let winner = tickets
        .iter()
        .find(|t| {
            let pays: i64 = face_pays(&hit10, &Face::from_text(&hit10, &t.face).unwrap()).iter().sum();
            pays > 0 && pays <= 2_000
        })
        .unwrap();
    let prize: i64 = face_pays(&hit10, &Face::from_text(&hit10, &winner.face).unwrap()).iter().sum();
    let till = common::till(&tokens, "till-1", "shop-a");
    let book = winner.book;
    post(&router, &format!("/v1/instant/packs/283/{book}/ship"), &operator, json!({"retailer_id": "shop-a"}))
        .await;
    post(&router, &format!("/v1/instant/packs/283/{book}/activate"), &till, json!(null)).await;
    let scan = json!({"barcode": winner.barcode.replace('-', ""), "virn": winner.virn});
    let checked = post(&router, "/v1/instant/validations", &till, scan.clone()).await;
    assert_eq!(
        (checked.body["winner"].as_bool(), checked.body["prize_cents"].as_i64()),
        (Some(true), Some(prize)),
        "{}",
        checked.body
    );
    let paid = post(&router, "/v1/instant/claims", &till, scan.clone()).await;
    assert!(paid.status.is_success(), "{}", paid.body);
    let twice = post(&router, "/v1/instant/claims", &till, scan).await;
    assert_eq!(twice.code(), "already_paid");
    let _ = std::fs::remove_file(&file);
}
