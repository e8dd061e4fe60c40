//! The references the ledger's figures are read against, each run in the same sitting: TPC-B
//! (`pgbench`), the ledger's stored function called straight by `pgbench`, and the bare batch (what
//! any batch must store).

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use platform::testing::closed_loop;
use uuid::Uuid;

use super::{BATCH_SIZE, Figure, WALLETS};

/// TPC-B transactions per second from pgbench on a fresh scale-10 database.
pub(crate) fn pgbench_tps(server: &str, clients: usize, seconds: u64) -> f64 {
    let db = format!("{server}/lotto_bench_pgbench");
    let admin = format!("{server}/postgres");
    let psql = |sql: &str| {
        let ok = Command::new("psql").args([&admin, "-qc", sql]).status().is_ok_and(|s| s.success());
        assert!(ok, "psql failed: {sql}");
    };
    psql("DROP DATABASE IF EXISTS lotto_bench_pgbench WITH (FORCE)");
    psql("CREATE DATABASE lotto_bench_pgbench");
    let pgbench = find_pgbench();
    let init = Command::new(&pgbench).args(["-i", "-q", "-s", "10", &db]).output().expect("run pgbench -i");
    assert!(init.status.success(), "pgbench -i failed: {}", String::from_utf8_lossy(&init.stderr));
    println!("running pgbench TPC-B for {seconds} s ...");
    let out = Command::new(&pgbench)
        .args(["-c", &clients.to_string(), "-j", "2", "-T", &seconds.to_string(), "-n", &db])
        .output()
        .expect("run pgbench");
    assert!(out.status.success(), "pgbench failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    psql("DROP DATABASE IF EXISTS lotto_bench_pgbench WITH (FORCE)");
    tps_of(&text)
}

/// The transactions a second pgbench reports (its `tps = ` line).
fn tps_of(report: &str) -> f64 {
    report
        .lines()
        .find(|l| l.starts_with("tps = "))
        .and_then(|l| l.trim_start_matches("tps = ").split_whitespace().next()?.parse().ok())
        .expect("a tps line from pgbench")
}

fn find_pgbench() -> String {
    if Command::new("pgbench").arg("--version").output().is_ok() {
        return "pgbench".to_owned();
    }
    let mut found: Vec<_> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin/pgbench"))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found.pop().map(|p| p.to_string_lossy().into_owned()).expect("pgbench is not installed")
}

/// The spread stake without the service: `pgbench` calling the ledger's stored function
/// `create_transfers` for one stake (a random wallet to a random house, a Keno stake's metadata)
/// with the same number of clients, on the same database. What the service's rate is read
/// against: the stake's cost in SQL, apart from HTTP, JSON and the pool.
pub(crate) async fn stored_function_stakes(
    server: &str,
    clients: usize,
    seconds: u64,
    wallets: &[Uuid],
    houses: &[Uuid],
) -> Figure {
    let pool = sqlx::PgPool::connect(&format!("{server}/lotto_bench")).await.unwrap();
    for (table, ids) in [("bench_wallets", wallets), ("bench_houses", houses)] {
        sqlx::query(&format!("CREATE TABLE public.{table} (n integer PRIMARY KEY, id uuid NOT NULL)"))
            .execute(&pool)
            .await
            .unwrap();
        sqlx::query(&format!(
            "INSERT INTO public.{table} SELECT n, id FROM unnest($1::uuid[]) WITH ORDINALITY AS u(id, n)"
        ))
        .bind(ids)
        .execute(&pool)
        .await
        .unwrap();
    }
    let script = std::env::temp_dir().join(format!("lotto-bench-stake-{}.sql", std::process::id()));
    std::fs::write(
        &script,
        format!(
            "\\set w random(1, {})\n\\set h random(1, {})\n\
             SELECT count(*) FROM ledger.create_transfers(ARRAY[gen_random_uuid()], \
             ARRAY[(SELECT id FROM public.bench_wallets WHERE n = :w)], \
             ARRAY[(SELECT id FROM public.bench_houses WHERE n = :h)], ARRAY[1::bigint], ARRAY['USD'], \
             ARRAY['posted'], ARRAY[NULL::uuid], ARRAY[NULL::integer], \
             ARRAY['{{\"game\": \"castle_keno\", \"money\": \"stake\", \"channel\": \"online\"}}'::jsonb], NULL);\n",
            wallets.len(),
            houses.len()
        ),
    )
    .unwrap();
    println!("running the stored function alone (pgbench, spread stakes) for {seconds} s ...");
    let machine_before = platform::testing::machine_busy_cpu_seconds();
    let (own_before, pgbench_before) = platform::testing::own_and_children_cpu_seconds().unwrap();
    let out = Command::new(find_pgbench())
        .args(["-c", &clients.to_string(), "-j", "2", "-T", &seconds.to_string(), "-n", "-f"])
        .arg(&script)
        .arg(format!("{server}/lotto_bench"))
        .env("PGOPTIONS", "-csearch_path=ledger")
        .output()
        .expect("run pgbench");
    let _ = std::fs::remove_file(&script);
    assert!(out.status.success(), "pgbench failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let tps = tps_of(&text);
    // pgbench's connections have ended, taking their CPU time out of `/proc`: Postgres' share is
    // the machine's less pgbench's (this process's child) and this process's own.
    let stakes = (tps * seconds as f64).max(1.0);
    let (own_after, pgbench_after) = platform::testing::own_and_children_cpu_seconds().unwrap();
    let machine = platform::testing::machine_busy_cpu_seconds().zip(machine_before).map(|(a, b)| a - b);
    let pgbench = pgbench_after - pgbench_before;
    let postgres = machine.map(|m| m - pgbench - (own_after - own_before));
    Figure {
        name: "stored function alone (pgbench, spread)",
        per_second: tps,
        unit: "tr/s",
        p50_ms: None,
        p99_ms: None,
        // pgbench's own CPU in the first column.
        cpu_ms: postgres.map(|postgres| (pgbench * 1000.0 / stakes, postgres * 1000.0 / stakes)),
    }
}

/// The least a batch of transfers must store, as the reference for the batches: the same
/// 1,000 transfers between wallets (ids of the same kind, v7) inserted into a copy of the journal
/// with the journal's indexes and checks, and their balance rows updated in key order, in one
/// transaction; no rule, no idempotency, no funds check, no answer. Run on copies of the tables,
/// so the ledger's books are left as they were.
pub(crate) async fn bare_batches(
    server: &str,
    clients: usize,
    duration: Duration,
    wallets: &[Uuid],
) -> Figure {
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(u32::try_from(clients).unwrap())
        .connect(&format!("{server}/lotto_bench"))
        .await
        .unwrap();
    for sql in [
        "CREATE TABLE public.bare_transfers (LIKE ledger.transfers INCLUDING ALL)",
        "CREATE TABLE public.bare_balances (LIKE ledger.balances INCLUDING ALL) WITH (fillfactor = 50)",
        "INSERT INTO public.bare_balances SELECT * FROM ledger.balances",
    ] {
        sqlx::query(sql).execute(&pool).await.unwrap();
    }
    println!(
        "running the bare batches (the journal's rows and the balances only) for {} s ...",
        duration.as_secs()
    );
    let wallets = Arc::new(wallets.to_vec());
    let sent = Arc::new(AtomicUsize::new(0));
    let run = closed_loop(clients, duration, move |i| {
        let (pool, wallets, n) = (pool.clone(), Arc::clone(&wallets), sent.fetch_add(1, Ordering::Relaxed));
        async move {
            let (mut ids, mut debits, mut credits) = (Vec::new(), Vec::new(), Vec::new());
            for k in 0..BATCH_SIZE {
                let from = wallets[(i * 7_001 + n * 1_009 + k * 13) % WALLETS];
                let to = wallets[(i * 3_001 + n * 2_003 + k * 17 + 5) % WALLETS];
                ids.push(Uuid::now_v7());
                debits.push(from);
                credits.push(if from == to { wallets[(k + 1) % WALLETS] } else { to });
            }
            let mut tx = pool.begin().await.unwrap();
            // As the ledger's function plans it: by key, so the rows are locked in key order.
            sqlx::query(
                "SELECT set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true),
                        set_config('enable_seqscan', 'off', true)",
            )
            .execute(&mut *tx)
            .await
            .unwrap();
            sqlx::query(
                "INSERT INTO public.bare_transfers (id, debit_account_id, credit_account_id, amount, currency, kind, metadata)
                 SELECT id, d, c, 1, 'USD', 'posted', '{}' FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]) AS u(id, d, c)",
            )
            .bind(&ids)
            .bind(&debits)
            .bind(&credits)
            .execute(&mut *tx)
            .await
            .unwrap();
            sqlx::query(
                "UPDATE public.bare_balances b
                    SET debits_posted = b.debits_posted + d.debits, credits_posted = b.credits_posted + d.credits
                   FROM (SELECT account, sum(debits)::bigint AS debits, sum(credits)::bigint AS credits
                           FROM (SELECT unnest($1::uuid[]) AS account, 1 AS debits, 0 AS credits
                                 UNION ALL SELECT unnest($2::uuid[]), 0, 1) l
                          GROUP BY account ORDER BY account) d
                  WHERE b.account_id = d.account AND b.shard = 0",
            )
            .bind(&debits)
            .bind(&credits)
            .execute(&mut *tx)
            .await
            .unwrap();
            tx.commit().await.unwrap();
            BATCH_SIZE as u64
        }
    })
    .await;
    Figure {
        name: "bare batches of 1000 (reference)",
        per_second: run.per_second(),
        unit: "tr/s",
        p50_ms: Some(run.percentile_ms(0.5)),
        p99_ms: Some(run.percentile_ms(0.99)),
        cpu_ms: Some(run.own_and_postgres_cpu_ms_per_unit()),
    }
}
