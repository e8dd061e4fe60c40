//! Money in and out of a player's wallet through a payment provider (architecture §2).
//!
//! Money enters only when the provider says it arrived. A deposit is an **intent**: the player's
//! request is checked (self-exclusion, deposit limits, counted with the intents still pending)
//! and recorded `pending`, the provider is asked to collect it, and the answer is 202. The wallet
//! is credited only when the provider's **signed webhook** (`POST /v1/payments/webhook`, see
//! [`platform::webhook`]) reports the payment succeeded; a failure leaves the wallet as it was.
//!
//! A withdrawal is a **hold** on the wallet (a pending ledger transfer to cash clearing), so the
//! money cannot be staked meanwhile; the provider's confirmation posts the hold, its failure
//! voids it, and a hold nobody confirms expires by itself after `LOTTO_PAYMENTS_HOLD_SECONDS`.
//!
//! Every step is idempotent: an intent by the player's `Idempotency-Key` (a retry re-sends it to
//! the provider, which is how an intent survives a provider that was away), a webhook by the
//! provider's event id, and every ledger transfer by an id derived from the intent.
//!
//! No row lock is held across a call to the ledger (issue 33 §2). A deposit intent locks its
//! player only to count it against the limits (no money moves then); a withdrawal's hold is
//! refused by the ledger itself when the wallet cannot cover it, so it takes no lock. A webhook
//! claims the pending payment as `settling` with the provider's outcome and commits before the
//! ledger moves the money; the payment then becomes the outcome. A payment left `settling` (the
//! ledger was away, the process died) is finished by the provider's next delivery of any of its
//! events, or by [`finish_settling`], which the gateway runs every few seconds.
//!
//! [`crate::sandbox`] is a provider for local use that `lotto` runs in-process.

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode};
use chrono::Utc;
use domain::{Amount, Currency};
use ledger_api::{LedgerError, Purpose};
use platform::codes;
use platform::events::{self, Event, Kind};
use platform::webhook::SIGNATURE_HEADER;
use platform::{AppError, IdempotencyKey};
use serde_json::{Value, json};
use sqlx::PgConnection;
use uuid::Uuid;

use crate::auth::Authenticated;
use crate::saga::mail::Letter;
use crate::saga::players::the_player;
use crate::store::payments::{self as store, NewPayment, PaymentKind, Stage};
use crate::views::payments::{
    PaymentEvent, PaymentRequest, PaymentState, PaymentView, ProviderPayment, WebhookReceipt,
};
use crate::views::players::{DepositLimit, Player};
use crate::{GATEWAY_NAMESPACE, GatewayState};

/// Failed deposits within [`BLOCK_WINDOW_MINUTES`] that stop a player's deposits until an
/// operator clears it (N.J.A.C. 13:69O-1.4: a card tried again and again is a sign of a stolen
/// card or of a player chasing losses).
pub const FAILED_DEPOSITS_TO_BLOCK: i64 = 5;
pub const BLOCK_WINDOW_MINUTES: i32 = 10;

/// Checks a request's amount and currency before anything is recorded.
fn checked(request: &PaymentRequest) -> Result<(Amount, Currency), AppError> {
    let amount = Amount::new(request.amount).map_err(|e| match e {
        domain::MoneyError::TooLarge(_) => AppError::unprocessable(codes::AMOUNT_TOO_LARGE, e.to_string()),
        _ => AppError::unprocessable(codes::INVALID_AMOUNT, "amount must be greater than zero"),
    })?;
    let currency: Currency = request
        .currency
        .parse()
        .map_err(|e: domain::MoneyError| AppError::unprocessable(codes::INVALID_CURRENCY, e.to_string()))?;
    // Wallets are in US dollars.
    if currency != Currency::USD {
        return Err(AppError::unprocessable(codes::UNSUPPORTED_CURRENCY, "payments are in USD"));
    }
    if let Some(method) = &request.payment_method
        && !(1..=200).contains(&method.chars().count())
    {
        return Err(AppError::unprocessable(
            codes::INVALID_PAYMENT_METHOD,
            "payment_method is 1 to 200 characters",
        ));
    }
    Ok((amount, currency))
}

/// The intent with this id, if the player made it already: a replay when the request is the
/// same, a conflict when it is not.
async fn existing_intent(
    conn: &mut PgConnection,
    intent: &Intent<'_>,
) -> Result<Option<PaymentView>, AppError> {
    let Some(row) = store::get(conn, intent.id).await? else {
        return Ok(None);
    };
    let view = PaymentView::from(&row);
    if view.amount != intent.amount.cents() || view.currency != intent.currency.as_str() {
        return Err(AppError::conflict(
            codes::IDEMPOTENCY_CONFLICT,
            "this key made a payment of another amount",
        ));
    }
    Ok(Some(view))
}

async fn insert_intent(
    conn: &mut PgConnection,
    intent: &Intent<'_>,
    kind: PaymentKind,
) -> Result<Option<PaymentView>, AppError> {
    let payment = NewPayment {
        id: intent.id,
        player: intent.player.id,
        kind,
        amount: intent.request.amount,
        currency: &intent.request.currency,
        method: intent.method,
    };
    Ok(store::insert_pending(conn, &payment).await?.as_ref().map(PaymentView::from))
}

/// Asks the provider to make the payment (again, on a retry: the provider keys it by our id).
async fn send_to_provider(state: &GatewayState, view: &PaymentView, method: &str) -> Result<(), AppError> {
    let provider = state
        .payments
        .provider
        .as_ref()
        .ok_or_else(|| AppError::unavailable("no payment provider is configured here"))?;
    let payment = ProviderPayment {
        id: view.id,
        kind: view.kind,
        amount: view.amount,
        currency: view.currency.clone(),
        payment_method: method.to_owned(),
    };
    let _: Value = provider
        .call(
            Method::POST,
            "/v1/payments",
            &state.payments.api_key,
            Some(&payment),
            Some(&view.id.to_string()),
        )
        .await?;
    Ok(())
}

fn intent_id(kind: PaymentKind, player: Uuid, key: &str) -> Uuid {
    // Keys are the player's own: the same key from two players is two payments. (Deposit ids
    // keep the form they had when a deposit was credited at once.)
    Uuid::new_v5(&GATEWAY_NAMESPACE, format!("{}/{player}/{key}", kind.as_str()).as_bytes())
}

/// A deposit or withdrawal intent: recorded once per key (a replay answers it as it stands and
/// sends it to the provider again while it is pending), with its kind's own step first — a
/// deposit within the limits, a withdrawal's hold on the wallet — and then sent to the provider.
/// Answers whether it was made now, and the payment as it stands.
pub(crate) async fn make_intent(
    state: &GatewayState,
    caller: &Authenticated,
    key: IdempotencyKey,
    request: &PaymentRequest,
    kind: PaymentKind,
) -> Result<(bool, PaymentView), AppError> {
    let player = the_player(state, caller).await?;
    let key = key.required()?;
    let (amount, currency) = checked(request)?;
    // A player whose play is suspended (a break, an exclusion, a closed account, a list match)
    // cannot move money in (their sessions end at once; this also covers a token issued just
    // before). Withdrawals go on.
    if kind == PaymentKind::Deposit
        && let Some(refused) = player.standing.refusal(player.play_resumes_at, "you are")
    {
        return Err(refused);
    }
    if kind == PaymentKind::Deposit && player.deposits_blocked_at.is_some() {
        return Err(AppError::new(
            StatusCode::FORBIDDEN,
            codes::DEPOSITS_BLOCKED,
            format!(
                "{FAILED_DEPOSITS_TO_BLOCK} deposits failed within {BLOCK_WINDOW_MINUTES} minutes, so deposits are stopped \
                 until the lottery has checked them; call us to have them cleared. Withdrawals go on."
            ),
        ));
    }
    // No money in before the player's identity is verified (issue 49 §KYC).
    if kind == PaymentKind::Deposit {
        crate::saga::identity::require_verified(state, player.id).await?;
    }
    let id = intent_id(kind, player.id, key);
    let method = request.payment_method.clone().unwrap_or_else(|| "sandbox_card".to_owned());
    let intent = Intent { id, player: &player, amount, currency, request, method: &method };
    let (created, view) = match kind {
        PaymentKind::Deposit => deposit_intent(state, &intent).await?,
        PaymentKind::Withdrawal => withdrawal_intent(state, &intent).await?,
    };
    if view.state == PaymentState::Pending {
        send_to_provider(state, &view, &method).await?;
    }
    Ok((created, view))
}

/// A payment a player asks for, checked, with the id its key gives it.
struct Intent<'a> {
    id: Uuid,
    player: &'a Player,
    amount: Amount,
    currency: Currency,
    request: &'a PaymentRequest,
    method: &'a str,
}

/// A deposit intent, recorded once: the player locked meanwhile (no money moves), so two intents
/// cannot both fit under the same limit.
async fn deposit_intent(state: &GatewayState, intent: &Intent<'_>) -> Result<(bool, PaymentView), AppError> {
    let limits = crate::saga::players::limits(state, intent.player.id).await?;
    let mut tx = state.pool.begin().await?;
    store::lock_player(&mut tx, intent.player.id).await?;
    let answer = match existing_intent(&mut tx, intent).await? {
        Some(view) => (false, view),
        None => {
            within_limits(&mut tx, intent.player, intent.amount, &limits).await?;
            let inserted = insert_intent(&mut tx, intent, PaymentKind::Deposit).await?;
            (true, inserted.ok_or_else(|| AppError::internal("a deposit intent collided under its lock"))?)
        }
    };
    tx.commit().await?;
    Ok(answer)
}

/// A withdrawal intent, recorded once, without a lock: the hold comes first (keyed by the
/// intent, so a retry or a racing copy is the same hold) and the ledger refuses it, with nothing
/// recorded, when the wallet cannot cover it. A hold whose intent could not be recorded is voided.
async fn withdrawal_intent(
    state: &GatewayState,
    intent: &Intent<'_>,
) -> Result<(bool, PaymentView), AppError> {
    if let Some(view) = existing_intent(&mut *state.pool.acquire().await?, intent).await? {
        return Ok((false, view));
    }
    let id = intent.id;
    hold_for_withdrawal(state, intent.player, id, intent.amount).await?;
    // The hold is keyed by the intent, so a retry after an attempt that could not record its
    // intent meets that attempt's hold, released already: recording it now would send the
    // provider a withdrawal with no money held. The key is spent; a new one asks afresh.
    let void = Uuid::new_v5(&GATEWAY_NAMESPACE, format!("payment/{id}/unrecorded").as_bytes());
    if state.ledger.transfer_exists(void).await? {
        return Err(AppError::conflict(
            codes::WITHDRAWAL_ABANDONED,
            "a withdrawal with this key could not be recorded and its hold was released; ask again with a new Idempotency-Key",
        ));
    }
    let recorded = insert_intent(&mut *state.pool.acquire().await?, intent, PaymentKind::Withdrawal).await;
    match recorded {
        Ok(Some(view)) => Ok((true, view)),
        // A copy with the same key recorded it first: its intent, this same hold.
        Ok(None) => existing_intent(&mut *state.pool.acquire().await?, intent)
            .await?
            .map(|view| (false, view))
            .ok_or_else(|| AppError::internal("a withdrawal intent vanished")),
        Err(e) => {
            if let Err(voided) = state
                .ledger
                .void_hold(void, id, &Purpose::payment(id, PaymentKind::Withdrawal.as_str()).unrecorded())
                .await
            {
                tracing::warn!(payment = %id, error = voided.code(), "the hold of an unrecorded withdrawal waits for its expiry");
            }
            Err(e)
        }
    }
}

/// Refuses a deposit that would pass one of the player's limits. Intents still pending count: a
/// player may not queue deposits past a limit.
async fn within_limits(
    tx: &mut PgConnection,
    player: &Player,
    amount: Amount,
    limits: &[DepositLimit],
) -> Result<(), AppError> {
    for limit in limits.iter().filter(|l| l.amount.is_some()) {
        let used = store::deposited_within(&mut *tx, player.id, limit.period.window_days()).await?;
        let cap = limit.amount.unwrap_or(i64::MAX);
        if used.saturating_add(amount.cents()) > cap {
            return Err(AppError::unprocessable(
                codes::DEPOSIT_LIMIT_EXCEEDED,
                format!("this deposit would pass your {} limit", limit.period.as_str()),
            )
            .with_context(json!({"period": limit.period, "limit": cap, "used": used})));
        }
    }
    Ok(())
}

/// The withdrawal's hold, before anything is recorded: a wallet that cannot cover it refuses.
async fn hold_for_withdrawal(
    state: &GatewayState,
    player: &Player,
    id: Uuid,
    amount: Amount,
) -> Result<(), AppError> {
    let purpose = Purpose::payment("withdrawal", PaymentKind::Withdrawal.as_str()).for_player(player.id);
    let hold = Some(state.payments.hold_seconds);
    Ok(state.ledger.withdraw(id, player.wallet_account_id, amount.cents(), &purpose, hold).await?)
}

/// The provider's event, its signature checked (HMAC over `t.body`, in the replay window) and
/// its body read; and whether it says the payment succeeded.
fn verified_event(
    state: &GatewayState,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<(PaymentEvent, bool), AppError> {
    let signature = headers.get(SIGNATURE_HEADER).and_then(|v| v.to_str().ok()).unwrap_or_default();
    state
        .payments
        .webhook_secret
        .verify(signature, body, Utc::now().timestamp(), state.payments.tolerance_seconds)
        .map_err(|e| AppError::new(StatusCode::UNAUTHORIZED, codes::INVALID_SIGNATURE, e.to_string()))?;
    if platform::extract::has_escaped_nul(body) {
        return Err(platform::extract::nul_in_text());
    }
    let event: PaymentEvent = serde_json::from_slice(body)
        .map_err(|e| AppError::unprocessable(codes::INVALID_BODY, format!("not a payment event: {e}")))?;
    let succeeded = match event.kind.as_str() {
        "payment.succeeded" => true,
        "payment.failed" => false,
        other => {
            return Err(AppError::unprocessable(
                codes::UNKNOWN_EVENT,
                format!("event type {other:?} is not one we handle"),
            ));
        }
    };
    if !(1..=200).contains(&event.id.len()) {
        return Err(AppError::unprocessable(codes::INVALID_BODY, "an event id is 1 to 200 characters"));
    }
    Ok((event, succeeded))
}

/// One of the caller's own payments.
pub(crate) async fn payment_of(
    state: &GatewayState,
    caller: &Authenticated,
    id: Uuid,
) -> Result<PaymentView, AppError> {
    let player = the_player(state, caller).await?;
    let row = store::get_of_player(&state.pool, id, player.id).await?.ok_or_else(|| {
        AppError::not_found(codes::PAYMENT_NOT_FOUND, format!("payment {id} does not exist"))
    })?;
    Ok(PaymentView::from(&row))
}

/// A page of the caller's deposits and withdrawals, newest first, declined ones included.
pub(crate) async fn payments_of(
    state: &GatewayState,
    caller: &Authenticated,
    page: &platform::page::PageParams<platform::TimeIdCursor>,
) -> Result<ledger_api::wire::Page<PaymentView>, AppError> {
    let player = the_player(state, caller).await?;
    let (after, limit) = (page.after()?, page.limit()?);
    let rows = store::of_player(&state.pool, player.id, after.map(|c| (c.at, c.id)), limit).await?;
    let next = page
        .next_cursor(rows.len(), rows.last().map(|r| platform::TimeIdCursor { at: r.created_at, id: r.id }));
    Ok(ledger_api::wire::Page { items: rows.iter().map(PaymentView::from).collect(), next })
}

/// The provider's event applied once: the event recorded and, for a pending payment, its
/// outcome claimed (`settling`) in one short transaction; the money moves after it commits.
pub(crate) async fn take_event(
    state: &GatewayState,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<WebhookReceipt, AppError> {
    let (event, succeeded) = verified_event(state, headers, body)?;
    let mut tx = state.pool.begin().await?;
    let row = store::lock(&mut tx, event.payment_id).await?.ok_or_else(|| {
        AppError::not_found(codes::PAYMENT_NOT_FOUND, format!("payment {} does not exist", event.payment_id))
    })?;
    let view = PaymentView::from(&row);
    let fresh = store::record_event(&mut tx, &event.id, event.payment_id, &event.kind).await?;
    if fresh && (event.amount, event.currency.as_str()) != (view.amount, view.currency.as_str()) {
        return Err(AppError::unprocessable(
            codes::EVENT_MISMATCH,
            "the event's amount or currency is not the payment's",
        ));
    }
    let settling = match row.stage {
        Stage::Pending if fresh => {
            let failure = (!succeeded).then(|| event.reason.clone().unwrap_or_else(|| "declined".to_owned()));
            store::claim_settling(&mut tx, view.id, succeeded, failure.as_deref()).await?;
            if !succeeded
                && store::block_after_failures(
                    &mut tx,
                    view.id,
                    FAILED_DEPOSITS_TO_BLOCK,
                    BLOCK_WINDOW_MINUTES,
                )
                .await?
            {
                tracing::warn!(payment = %view.id, "five deposits failed within 10 minutes: the player's deposits are stopped");
            }
            true
        }
        // Claimed by an earlier delivery that did not finish: finished now, by its outcome.
        Stage::Settling { .. } => true,
        _ => false,
    };
    tx.commit().await?;
    if !settling {
        // A replay, or a second outcome for a settled payment: recorded, nothing changes.
        return Ok(WebhookReceipt { replayed: !fresh, state: view.state });
    }
    let state_now = finish(state, view.id).await?;
    Ok(WebhookReceipt { replayed: !fresh, state: state_now })
}

/// Finishes a `settling` payment: its outcome's money moved (a replay if it had moved), then the
/// payment marked with the outcome. Answers the payment's state after it.
async fn finish(state: &GatewayState, id: Uuid) -> Result<PaymentState, AppError> {
    let (row, wallet) = store::with_wallet(&state.pool, id)
        .await?
        .ok_or_else(|| AppError::internal(format!("payment {id} vanished")))?;
    let view = PaymentView::from(&row);
    let Stage::Settling { succeeded } = row.stage else { return Ok(view.state) };
    apply_outcome(state, &view, wallet, succeeded).await?;
    let mut tx = state.pool.begin().await?;
    let settled_now = store::settle(&mut tx, id).await?;
    if let Some(player) = settled_now {
        if view.kind == PaymentKind::Withdrawal {
            let email = crate::store::players::email_of_wallet(&mut tx, wallet).await?;
            let letter = Letter::withdrawal(view.amount, succeeded, &state.protection.help_line);
            crate::saga::mail::write(state, &mut tx, &email, None, &letter).await?;
        }
        events::record(&mut tx, crate::SCHEMA, &settled_event(&view, player, succeeded)?).await?;
    }
    tx.commit().await?;
    Ok(if succeeded { PaymentState::Succeeded } else { PaymentState::Failed })
}

/// A payment's outcome, as the significant-events log records it: the money moved (or the hold
/// voided) before the payment was marked, in the transaction that marks it.
fn settled_event(view: &PaymentView, player: Uuid, succeeded: bool) -> Result<Event, AppError> {
    #[derive(serde::Serialize)]
    struct Settled<'a> {
        payment: Uuid,
        amount_cents: i64,
        currency: &'a str,
        failure: Option<&'a str>,
    }
    let kind = match (view.kind, succeeded) {
        (PaymentKind::Deposit, true) => Kind::Deposit,
        (PaymentKind::Deposit, false) => Kind::DepositFailed,
        (PaymentKind::Withdrawal, true) => Kind::Withdrawal,
        (PaymentKind::Withdrawal, false) => Kind::WithdrawalFailed,
    };
    let failure = if succeeded { None } else { Some(view.failure.as_deref().unwrap_or("declined")) };
    let settled = Settled { payment: view.id, amount_cents: view.amount, currency: &view.currency, failure };
    Ok(Event::new(kind, &settled)?.player(player))
}

/// Finishes every payment left `settling` for longer than `older_than` (its webhook's process
/// died, or the ledger was away, and the provider has not delivered again). Returns how many.
pub(crate) async fn finish_settling(
    state: &GatewayState,
    older_than: std::time::Duration,
) -> Result<usize, AppError> {
    let settling = store::settling(&state.pool, older_than).await?;
    Ok(platform::recovery::finish_each(settling, "payment", |id| finish(state, id)).await)
}

/// The ledger side of an outcome; each transfer's id comes from the payment, so a webhook
/// retried after a crash moves the money once.
async fn apply_outcome(
    state: &GatewayState,
    view: &PaymentView,
    wallet: Uuid,
    succeeded: bool,
) -> Result<(), AppError> {
    let derived =
        |step: &str| Uuid::new_v5(&GATEWAY_NAMESPACE, format!("payment/{}/{step}", view.id).as_bytes());
    let purpose = Purpose::payment(view.id, view.kind.as_str());
    // A hold that ran out (or ended) before its outcome arrived.
    let hold_over = |e: &LedgerError| matches!(e.code(), "hold_expired" | "hold_already_ended");
    match (view.kind, succeeded) {
        (PaymentKind::Deposit, true) => state.ledger.deposit(view.id, wallet, view.amount, &purpose).await?,
        (PaymentKind::Deposit, false) => {}
        (PaymentKind::Withdrawal, true) => {
            match state.ledger.post_hold(derived("post"), view.id, &purpose).await {
                Ok(()) => {}
                // Ended by this posting, made by another delivery finishing the same payment at
                // the same moment: nothing more to do.
                Err(e) if hold_over(&e) && state.ledger.transfer_exists(derived("post")).await? => {}
                // The hold ran out before the provider paid: the money has left all the same, so it
                // is taken from the wallet now.
                Err(e) if hold_over(&e) => {
                    tracing::warn!(payment = %view.id, "a withdrawal was paid after its hold ended");
                    state.ledger.withdraw(derived("late"), wallet, view.amount, &purpose, None).await?;
                }
                Err(e) => return Err(e.into()),
            }
        }
        (PaymentKind::Withdrawal, false) => {
            match state.ledger.void_hold(derived("void"), view.id, &purpose).await {
                // An expired hold has already given the money back.
                Err(e) if !hold_over(&e) => return Err(e.into()),
                _ => {}
            }
        }
    }
    Ok(())
}
