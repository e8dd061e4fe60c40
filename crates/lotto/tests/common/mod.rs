//! What the `lotto` process tests share: the command started the way a user starts it (a real
//! process, a real socket), killed or stopped.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stdout)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A running `lotto` process; killed if a test fails before stopping it.
#[derive(Debug)]
pub struct Lotto {
    child: Child,
    pub base_url: String,
    /// What it printed before it said where it listens.
    pub banner: Vec<String>,
    stdout: mpsc::Receiver<String>,
}

impl Lotto {
    /// Starts `lotto` with `env` and waits (up to `wait`) for its "listening on" line.
    pub fn start(env: &[(&str, String)], wait: Duration) -> Lotto {
        Lotto::start_logging(env, wait, Stdio::inherit())
    }

    /// [`Lotto::start`], what it logs (stderr) going to `log`.
    // The child is reaped by `terminate` or by `Drop`, which clippy cannot see from here.
    #[allow(clippy::zombie_processes)]
    pub fn start_logging(env: &[(&str, String)], wait: Duration, log: impl Into<Stdio>) -> Lotto {
        let mut command = Command::new(env!("CARGO_BIN_EXE_lotto"));
        command
            .env_remove("DATABASE_URL")
            .env("LOTTO_LISTEN", "127.0.0.1:0")
            .env("LOTTO_LOG", "warn")
            .env("LOTTO_TOKEN_SECRET", SECRET)
            // The secrets lotto keeps go to a directory of this start's unless a test names one.
            .env("LOTTO_SECRETS_DIR", platform::config::scratch_dir("lotto-secrets"))
            .stdout(Stdio::piped())
            .stderr(log);
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("spawn lotto");
        let (tx, stdout) = mpsc::channel();
        let out = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut banner = Vec::new();
        loop {
            match stdout.recv_timeout(wait) {
                Ok(line) => {
                    // A JSON line's message, when `LOTTO_LOG_FORMAT=json`.
                    let said = serde_json::from_str::<serde_json::Value>(&line)
                        .ok()
                        .and_then(|l| l["message"].as_str().map(str::to_owned))
                        .unwrap_or_else(|| line.clone());
                    if let Some(url) = said.strip_prefix("lotto listening on ") {
                        return Lotto { child, base_url: url.to_owned(), banner, stdout };
                    }
                    banner.push(line);
                }
                Err(e) => {
                    let _ = child.kill();
                    panic!("lotto did not say where it listens: {e}");
                }
            }
        }
    }

    /// The process's id (for its `/proc` figures).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the process outright (SIGKILL): no shutdown, no cleanup, as a crash would.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sends SIGTERM and waits for a clean exit; returns what it printed meanwhile.
    pub fn terminate(mut self) -> Vec<String> {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "lotto exited with {status}");
        self.stdout.try_iter().collect()
    }
}

impl Drop for Lotto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The secret the tests start `lotto` with, so they can sign tokens it accepts.
pub const SECRET: &str = "lotto-command-tests-secret-0123456789abcdef";

pub mod apart;
pub mod cluster;
pub mod mixed;
pub mod powerball_load;

/// The workspace's binaries, built as the image builds them (a no-op when they are current).
pub fn binaries() -> std::path::PathBuf {
    let status = Command::new(env!("CARGO")).args(["build", "--workspace", "--bins"]).status().unwrap();
    assert!(status.success(), "cargo build --bins failed");
    std::path::Path::new(env!("CARGO_BIN_EXE_lotto")).parent().unwrap().to_path_buf()
}

/// A `/proc/<pid>/status` figure in kB (`VmRSS`: resident now; `VmHWM`: the most resident).
pub fn status_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with(&format!("{field}:"))).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A player registered at `base`, her address confirmed and her identity verified in the
/// sandbox (no money moves before), logged in and located in the jurisdiction (no online stake
/// before); returns the access token. The link mailed to her is
/// read from the outbox as an auditor holding the tokens of [`SECRET`] reads it.
pub async fn player(http: &reqwest::Client, base: &str, email: &str, password: &str) -> String {
    player_read_by(http, base, &mail_reader(), email, password).await
}

/// [`player`], the outbox read with `reader` (a staff member's token).
pub async fn player_read_by(
    http: &reqwest::Client,
    base: &str,
    reader: &str,
    email: &str,
    password: &str,
) -> String {
    let token = unverified_player(http, base, email, password).await;
    confirm_email(http, base, reader, email).await;
    verify_identity(http, base, &token).await;
    locate(http, base, &token).await;
    token
}

/// The login of `token` located in the jurisdiction by the sandbox geolocation provider (an
/// online stake needs it, from the address the login's requests come from).
pub async fn locate(http: &reqwest::Client, base: &str, token: &str) {
    let checked = http
        .post(format!("{base}/v1/me/location-checks"))
        .bearer_auth(token)
        .json(&serde_json::json!({"packet": "sandbox_inside"}))
        .send()
        .await
        .unwrap();
    assert_eq!(checked.status(), 201);
    let checked: serde_json::Value = checked.json().await.unwrap();
    assert_eq!(checked["result"], "inside", "{checked}");
}

/// A player registered and logged in at `base`, nothing confirmed; returns the access token.
pub async fn unverified_player(http: &reqwest::Client, base: &str, email: &str, password: &str) -> String {
    let body = serde_json::json!({"email": email, "password": password, "date_of_birth": "1990-05-17"});
    let registered = http.post(format!("{base}/v1/players")).json(&body).send().await.unwrap();
    assert_eq!(registered.status(), 202, "{}", registered.text().await.unwrap());
    log_in(http, base, serde_json::json!({"email": email, "password": password})).await
}

/// An auditor's token, issued with [`SECRET`] (the token secret `Lotto::start` gives).
pub fn mail_reader() -> String {
    let keys = platform::auth::TokenKeys::from_secret(SECRET.as_bytes()).unwrap();
    keys.issue("mail-reader", platform::auth::Role::Auditor, None, Duration::from_secs(600)).unwrap()
}

/// `email`'s address confirmed with the last link mailed to it, read from the outbox by `reader`.
pub async fn confirm_email(http: &reqwest::Client, base: &str, reader: &str, email: &str) {
    let url = format!("{base}/v1/mail?recipient={}&limit=100", email.replace('+', "%2B"));
    let mail: serde_json::Value =
        http.get(url).bearer_auth(reader).send().await.unwrap().json().await.unwrap();
    let items = mail["items"].as_array().unwrap_or_else(|| panic!("no mail for {email}: {mail}"));
    let link = items.iter().find(|m| m["kind"] == "verify_email").unwrap_or_else(|| panic!("{mail}"));
    let body = link["body"].as_str().unwrap();
    let token = body[body.find("token=").unwrap() + 6..].split_whitespace().next().unwrap();
    let confirmed = http
        .post(format!("{base}/v1/email-verifications"))
        .json(&serde_json::json!({"token": token}))
        .send()
        .await
        .unwrap();
    assert_eq!(confirmed.status(), 200, "{}", confirmed.text().await.unwrap());
}

/// The player of `token` verified: her file submitted, approved on the sandbox provider's hosted
/// page (`lotto` serves it at `base`; a provider apart, at the address it gave), the webhook
/// awaited.
pub async fn verify_identity(http: &reqwest::Client, base: &str, token: &str) {
    let file = serde_json::json!({"legal_name": "Pat Doe", "phone": "+1 785 555 0100", "ssn_last4": "6789",
        "address": {"line1": "100 SW Main St", "city": "Topeka", "region": "KS", "postal_code": "66603"}});
    let submitted =
        http.put(format!("{base}/v1/me/identity")).bearer_auth(token).json(&file).send().await.unwrap();
    assert_eq!(submitted.status(), 202);
    let submitted: serde_json::Value = submitted.json().await.unwrap();
    let url = submitted["verification_url"].as_str().unwrap();
    // `lotto`'s public address by default, where these tests' `lotto` does not listen.
    let url = match url.strip_prefix("http://localhost:8080") {
        Some(path) => format!("{base}{path}"),
        None => url.to_owned(),
    };
    let approved = http.get(format!("{url}/approve")).send().await.unwrap();
    assert_eq!(approved.status(), 200, "{url}");
    for _ in 0..300 {
        let now: serde_json::Value = http
            .get(format!("{base}/v1/me/identity"))
            .bearer_auth(token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        match now["state"].as_str() {
            Some("verified") => return,
            Some("pending") => tokio::time::sleep(Duration::from_millis(50)).await,
            _ => panic!("the identity check did not verify: {now}"),
        }
    }
    panic!("the identity webhook never came");
}

/// `body` posted to `url`; the answer's body, whatever its status.
async fn post_json(http: &reqwest::Client, url: &str, body: &serde_json::Value) -> serde_json::Value {
    http.post(url).json(body).send().await.unwrap().json().await.unwrap()
}

/// Staff members the helpers enrolled, by `base` and username: the recovery codes not yet used.
static RECOVERY: std::sync::Mutex<std::collections::BTreeMap<String, Vec<String>>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

/// A staff member's session at `base`, with the second factor: at their first login the
/// authenticator app is enrolled as the console does it (the secret shown once, confirmed with
/// the app's code); each later login takes one of the recovery codes the enrolment gave. Returns
/// the access token.
pub async fn staff_session(http: &reqwest::Client, base: &str, username: &str, password: &str) -> String {
    if RECOVERY.lock().unwrap().contains_key(&format!("{base} {username}")) {
        let recovery = recovery_code(base, username);
        let login =
            serde_json::json!({"username": username, "password": password, "recovery_code": recovery});
        return log_in(http, base, login).await;
    }
    let credentials = serde_json::json!({"username": username, "password": password});
    handed_out_in(&credentials);
    let shown = post_json(http, &format!("{base}/v1/staff/second-factor/enrolment"), &credentials).await;
    handed_out_in(&shown);
    let secret = shown["secret"].as_str().unwrap_or_else(|| panic!("no enrolment: {shown}"));
    let confirm = serde_json::json!({"username": username, "password": password, "code": totp_code(secret)});
    let done = post_json(http, &format!("{base}/v1/staff/second-factor/enrolment/confirm"), &confirm).await;
    handed_out_in(&done);
    let codes = done["recovery_codes"].as_array().unwrap_or_else(|| panic!("not enrolled: {done}"));
    let codes = codes.iter().map(|c| c.as_str().unwrap().to_owned()).collect();
    RECOVERY.lock().unwrap().insert(format!("{base} {username}"), codes);
    done["session"]["access_token"].as_str().unwrap().to_owned()
}

/// One of the unused recovery codes of staff member `username` at `base` (enrolled by
/// [`staff_session`]), for a login a test or a command sends itself.
pub fn recovery_code(base: &str, username: &str) -> String {
    let mut enrolled = RECOVERY.lock().unwrap();
    let codes = enrolled
        .get_mut(&format!("{base} {username}"))
        .unwrap_or_else(|| panic!("{username} never enrolled"));
    codes.pop().unwrap_or_else(|| panic!("{username}'s recovery codes are used up"))
}

/// The code an authenticator app shows now for base32 `secret`.
pub fn totp_code(secret: &str) -> String {
    totp_code_ahead(secret, 0)
}

/// The code an authenticator app shows for base32 `secret` `steps` time steps (30 s) from now
/// (the server takes a step either way, for a clock a little off).
pub fn totp_code_ahead(secret: &str, steps: i64) -> String {
    let secret = totp_rs::Secret::try_from_base32(secret).unwrap();
    let totp = totp_rs::Builder::new().with_secret(secret).build().unwrap();
    let at = chrono::Utc::now().timestamp() + steps * 30;
    totp.generate(u64::try_from(at).unwrap()).to_string()
}

/// A session opened with `credentials` (a player's, a staff member's or a terminal's) at
/// `base`; returns the access token.
pub async fn log_in(http: &reqwest::Client, base: &str, credentials: serde_json::Value) -> String {
    handed_out_in(&credentials);
    let login = post_json(http, &format!("{base}/v1/sessions"), &credentials).await;
    handed_out_in(&login);
    login["access_token"].as_str().unwrap_or_else(|| panic!("no login: {login}")).to_owned()
}

/// Every secret a test handed the platform or was handed by it (passwords, tokens, keys, TOTP
/// secrets, recovery codes, VIRNs), for a test that looks for them where they must never be:
/// the logs (issue 51).
static HANDED_OUT: std::sync::Mutex<std::collections::BTreeSet<String>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

/// Keeps `secret` among [`handed_out`] ones (shorter than 8 characters it would match by chance
/// in any log, and is left out).
pub fn hand_out(secret: &str) {
    if secret.len() >= 8 {
        HANDED_OUT.lock().unwrap().insert(secret.to_owned());
    }
}

/// The string values of `body` a login or an enrolment carries as secrets.
fn handed_out_in(body: &serde_json::Value) {
    const SECRET_FIELDS: [&str; 7] =
        ["password", "api_key", "access_token", "refresh_token", "secret", "recovery_code", "code"];
    for field in SECRET_FIELDS {
        if let Some(secret) = body[field].as_str() {
            hand_out(secret);
        }
    }
    for code in body["recovery_codes"].as_array().into_iter().flatten() {
        hand_out(code.as_str().unwrap_or_default());
    }
    if body["session"].is_object() {
        handed_out_in(&body["session"]);
    }
}

/// Every secret kept by [`hand_out`] so far.
pub fn handed_out() -> Vec<String> {
    HANDED_OUT.lock().unwrap().iter().cloned().collect()
}

/// An operator made with `lotto admin create-operator`, as the README does, in the platform's
/// database at `database_url`.
pub fn create_operator(database_url: &str, username: &str, password: &str) {
    let made = Command::new(env!("CARGO_BIN_EXE_lotto"))
        .args(["admin", "create-operator", username])
        .env("DATABASE_URL", database_url)
        .env("LOTTO_ADMIN_PASSWORD", password)
        .env("LOTTO_LOG", "warn")
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
}

/// `GET base+path` as `token`, its body as JSON.
pub async fn get_json(http: &reqwest::Client, url: &str, token: &str) -> serde_json::Value {
    http.get(url).bearer_auth(token).send().await.unwrap().json().await.unwrap()
}

/// Waits (up to ten seconds) until the wallet of `token`'s player at `base` has `cents` posted
/// (a deposit the sandbox confirms by its webhook); panics if it never does.
pub async fn until_posted(http: &reqwest::Client, base: &str, token: &str, cents: i64) {
    let mut wallet = serde_json::Value::Null;
    for _ in 0..200 {
        wallet = get_json(http, &format!("{base}/v1/me/wallet"), token).await;
        if wallet["balance"]["posted"] == cents {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the wallet never held {cents} posted: {wallet}");
}
