//! The time to generate and store each game's full print run, its encrypted and signed printer's
//! file included (issue 6's target: 1.8 million tickets in under 60 s; issue 14's: Hit $10's 2.4
//! million with its file in under 60 s), on a fresh database. Reference, in the same run: writing
//! the same number of bare rows (game, book, ticket) with one COPY, the least any print run must
//! store.
//!
//! Run: `cargo bench -p instant`.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::cast_precision_loss)]

use std::time::Instant;

#[tokio::main]
async fn main() {
    let url = platform::testing::bench_database("instant").await.unwrap();
    let options = assembly::Options::for_tests().unwrap().with_full_games().unwrap();
    let state = assembly::Assembly::start(&url, options).await.unwrap().instant;
    let pool = state.pool.clone();
    println!("full print runs, generated and stored with their printer's file (one transaction each):");
    println!(
        "{:<28} {:>10} {:>10} {:>12} {:>12} {:>9}",
        "game", "tickets", "seconds", "bare COPY s", "vs bare", "file MiB"
    );
    for (game, _) in state.games.iter() {
        let run = instant::saga::print_run::store_print_run(&state, game, "bench").await.unwrap();
        let started = Instant::now();
        sqlx::query("CREATE TEMP TABLE IF NOT EXISTS bare (game int, book int, ticket int)")
            .execute(&pool)
            .await
            .unwrap();
        let mut conn = pool.acquire().await.unwrap();
        sqlx::query("CREATE TEMP TABLE IF NOT EXISTS bare (game int, book int, ticket int)")
            .execute(&mut *conn)
            .await
            .unwrap();
        let mut rows = String::new();
        for i in 0..game.tickets_ordered {
            rows.push_str(&format!("{}\t{}\t{}\n", game.number, i / 300, i % 300));
        }
        let mut copy = conn.copy_in_raw("COPY bare FROM STDIN").await.unwrap();
        copy.send(rows.into_bytes()).await.unwrap();
        copy.finish().await.unwrap();
        let bare = started.elapsed().as_secs_f64();
        let file: String = sqlx::query_scalar("SELECT printer_file FROM print_runs WHERE id = $1")
            .bind(run.id)
            .fetch_one(&pool)
            .await
            .unwrap();
        let mib = std::fs::metadata(&file).unwrap().len() as f64 / 1_048_576.0;
        println!(
            "{:<28} {:>10} {:>10.2} {:>12.2} {:>11.1}x {:>9.0}",
            format!("{} {}", game.number, game.name),
            run.tickets,
            run.seconds,
            bare,
            run.seconds / bare,
            mib
        );
        let met = run.seconds * 1_800_000.0_f64.max(run.tickets as f64) / run.tickets as f64 <= 60.0;
        println!(
            "  target (1.8 million tickets, or the whole run if larger, in under 60 s): {}",
            if met { "met" } else { "MISSED" }
        );
    }
    // Five full printer's files are most of a gigabyte: not left behind.
    let _ = std::fs::remove_dir_all(&state.settings.printer_file_dir);
}
