//! The time to generate and store each game's full print run, its encrypted and signed printer's
//! file included (issue 6's target: 1.8 million tickets in under 60 s; issue 14's: Hit $10's 2.4
//! million with its file in under 60 s), on a fresh database. Two references, in the same run
//! ([`references`]): the issue's, a bare COPY of as many rows of three integers into a temporary
//! table; and the least a print run must store, the run's own rows COPYed into a copy of the
//! tickets table.
//!
//! Then a vendor's run of Hit $10 (2.4 million tickets) imported from its encrypted validation
//! file, beside the same references.
//!
//! Run: `cargo bench -p instant` (`BENCH_FULL_GAMES=false`, as under `BENCH_QUICK=1`: the tests'
//! small print runs).
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::cast_precision_loss)]

use std::time::Instant;

#[tokio::main]
async fn main() {
    let url = platform::testing::bench_database("instant").await.unwrap();
    // The games' full runs; under `BENCH_QUICK=1` the tests' small ones (a few thousand tickets).
    let options = assembly::Options::for_tests().unwrap();
    let options = if platform::testing::bench_knob("BENCH_FULL_GAMES", true, false).unwrap() {
        options.with_full_games().unwrap()
    } else {
        options
    };
    let state = assembly::Assembly::start(&url, options).await.unwrap().instant;
    let pool = state.pool.clone();
    println!("full print runs, generated and stored with their printer's file (one transaction each):");
    println!(
        "{:<28} {:>9} {:>8} {:>8} {:>7} {:>10} {:>7} {:>8}",
        "game", "tickets", "seconds", "bare s", "x bare", "same rows s", "x same", "file MiB"
    );
    let mut bare_hit_10 = (0.0, 0.0);
    for (game, _) in state.games.iter() {
        let run = instant::saga::print_run::store_print_run(&state, game, "bench").await.unwrap();
        let (bare, same_rows) = references(&pool, game.number, game.tickets_ordered).await;
        if game.number == 283 {
            bare_hit_10 = (bare, same_rows);
        }
        let file: String = sqlx::query_scalar("SELECT printer_file FROM print_runs WHERE id = $1")
            .bind(run.id)
            .fetch_one(&pool)
            .await
            .unwrap();
        let mib = std::fs::metadata(&file).unwrap().len() as f64 / 1_048_576.0;
        println!(
            "{:<28} {:>9} {:>8.2} {:>8.2} {:>6.1}x {:>10.2} {:>6.1}x {:>8.0}",
            format!("{} {}", game.number, game.name),
            run.tickets,
            run.seconds,
            bare,
            run.seconds / bare,
            same_rows,
            run.seconds / same_rows,
            mib
        );
        let met = run.seconds * 1_800_000.0_f64.max(run.tickets as f64) / run.tickets as f64 <= 60.0;
        println!(
            "  target (1.8 million tickets, or the whole run if larger, in under 60 s): {}",
            if met { "met" } else { "MISSED" }
        );
    }
    vendor_import(&state, bare_hit_10).await;
    // Five full printer's files are most of a gigabyte: not left behind.
    let _ = std::fs::remove_dir_all(&state.settings.printer_file_dir);
    let _ = std::fs::remove_dir_all(&state.settings.vendor_file_dir);
}

/// The two references for a run of `tickets` of game `number`, in seconds: the issue's, one bare
/// COPY of as many rows of three integers into a temporary table (no WAL, no index), its rows
/// made in the timing; and the least any print run must do, the run's own rows (read back
/// from the tickets table beforehand) COPYed into a logged copy of that table with its key, in
/// one transaction.
async fn references(pool: &sqlx::PgPool, number: u32, tickets: u64) -> (f64, f64) {
    let mut conn = pool.acquire().await.unwrap();
    let started = Instant::now();
    sqlx::query("CREATE TEMP TABLE IF NOT EXISTS bare (game int, book int, ticket int)")
        .execute(&mut *conn)
        .await
        .unwrap();
    let mut rows = String::new();
    for i in 0..tickets {
        rows.push_str(&format!("{}\t{}\t{}\n", number, i / 300, i % 300));
    }
    let mut copy = conn.copy_in_raw("COPY bare FROM STDIN").await.unwrap();
    copy.send(rows.into_bytes()).await.unwrap();
    copy.finish().await.unwrap();
    let bare = started.elapsed().as_secs_f64();

    let mut same = Vec::new();
    let mut out = conn
        .copy_out_raw(&format!(
            "COPY (SELECT game, book, ticket, prize_row, prize_cents, virn_hash, face FROM tickets WHERE game = {number})
               TO STDOUT"
        ))
        .await
        .unwrap();
    while let Some(chunk) = futures_util::StreamExt::next(&mut out).await {
        same.extend_from_slice(&chunk.unwrap());
    }
    drop(out);
    sqlx::query("CREATE TABLE IF NOT EXISTS same_rows (LIKE tickets INCLUDING ALL)")
        .execute(&mut *conn)
        .await
        .unwrap();
    let started = Instant::now();
    let mut tx = sqlx::Connection::begin(&mut *conn).await.unwrap();
    let mut copy = tx
        .copy_in_raw(
            "COPY same_rows (game, book, ticket, prize_row, prize_cents, virn_hash, face) FROM STDIN",
        )
        .await
        .unwrap();
    copy.send(same).await.unwrap();
    copy.finish().await.unwrap();
    tx.commit().await.unwrap();
    let same_rows = started.elapsed().as_secs_f64();
    sqlx::query("TRUNCATE same_rows").execute(&mut *conn).await.unwrap();
    (bare, same_rows)
}

/// A vendor's full Hit $10 run written as its validation file (encrypted to the lottery), then
/// imported as a job, timed against Hit $10's two references ([`references`]).
async fn vendor_import(state: &instant::InstantState, (bare, same_rows): (f64, f64)) {
    use std::io::Write;
    let game = state.game(283).unwrap().clone();
    let first_book: i32 = sqlx::query_scalar("SELECT coalesce(max(book) + 1, 0) FROM packs WHERE game = 283")
        .fetch_one(&state.pool)
        .await
        .unwrap();
    std::fs::create_dir_all(&state.settings.vendor_file_dir).unwrap();
    let path = state.settings.vendor_file_dir.join("bench-283.age");
    let written = Instant::now();
    {
        let recipient = state.settings.lottery_identity.0.to_public();
        let encryptor =
            age::Encryptor::with_recipients(std::iter::once(&recipient as &dyn age::Recipient)).unwrap();
        let file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let mut out = std::io::BufWriter::new(encryptor.wrap_output(file).unwrap());
        writeln!(out, "lotto vendor validation file v1\ngame|283").unwrap();
        let mut rng = <rand_chacha::ChaCha20Rng as rand::SeedableRng>::seed_from_u64(7);
        for (pool, counts) in domain::instant::print_run::pool_counts(&game).iter().enumerate() {
            let first = u32::try_from(first_book).unwrap();
            let pool = u32::try_from(pool).unwrap();
            for t in domain::instant::print_run::print_pool(&game, first, pool, counts, &mut rng).unwrap() {
                let prize = t
                    .prize_row
                    .map(|r| {
                        game.prizes[r].composition.iter().map(i64::to_string).collect::<Vec<_>>().join("+")
                    })
                    .unwrap_or_default();
                writeln!(
                    out,
                    "ticket|{}|{}|{}|{}|{prize}|{}",
                    t.book,
                    t.ticket,
                    t.barcode,
                    t.virn,
                    t.face.to_text()
                )
                .unwrap();
            }
        }
        writeln!(out, "end|{}", game.tickets_ordered).unwrap();
        out.into_inner().ok().unwrap().finish().unwrap().into_inner().ok().unwrap();
    }
    let writing = written.elapsed().as_secs_f64();
    let mib = std::fs::metadata(&path).unwrap().len() as f64 / 1_048_576.0;
    let job = instant::store::print_jobs::insert(
        &state.pool,
        uuid::Uuid::now_v7(),
        283,
        i64::try_from(game.tickets_ordered).unwrap(),
        "bench",
        Some("bench-283.age"),
    )
    .await
    .unwrap();
    let started = Instant::now();
    instant::saga::jobs::run_waiting_job(state, Some(job.id)).await.unwrap();
    let seconds = started.elapsed().as_secs_f64();
    let done = instant::store::print_jobs::get(&state.pool, job.id).await.unwrap().unwrap();
    assert_eq!(done.state, instant::store::JobState::Succeeded, "{:?}", done.error);
    println!();
    println!(
        "a vendor's run imported from its validation file (checked, hashed, stored in one transaction):"
    );
    println!(
        "{:<28} {:>9} {:>8.2} {:>8.2} {:>6.1}x {:>10.2} {:>6.1}x {:>8.0}",
        "283 Hit $10 (vendor)",
        game.tickets_ordered,
        seconds,
        bare,
        seconds / bare,
        same_rows,
        seconds / same_rows,
        mib
    );
    println!("  (the vendor's side, writing and encrypting the file, took {writing:.2} s)");
}
