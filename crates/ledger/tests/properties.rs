//! Property test: random sequences of valid and invalid operations, checked against a model.
//!
//! After every operation, every currency must sum to zero and no "may not go negative" account
//! may be below zero; each operation's success or refusal must be what a plain model of the
//! rules predicts; and at the end every balance must equal the model's and the journal's.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::HashMap;

use common::TestApp;
use proptest::prelude::*;
use serde_json::{Value, json};
use uuid::Uuid;

/// Accounts 0..=2 are USD wallets (may not go negative), 3 is a USD house account (hot, may go
/// negative), 4 is a EUR wallet, 5 does not exist.
const ACCOUNTS: usize = 6;

#[derive(Debug, Clone)]
enum Op {
    Deposit { to: usize, amount: i64 },
    Transfer { from: usize, to: usize, amount: i64 },
    Hold { from: usize, to: usize, amount: i64 },
    Post { hold: usize, amount: Option<i64> },
    Void { hold: usize },
    Batch(Vec<(usize, usize, i64)>),
    Replay { of: usize },
}

fn op() -> impl Strategy<Value = Op> {
    let account = 0..ACCOUNTS;
    let amount = prop_oneof![1 => -50i64..=0, 8 => 1i64..=800];
    prop_oneof![
        2 => (0..5usize, amount.clone()).prop_map(|(to, amount)| Op::Deposit { to, amount }),
        4 => (account.clone(), account.clone(), amount.clone()).prop_map(|(from, to, amount)| Op::Transfer { from, to, amount }),
        2 => (account.clone(), account.clone(), amount.clone()).prop_map(|(from, to, amount)| Op::Hold { from, to, amount }),
        2 => (0..6usize, proptest::option::of(1i64..=800)).prop_map(|(hold, amount)| Op::Post { hold, amount }),
        1 => (0..6usize).prop_map(|hold| Op::Void { hold }),
        2 => proptest::collection::vec((account.clone(), account, amount), 1..5).prop_map(Op::Batch),
        1 => (0..40usize).prop_map(|of| Op::Replay { of }),
    ]
}

#[derive(Debug, Default, Clone, Copy)]
struct Bal {
    posted: i64,
    pending_debits: i64,
    pending_credits: i64,
}

struct Model {
    ids: Vec<Uuid>,
    exists: [bool; ACCOUNTS],
    currency: [&'static str; ACCOUNTS],
    no_negative: [bool; ACCOUNTS],
    bal: [Bal; ACCOUNTS],
    /// (transfer id, from, to, amount, ended)
    holds: Vec<(Uuid, usize, usize, i64, bool)>,
}

impl Model {
    fn transfer_ok(&self, from: usize, to: usize, amount: i64) -> bool {
        amount > 0
            && from != to
            && self.exists[from]
            && self.exists[to]
            && self.currency[from] == "USD"
            && self.currency[to] == "USD"
    }

    fn available(&self, i: usize) -> i64 {
        self.bal[i].posted - self.bal[i].pending_debits
    }
}

/// What a successful operation does to the model.
type Effect = Box<dyn FnOnce(&mut Model)>;

/// A request sent, and whether it was applied (for replays).
struct Sent {
    path: &'static str,
    body: Value,
    applied: bool,
}

async fn run(ops: Vec<Op>) {
    let app = TestApp::new().await;
    let mut ids = Vec::new();
    for (kind, currency) in [
        ("player_wallet", "USD"),
        ("player_wallet", "USD"),
        ("player_wallet", "USD"),
        ("house_revenue", "USD"),
        ("player_wallet", "EUR"),
    ] {
        let reply =
            app.post("/v1/accounts", json!({"kind": kind, "owner": "prop", "currency": currency})).await;
        ids.push(reply.body["id"].as_str().unwrap().parse::<Uuid>().unwrap());
    }
    ids.push(Uuid::now_v7());
    let mut model = Model {
        ids,
        exists: [true, true, true, true, true, false],
        currency: ["USD", "USD", "USD", "USD", "EUR", "USD"],
        no_negative: [true, true, true, false, true, false],
        bal: [Bal::default(); ACCOUNTS],
        holds: Vec::new(),
    };
    let mut sent: Vec<Sent> = Vec::new();

    for op in ops {
        let id = Uuid::now_v7();
        let (path, body, expect_ok, effect): (&'static str, Value, bool, Effect) = match op.clone() {
            Op::Deposit { to, amount } => {
                let ok = amount > 0 && model.exists[to];
                let body = json!({"id": id, "account_id": model.ids[to], "amount": amount, "currency": model.currency[to]});
                ("/v1/deposits", body, ok, Box::new(move |m: &mut Model| m.bal[to].posted += amount))
            }
            Op::Transfer { from, to, amount } => {
                let ok = model.transfer_ok(from, to, amount)
                    && (!model.no_negative[from] || model.available(from) >= amount);
                let body = json!({"id": id, "debit_account_id": model.ids[from], "credit_account_id": model.ids[to], "amount": amount, "currency": "USD"});
                (
                    "/v1/transfers",
                    body,
                    ok,
                    Box::new(move |m: &mut Model| {
                        m.bal[from].posted -= amount;
                        m.bal[to].posted += amount;
                    }),
                )
            }
            Op::Hold { from, to, amount } => {
                let ok = model.transfer_ok(from, to, amount)
                    && (!model.no_negative[from] || model.available(from) >= amount);
                let body = json!({"id": id, "debit_account_id": model.ids[from], "credit_account_id": model.ids[to], "amount": amount, "currency": "USD", "pending": true});
                (
                    "/v1/transfers",
                    body,
                    ok,
                    Box::new(move |m: &mut Model| {
                        m.bal[from].pending_debits += amount;
                        m.bal[to].pending_credits += amount;
                        m.holds.push((id, from, to, amount, false));
                    }),
                )
            }
            Op::Post { hold, amount } => {
                let found = model.holds.get(hold).copied();
                let pending_id = found.map_or_else(Uuid::now_v7, |h| h.0);
                let ok =
                    found.is_some_and(|(_, _, _, held, ended)| !ended && amount.is_none_or(|a| a <= held));
                let mut body = json!({"id": id, "post_pending_id": pending_id});
                if let Some(amount) = amount {
                    body["amount"] = json!(amount);
                }
                (
                    "/v1/transfers",
                    body,
                    ok,
                    Box::new(move |m: &mut Model| {
                        let (_, from, to, held, _) = m.holds[hold];
                        let paid = amount.unwrap_or(held);
                        m.bal[from].pending_debits -= held;
                        m.bal[to].pending_credits -= held;
                        m.bal[from].posted -= paid;
                        m.bal[to].posted += paid;
                        m.holds[hold].4 = true;
                    }),
                )
            }
            Op::Void { hold } => {
                let found = model.holds.get(hold).copied();
                let pending_id = found.map_or_else(Uuid::now_v7, |h| h.0);
                let ok = found.is_some_and(|h| !h.4);
                (
                    "/v1/transfers",
                    json!({"id": id, "void_pending_id": pending_id}),
                    ok,
                    Box::new(move |m: &mut Model| {
                        let (_, from, to, held, _) = m.holds[hold];
                        m.bal[from].pending_debits -= held;
                        m.bal[to].pending_credits -= held;
                        m.holds[hold].4 = true;
                    }),
                )
            }
            Op::Batch(items) => {
                // Funds are checked in order: apply one by one to a copy; no debit may overdraw a
                // wallet, whatever the batch credits it later.
                let mut after = model.bal;
                let shapes_ok = items.iter().all(|&(f, t, a)| model.transfer_ok(f, t, a));
                let mut funds_ok = true;
                for &(f, t, a) in &items {
                    after[f].posted -= a;
                    after[t].posted += a;
                    funds_ok &= !model.no_negative[f] || after[f].posted - after[f].pending_debits >= 0;
                }
                let transfers: Vec<Value> = items
                    .iter()
                    .map(|&(f, t, a)| json!({"id": Uuid::now_v7(), "debit_account_id": model.ids[f], "credit_account_id": model.ids[t], "amount": a, "currency": "USD"}))
                    .collect();
                (
                    "/v1/transfers/batch",
                    json!({"transfers": transfers}),
                    shapes_ok && funds_ok,
                    Box::new(move |m: &mut Model| m.bal = after),
                )
            }
            Op::Replay { of } => {
                let Some(earlier) = sent.get(of) else { continue };
                let reply = app.post(earlier.path, earlier.body.clone()).await;
                if earlier.applied {
                    assert_eq!(reply.status.as_u16(), 200, "replay of {}: {}", earlier.body, reply.body);
                    assert_eq!(
                        reply.headers.get("idempotent-replayed").is_some(),
                        earlier.path != "/v1/transfers/batch"
                    );
                } else {
                    // It was refused then; whatever it does now, the invariants below must hold,
                    // and nothing is modelled, so the model must not drift: it must be refused again
                    // unless the state now allows it, which the final comparison would expose.
                    assert!(!reply.status.is_success() || reply.status.as_u16() == 201, "{}", reply.body);
                    if reply.status.is_success() {
                        // Re-sync the model from the ledger for this rare case; from now on the
                        // request is applied, so a further replay is a replay of it (200).
                        resync(&app, &mut model).await;
                        if let Some(earlier) = sent.get_mut(of) {
                            earlier.applied = true;
                        }
                    }
                }
                assert_invariants(&app).await;
                continue;
            }
        };
        let reply = app.post(path, body.clone()).await;
        assert_eq!(reply.status.is_success(), expect_ok, "{op:?} -> {} {}", reply.status, reply.body);
        if expect_ok {
            effect(&mut model);
        }
        sent.push(Sent { path, body, applied: expect_ok });
        assert_invariants(&app).await;
    }

    for i in 0..5 {
        let balance = app.balance(model.ids[i]).await;
        let b = model.bal[i];
        assert_eq!(
            (
                balance["posted"].as_i64(),
                balance["pending_debits"].as_i64(),
                balance["pending_credits"].as_i64()
            ),
            (Some(b.posted), Some(b.pending_debits), Some(b.pending_credits)),
            "account {i}"
        );
    }
    app.assert_ledger_consistent().await;
}

async fn resync(app: &TestApp, model: &mut Model) {
    for i in 0..5 {
        let balance = app.balance(model.ids[i]).await;
        model.bal[i] = Bal {
            posted: balance["posted"].as_i64().unwrap(),
            pending_debits: balance["pending_debits"].as_i64().unwrap(),
            pending_credits: balance["pending_credits"].as_i64().unwrap(),
        };
    }
    let mut ended = HashMap::new();
    for (hold_id, ..) in &model.holds {
        let ends: i64 = sqlx::query_scalar("SELECT count(*) FROM transfers WHERE pending_id = $1")
            .bind(hold_id)
            .fetch_one(&app.pool)
            .await
            .unwrap();
        ended.insert(*hold_id, ends > 0);
    }
    for hold in &mut model.holds {
        hold.4 = ended[&hold.0];
    }
}

/// Every currency sums to zero and no "may not go negative" account is below zero.
async fn assert_invariants(app: &TestApp) {
    let (unbalanced, overdrawn): (i64, i64) = sqlx::query_as(
        "SELECT
           (SELECT count(*) FROM (SELECT a.currency FROM accounts a JOIN balances b ON b.account_id = a.id
              GROUP BY a.currency
             HAVING sum(b.credits_posted - b.debits_posted) <> 0 OR sum(b.credits_pending - b.debits_pending) <> 0) u),
           (SELECT count(*) FROM (SELECT a.id FROM accounts a JOIN balances b ON b.account_id = a.id
              WHERE a.no_negative GROUP BY a.id
             HAVING sum(b.credits_posted - b.debits_posted - b.debits_pending) < 0) o)",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!((unbalanced, overdrawn), (0, 0));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_sequence_of_operations_keeps_the_books_balanced(ops in proptest::collection::vec(op(), 1..40)) {
        tokio::runtime::Runtime::new().unwrap().block_on(run(ops));
    }
}
