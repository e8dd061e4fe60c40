//! Live results (issue 15): a screen watching `GET /v1/draws/live` is told the Keno draw on sale
//! at once, each draw's numbers as soon as the scheduler draws them, and, reconnecting with
//! `Last-Event-ID`, the draws it missed.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use chrono::Duration;
use common::Game;
use draw_games::saga::keno::draws::run_due_draws;
use http_body_util::BodyExt;
use platform::clock::Clock;
use serde_json::Value;
use tower::ServiceExt;

/// One event as a browser's EventSource parses it.
#[derive(Debug)]
struct ServerEvent {
    name: String,
    id: Option<String>,
    data: Value,
}

/// A watching screen: the stream's body, read event by event.
struct Screen {
    body: Body,
    pending: String,
}

impl Screen {
    async fn open(game: &Game, last_event_id: Option<i64>) -> Screen {
        let mut request = Request::get("/v1/draws/live");
        if let Some(id) = last_event_id {
            request = request.header("last-event-id", id.to_string());
        }
        let response = game.router.clone().oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Screen { body: response.into_body(), pending: String::new() }
    }

    /// The next event (keep-alive comments skipped), or a failure after ten seconds.
    async fn next(&mut self) -> ServerEvent {
        loop {
            if let Some(end) = self.pending.find("\n\n") {
                let block: String = self.pending.drain(..end + 2).collect();
                let (mut name, mut id, mut data) = (String::from("message"), None, String::new());
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        name = v.trim().to_owned();
                    } else if let Some(v) = line.strip_prefix("id:") {
                        id = Some(v.trim().to_owned());
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.trim_start());
                    }
                }
                if data.is_empty() {
                    continue;
                }
                return ServerEvent { name, id, data: serde_json::from_str(&data).unwrap() };
            }
            let frame = tokio::time::timeout(std::time::Duration::from_secs(10), self.body.frame())
                .await
                .expect("no event within ten seconds")
                .expect("the stream ended")
                .unwrap();
            if let Ok(bytes) = frame.into_data() {
                self.pending.push_str(std::str::from_utf8(&bytes).unwrap());
            }
        }
    }

    async fn next_named(&mut self, name: &str) -> ServerEvent {
        loop {
            let event = self.next().await;
            if event.name == name {
                return event;
            }
        }
    }
}

#[tokio::test]
async fn a_watching_screen_sees_the_draw_on_sale_and_each_result_as_it_is_drawn() {
    let mut game = Game::new().await;
    let schedule = game.state.schedule;
    let start = schedule.sales_close_at(schedule.next_after(chrono::Utc::now())) - Duration::seconds(100);
    game.state.clock = Clock::manual(start);
    game.router = draw_games::router(game.state.clone(), platform::http::Limits::default());
    let on_sale = schedule.next_after(start);
    // The scheduler's first pass opens the draw on sale (a fresh schedule starts there).
    run_due_draws(&game.state).await.unwrap();

    let mut screen = Screen::open(&game, None).await;
    let open = screen.next_named("keno_open").await;
    assert_eq!(open.data["number"], on_sale);
    assert_eq!(open.data["state"], "open");

    // Three draws come and go; the screen hears each one's numbers, in order, as drawn.
    for k in 0..3 {
        game.state.clock.advance(schedule.interval);
        run_due_draws(&game.state).await.unwrap();
        let drawn = screen.next_named("keno_draw").await;
        assert_eq!(drawn.data["number"], on_sale + k);
        assert_eq!(drawn.id.as_deref(), Some((on_sale + k).to_string().as_str()));
        let stored = game.get(&format!("/v1/keno/draws/{}", on_sale + k), None).await;
        assert_eq!(drawn.data["numbers"], stored.body["numbers"]);
        assert_eq!(drawn.data["numbers"].as_array().unwrap().len(), 20);
        let next_open = screen.next_named("keno_open").await;
        assert_eq!(next_open.data["number"], on_sale + k + 1);
    }

    // A screen that saw only the first result reconnects: the two it missed come first, in order.
    let mut again = Screen::open(&game, Some(on_sale)).await;
    let first = again.next().await;
    assert_eq!((first.name.as_str(), first.data["number"].as_i64()), ("keno_draw", Some(on_sale + 1)));
    let second = again.next().await;
    assert_eq!((second.name.as_str(), second.data["number"].as_i64()), ("keno_draw", Some(on_sale + 2)));
}
