//! Live results (issue 15, ADR 0009 §8): `GET /v1/draws/live`, a stream of Server-Sent Events
//! that tells every watching screen when a Keno draw opens for sales, when its numbers are drawn,
//! and when a Powerball drawing's results stand.
//!
//! One poller per process reads the newest draws once a second and publishes them on a `watch`
//! channel; each connection turns the changes it has not yet sent into events. However many
//! screens watch, the database sees one small query a second from each process, and a process
//! that does not lead the scheduler still streams what the leader draws.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use platform::AppError;
use tokio::sync::watch;

use crate::DrawsState;
use crate::store::DrawState;
use crate::views::{DrawView, PowerballDrawView};

/// How often the poller reads the newest draws.
const POLL_EVERY: Duration = Duration::from_secs(1);
/// How many Keno draws the poller reads (the one on sale and the ones before it): enough that a
/// screen a few draws behind (a reconnect with `Last-Event-ID`) catches up.
const KENO_WINDOW: i64 = 6;
/// How many drawn Keno draws a reconnecting screen is sent at most.
const CATCH_UP: usize = 5;

/// What the poller saw last.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// Newest first, from the draw on sale back.
    pub keno: Vec<DrawView>,
    /// The newest past Powerball drawing, with its results once they stand.
    pub powerball: Option<PowerballDrawView>,
}

/// The process's one poller, started by the first screen that watches.
#[derive(Clone, Default)]
pub struct LiveFeed {
    snapshots: Arc<OnceLock<watch::Receiver<Arc<Snapshot>>>>,
}

impl std::fmt::Debug for LiveFeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveFeed").field("started", &self.snapshots.get().is_some()).finish()
    }
}

impl LiveFeed {
    fn subscribe(&self, state: &DrawsState) -> watch::Receiver<Arc<Snapshot>> {
        self.snapshots
            .get_or_init(|| {
                let (sender, receiver) = watch::channel(Arc::new(Snapshot::default()));
                tokio::spawn(poll(state.clone(), sender));
                receiver
            })
            .clone()
    }
}

async fn poll(state: DrawsState, sender: watch::Sender<Arc<Snapshot>>) {
    let mut ticker = tokio::time::interval(POLL_EVERY);
    loop {
        ticker.tick().await;
        match read_snapshot(&state).await {
            Ok(snapshot) => {
                sender.send_replace(Arc::new(snapshot));
            }
            // A database that is away for a moment: the screens keep what they have.
            Err(e) => tracing::warn!(error = %e, "live results: reading the newest draws failed"),
        }
    }
}

async fn read_snapshot(state: &DrawsState) -> Result<Snapshot, AppError> {
    let next = state.schedule.next_after(state.clock.now());
    let mut keno: Vec<DrawView> = crate::store::keno::draws::list(&state.pool, next, KENO_WINDOW)
        .await?
        .into_iter()
        .map(DrawView::from)
        .collect();
    // The draw on sale has its row once something touches it (a sale, the scheduler); a screen
    // is told of it from the schedule before that.
    if keno.first().is_none_or(|newest| newest.number < next) {
        keno.insert(
            0,
            DrawView {
                number: next,
                sales_close_at: state.schedule.sales_close_at(next),
                state: DrawState::Open,
                entries: None,
                wagers_cents: None,
                wager_set_hash: None,
                numbers: None,
                drawn_at: None,
            },
        );
    }
    let powerball =
        match crate::store::powerball::drawings::list_past(&state.pool, state.clock.now(), None, 1)
            .await?
            .first()
        {
            Some(stored) => Some(super::powerball::drawing_view(state, stored, None).await?),
            None => None,
        };
    Ok(Snapshot { keno, powerball })
}

/// What one connection has sent so far.
struct Sent {
    open: Option<i64>,
    drawn: Option<i64>,
    powerball: Option<(chrono::NaiveDate, bool)>,
}

impl Sent {
    /// The events `snapshot` holds that this connection has not sent, oldest first.
    fn events_for(&mut self, snapshot: &Snapshot) -> Vec<Event> {
        let mut events = Vec::new();
        let mut drawn: Vec<&DrawView> = snapshot.keno.iter().filter(|d| d.numbers.is_some()).collect();
        drawn.reverse();
        let fresh: Vec<&DrawView> = match self.drawn {
            Some(last) => drawn.into_iter().filter(|d| d.number > last).collect(),
            // A new screen gets the newest result only.
            None => drawn.into_iter().last().into_iter().collect(),
        };
        for draw in fresh.iter().rev().take(CATCH_UP).rev() {
            events.push(json_event("keno_draw", draw).id(draw.number.to_string()));
            self.drawn = Some(draw.number);
        }
        if let Some(open) = snapshot.keno.iter().find(|d| d.state == DrawState::Open)
            && self.open != Some(open.number)
        {
            events.push(json_event("keno_open", open));
            self.open = Some(open.number);
        }
        if let Some(drawing) = &snapshot.powerball {
            let seen = (drawing.draw_date, drawing.results.is_some());
            if self.powerball != Some(seen) {
                events.push(json_event("powerball_drawing", drawing));
                self.powerball = Some(seen);
            }
        }
        events
    }
}

fn json_event<T: serde::Serialize>(name: &str, value: &T) -> Event {
    // The views serialise infallibly (plain structs of numbers, texts and dates).
    Event::default().event(name).data(serde_json::to_string(value).unwrap_or_default())
}

#[utoipa::path(
    get, path = "/v1/draws/live", tag = "keno", operation_id = "live_draws",
    params(("Last-Event-ID" = Option<String>, Header, description = "the last Keno draw number this screen saw; the draws after it are sent first (at most 5); anything that is not a draw number is ignored")),
    responses((status = 200, description = "Server-Sent Events (public): `keno_open` (the Keno draw on sale, a DrawView, as it changes), `keno_draw` (a Keno draw's numbers as soon as they are drawn, a DrawView; its `id` is the draw number), `powerball_drawing` (the newest past Powerball drawing, a PowerballDrawView, and again when its results stand). A comment line every 15 s keeps the connection open.",
               content_type = "text/event-stream", body = crate::views::LiveEvent),
              (status = "4XX", response = platform::openapi::Refused))
)]
/// `GET /v1/draws/live`: public; live results as Server-Sent Events. At most
/// `LOTTO_MAX_STREAMS` at once per process (503 with `Retry-After` beyond: each holds a
/// connection and a file handle); when the process shuts down every stream ends at once with a
/// `retry` hint, so a client reconnects (to another replica) and the process exits.
pub async fn live_draws(
    State(state): State<DrawsState>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, AppError> {
    let permit = state.live_streams.clone().try_acquire_owned().map_err(|_| {
        AppError::unavailable("too many live streams are open on this server; retry shortly")
            .with_header(axum::http::header::RETRY_AFTER, axum::http::HeaderValue::from_static("5"))
    })?;
    // Held with the permit, for as long as the stream is open.
    let permit = (permit, platform::metrics::OpenStream::new());
    let last_seen =
        headers.get("last-event-id").and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<i64>().ok());
    let mut receiver = state.live.subscribe(&state);
    // The first snapshot may still be the empty default: this screen's first events come with the
    // poller's first read.
    receiver.mark_changed();
    let sent = Sent { open: None, drawn: last_seen, powerball: None };
    let events = futures_util::stream::unfold(
        (receiver, sent, VecDeque::<Event>::new(), permit),
        |(mut receiver, mut sent, mut queue, permit)| async move {
            loop {
                if let Some(event) = queue.pop_front() {
                    return Some((Ok(event), (receiver, sent, queue, permit)));
                }
                // The poller stops only with the process.
                receiver.changed().await.ok()?;
                let snapshot = receiver.borrow_and_update().clone();
                queue.extend(sent.events_for(&snapshot));
            }
        },
    );
    // A shutting-down process ends the stream with a last event telling the client to come back
    // in a second (EventSource reconnects by itself, to whichever replica answers).
    let goodbye = futures_util::stream::once(async {
        Ok::<_, Infallible>(
            Event::default().event("reconnect").retry(Duration::from_secs(1)).data("shutting down"),
        )
    });
    let stream = futures_util::StreamExt::chain(
        futures_util::StreamExt::take_until(events, platform::http::draining()),
        goodbye,
    );
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}
