//! A small W3C WebDriver client (the few commands the browser tests use) over the workspace's
//! HTTP client, talking to Debian's `chromedriver`, which drives Debian's `chromium` headless.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The key WebDriver names "Enter" (what a keyboard-wedge scanner sends after the digits).
pub const ENTER: &str = "\u{E007}";
/// The W3C name of an element reference in a WebDriver answer.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";
/// How long a wait for the page lasts before the test fails.
const PATIENCE: Duration = Duration::from_secs(20);

/// A running `chromedriver`; stopped when dropped.
#[derive(Debug)]
pub struct Driver {
    child: Child,
    pub url: String,
}

impl Driver {
    pub async fn start() -> Result<Driver, String> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start chromedriver (Debian's chromium-driver): {e}"))?;
        let driver = Driver { child, url: format!("http://127.0.0.1:{port}") };
        let http = reqwest::Client::new();
        let started = Instant::now();
        while started.elapsed() < PATIENCE {
            if let Ok(answer) = http.get(format!("{}/status", driver.url)).send().await
                && let Ok(status) = answer.json::<Value>().await
                && status["value"]["ready"] == true
            {
                return Ok(driver);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Err("chromedriver did not become ready".to_owned())
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One browser (a fresh profile: its own storage), headless.
#[derive(Debug)]
pub struct Browser {
    http: reqwest::Client,
    session: String,
    /// The screen it was opened with, in CSS pixels.
    pub size: (u32, u32),
}

/// An element on the page.
#[derive(Clone, Debug)]
pub struct Element(String);

impl Browser {
    pub async fn open(driver: &Driver, width: u32, height: u32) -> Result<Browser, String> {
        let http = reqwest::Client::new();
        let mut options = json!({
            "binary": "/usr/bin/chromium",
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     format!("--window-size={width},{height}"), "--lang=en-US"],
        });
        // A window is never narrower than 500 pixels; a phone's screen is, so it is emulated.
        if width < 500 {
            options["mobileEmulation"] = json!({"deviceMetrics": {"width": width, "height": height, "pixelRatio": 1.0, "touch": true}});
        }
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": options,
            "goog:loggingPrefs": {"browser": "ALL"},
        }}});
        let answer: Value = http
            .post(format!("{}/session", driver.url))
            .json(&capabilities)
            .send()
            .await
            .map_err(|e| e.to_string())?
            .json()
            .await
            .map_err(|e| e.to_string())?;
        let session = answer["value"]["sessionId"]
            .as_str()
            .ok_or_else(|| format!("no browser session: {answer}"))?
            .to_owned();
        Ok(Browser { http, session: format!("{}/session/{session}", driver.url), size: (width, height) })
    }

    async fn command(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, String> {
        let mut request = self.http.request(method, format!("{}{path}", self.session));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let answer: Value =
            request.send().await.map_err(|e| e.to_string())?.json().await.map_err(|e| e.to_string())?;
        if let Some(error) = answer["value"]["error"].as_str() {
            return Err(format!("{error}: {}", answer["value"]["message"].as_str().unwrap_or("")));
        }
        Ok(answer["value"].clone())
    }

    async fn post(&self, path: &str, body: Value) -> Result<Value, String> {
        self.command(reqwest::Method::POST, path, Some(body)).await
    }

    async fn get(&self, path: &str) -> Result<Value, String> {
        self.command(reqwest::Method::GET, path, None).await
    }

    pub async fn goto(&self, url: &str) -> Result<(), String> {
        self.post("/url", json!({"url": url})).await.map(|_| ())
    }

    /// The elements matching `css` now.
    pub async fn all(&self, css: &str) -> Result<Vec<Element>, String> {
        let found = self.post("/elements", json!({"using": "css selector", "value": css})).await?;
        Ok(found
            .as_array()
            .map(|items| {
                items.iter().filter_map(|e| e[ELEMENT].as_str()).map(|id| Element(id.to_owned())).collect()
            })
            .unwrap_or_default())
    }

    /// The first element matching `css`, waiting for it to appear.
    pub async fn find(&self, css: &str) -> Result<Element, String> {
        let started = Instant::now();
        loop {
            if let Some(element) = self.all(css).await?.into_iter().next() {
                return Ok(element);
            }
            if started.elapsed() > PATIENCE {
                return Err(format!("nothing on the page matches {css:?}"));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The button whose text is `text`, waiting for it (and for it to be enabled).
    pub async fn button(&self, text: &str) -> Result<Element, String> {
        let started = Instant::now();
        loop {
            for button in self.all("button").await? {
                // The page may redraw between the listing and the reading: a stale button is
                // skipped, and the next pass lists the new ones.
                let Ok(said) = self.text(&button).await else { continue };
                if said.trim() == text && self.enabled(&button).await.unwrap_or(false) {
                    return Ok(button);
                }
            }
            if started.elapsed() > PATIENCE {
                return Err(format!("no enabled button {text:?} on the page"));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn click(&self, element: &Element) -> Result<(), String> {
        self.post(&format!("/element/{}/click", element.0), json!({})).await.map(|_| ())
    }

    pub async fn click_button(&self, text: &str) -> Result<(), String> {
        let mut last = String::new();
        for _ in 0..5 {
            let button = self.button(text).await?;
            match self.click(&button).await {
                Ok(()) => return Ok(()),
                // Redrawn between finding and clicking: find it again.
                Err(e) if e.starts_with("stale element") => last = e,
                Err(e) => return Err(e),
            }
        }
        Err(last)
    }

    /// Types `text` into `element` as a keyboard would (key by key).
    pub async fn type_into(&self, element: &Element, text: &str) -> Result<(), String> {
        self.post(&format!("/element/{}/value", element.0), json!({"text": text})).await.map(|_| ())
    }

    /// Empties a field, then types `text` into it. The emptying is announced as an `input`
    /// event, as a user's deleting is (WebDriver's clear only fires `change`), in the same script:
    /// a page that redraws the field from its own state between the two would put the old text
    /// back before the page heard of the emptying, and the typing would add to it.
    pub async fn fill(&self, css: &str, text: &str) -> Result<(), String> {
        let field = self.find(css).await?;
        self.post(
            "/execute/sync",
            json!({"script": "arguments[0].value = ''; arguments[0].dispatchEvent(new Event('input', {bubbles: true}));",
                   "args": [{ELEMENT: field.0}]}),
        )
        .await?;
        self.type_into(&field, text).await
    }

    /// Chooses the option of value `value` in the select list `css`, by clicking it as a user does.
    pub async fn select(&self, css: &str, value: &str) -> Result<(), String> {
        let option = self.find(&format!("{css} option[value=\"{value}\"]")).await?;
        self.click(&option).await
    }

    /// Keys sent to whatever has the focus (as a scanner or a keyboard user does).
    pub async fn keys(&self, text: &str) -> Result<(), String> {
        let actions: Vec<Value> = text
            .chars()
            .flat_map(|c| {
                [
                    json!({"type": "keyDown", "value": c.to_string()}),
                    json!({"type": "keyUp", "value": c.to_string()}),
                ]
            })
            .collect();
        self.post("/actions", json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]}))
            .await
            .map(|_| ())
    }

    pub async fn text(&self, element: &Element) -> Result<String, String> {
        Ok(self.get(&format!("/element/{}/text", element.0)).await?.as_str().unwrap_or("").to_owned())
    }

    pub async fn enabled(&self, element: &Element) -> Result<bool, String> {
        Ok(self.get(&format!("/element/{}/enabled", element.0)).await?.as_bool().unwrap_or(false))
    }

    pub async fn attribute(&self, element: &Element, name: &str) -> Result<Option<String>, String> {
        Ok(self.get(&format!("/element/{}/attribute/{name}", element.0)).await?.as_str().map(str::to_owned))
    }

    /// The text of the first element matching `css` once it contains `expected`.
    pub async fn wait_text(&self, css: &str, expected: &str) -> Result<String, String> {
        let started = Instant::now();
        loop {
            if let Some(element) = self.all(css).await?.into_iter().next() {
                let text = self.text(&element).await?;
                if text.contains(expected) {
                    return Ok(text);
                }
                if started.elapsed() > PATIENCE {
                    return Err(format!("{css:?} says {text:?}, not {expected:?}"));
                }
            } else if started.elapsed() > PATIENCE {
                return Err(format!("nothing on the page matches {css:?}"));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Runs `script` in the page and returns what it hands to `done`, the function it is given
    /// (for what answers through a promise).
    pub async fn script_async(&self, script: &str) -> Result<Value, String> {
        let wrapped = format!("const done = arguments[arguments.length - 1]; {script}");
        self.post("/execute/async", json!({"script": wrapped, "args": []})).await
    }

    /// Lays the page out as a screen `width` by `height` CSS pixels shows it (a phone's, below
    /// 500: a window cannot be that narrow), through the DevTools protocol chromedriver passes on.
    pub async fn emulate(&self, width: u32, height: u32) -> Result<(), String> {
        let params = json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 500});
        self.post("/goog/cdp/execute", json!({"cmd": "Emulation.setDeviceMetricsOverride", "params": params}))
            .await
            .map(|_| ())
    }

    /// Asks for less motion, as a person who set "reduce motion" in their system does
    /// (`prefers-reduced-motion: reduce`), or lifts the request.
    pub async fn reduce_motion(&self, reduce: bool) -> Result<(), String> {
        let value = if reduce { "reduce" } else { "no-preference" };
        let params = json!({"features": [{"name": "prefers-reduced-motion", "value": value}]});
        self.post("/goog/cdp/execute", json!({"cmd": "Emulation.setEmulatedMedia", "params": params}))
            .await
            .map(|_| ())
    }

    /// Back to the screen it was opened with.
    pub async fn restore_size(&self) -> Result<(), String> {
        let (width, height) = self.size;
        if width < 500 {
            return self.emulate(width, height).await;
        }
        self.post("/goog/cdp/execute", json!({"cmd": "Emulation.clearDeviceMetricsOverride", "params": {}}))
            .await
            .map(|_| ())
    }

    /// The serious and critical accessibility violations axe-core (`source`, its script) finds
    /// on the page as it is now, each as "rule: what, at which elements".
    pub async fn accessibility_violations(&self, source: &str) -> Result<Vec<String>, String> {
        if self.script("return typeof axe === 'undefined';").await? == json!(true) {
            self.script(&format!("{source}\nreturn true;")).await?;
        }
        let found = self
            .script_async(
                "axe.run(document, {resultTypes: ['violations']}).then((r) => done(r.violations \
                   .filter((v) => v.impact === 'serious' || v.impact === 'critical') \
                   .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`)), \
                 (e) => done([`axe did not run: ${e}`]));",
            )
            .await?;
        Ok(found
            .as_array()
            .map(|v| v.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect())
            .unwrap_or_default())
    }

    /// Runs `script` in the page and returns its value.
    pub async fn script(&self, script: &str) -> Result<Value, String> {
        self.post("/execute/sync", json!({"script": script, "args": []})).await
    }

    /// The element that has the keyboard's focus: its id.
    pub async fn focused_id(&self) -> Result<String, String> {
        Ok(self
            .script("return document.activeElement ? document.activeElement.id : ''")
            .await?
            .as_str()
            .unwrap_or("")
            .to_owned())
    }

    /// A PNG of the window, saved at `path`.
    pub async fn screenshot(&self, path: &std::path::Path) -> Result<(), String> {
        use base64::Engine as _;
        let png = self.get("/screenshot").await?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(png.as_str().unwrap_or(""))
            .map_err(|e| e.to_string())?;
        std::fs::write(path, bytes).map_err(|e| e.to_string())
    }

    /// What makes the page wider than `width` (the screen), if anything: the page's width, then a
    /// few of the elements that reach past the screen's right edge (each as `tag#id.class
    /// right-edge`), those inside a frame that scrolls or clips sideways aside unless positioned
    /// out of it; and on a phone (up to 640 px), a table of records shown as cards
    /// (`.scroll.cards`) that still scrolls sideways. A page that holds at this width gives none.
    pub async fn overflowing(&self, width: u32) -> Result<Vec<String>, String> {
        let found = self
            .script(&format!(
                "const width = {width}; const page = document.documentElement.scrollWidth; \
                 const cards = width > 640 ? [] : Array.from(document.querySelectorAll('.scroll.cards')) \
                   .filter((f) => f.scrollWidth > f.clientWidth + 1) \
                   .map((f) => 'cards that scroll sideways: ' + f.getAttribute('aria-label')); \
                 if (page <= width + 1) return cards; \
                 const wide = cards.concat(['the page is ' + page + ' px wide']); \
                 for (const el of document.body.querySelectorAll('*')) {{ \
                   const r = el.getBoundingClientRect(); \
                   if (r.width === 0 || r.right <= width + 1) continue; \
                   const position = getComputedStyle(el).position; \
                   let framed = false; \
                   if (position !== 'absolute' && position !== 'fixed') {{ \
                     for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {{ \
                       const o = getComputedStyle(p).overflowX; \
                       if (o === 'auto' || o === 'scroll' || o === 'hidden') {{ framed = true; break; }} \
                     }} \
                   }} \
                   if (!framed) wide.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + \
                     (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + \
                     ' ' + Math.round(r.right)); \
                 }} \
                 return wide.slice(0, 7);",
            ))
            .await?;
        Ok(found
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
            .unwrap_or_default())
    }

    /// How tall the page is, in CSS pixels (what a reader scrolls through).
    pub async fn page_height(&self) -> Result<u32, String> {
        let height = self.script("return document.documentElement.scrollHeight;").await?;
        Ok(height.as_u64().and_then(|h| u32::try_from(h).ok()).unwrap_or(0))
    }

    /// The page's console messages at SEVERE level (errors) since the last call.
    pub async fn console_errors(&self) -> Result<Vec<String>, String> {
        let logs = self.post("/se/log", json!({"type": "browser"})).await?;
        Ok(logs
            .as_array()
            .map(|entries| {
                entries
                    .iter()
                    .filter(|e| e["level"] == "SEVERE")
                    .map(|e| e["message"].as_str().unwrap_or("").to_owned())
                    .collect()
            })
            .unwrap_or_default())
    }

    pub async fn close(self) {
        let _ = self.command(reqwest::Method::DELETE, "", None).await;
    }
}
