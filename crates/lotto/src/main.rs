//! `lotto`: the whole platform in one process, on a Postgres it finds or starts itself.
//!
//! `cargo run --release` (this is the workspace's default binary) starts every service that
//! exists, mounted on one HTTP listener, and prints where it listens. Production runs each
//! service's own binary instead; this is the embedded default (architecture §1).

mod cluster;
mod postgres;
mod records;

use anyhow::Context;
use gateway::sandbox::Sandbox;
use platform::auth::Role;
use platform::config::Config;
use platform::http::Readiness;
use platform::secrets::KeptSecrets;
use platform::webhook::WebhookSecret;

const USAGE: &str = "usage: lotto [serve]
       lotto admin create-operator <username>
       lotto payments-sandbox
       lotto verify-draw <YYYY-MM-DD> [export-file]
       lotto verify-events <export-file>
       lotto events verify | seal <YYYY-MM> | archive <YYYY-MM> <file> | restore <file>
       lotto print-run <game>
       lotto printer-file <file> [identity-file] [signature signing-key]
       lotto cluster start|status|stop|kill <member1|member2|member3|primary|etcd>|backup
       lotto cluster cut <member1|member2|member3|primary> | heal
       lotto cluster restore-point <name> | restore <name|latest> <empty directory> <port>

serve (the default) runs every service of the platform in one process.
admin create-operator creates an operator (the first one, typically); the password is read
from LOTTO_ADMIN_PASSWORD, or else from the first line of standard input.
payments-sandbox runs the sandbox payment, identity and geolocation providers alone (for services run
apart, as in docker-compose.yml): it takes the gateway's payments on LOTTO_LISTEN and confirms
them to LOTTO_GATEWAY_URL's webhook, signed with LOTTO_PAYMENTS_WEBHOOK_SECRET; it opens the
gateway's identity checks, its hosted pages at LOTTO_PUBLIC_URL (where players reach it), and
reports each decision signed with LOTTO_IDENTITY_WEBHOOK_SECRET; it places devices in or out of
the jurisdiction as their packet asks.
verify-draw recounts a settled Powerball drawing's winners and prizes from its frozen export
alone (the file the close wrote, or the control copy named) and compares them with the
service's settlement: an exact agreement certifies the drawing, so its prizes become payable;
any difference stops it as disputed and says what differs (exit status 1).
verify-events checks an export of the significant-events log on its own: every event follows
the one before and hashes to what it says, and the count and the hashes at both ends are the
header's (exit status 1 when not). events verify walks the whole log in the database; seal
closes a month that is over, archive writes a sealed month to a file, checks the file and drops
the month from the database, and restore puts an archived month back from its file (ADR 0019).
print-run starts an instant game's print run through a running lotto (LOTTO_URL, default
http://127.0.0.1:8080) as operator LOTTO_OPERATOR (default ops, the password as for admin, the
second factor's code or a recovery code in LOTTO_OPERATOR_CODE) and
shows its progress; Ctrl-C cancels it, leaving nothing of the run.
printer-file is the printer's side: it decrypts a downloaded printer's file with the printer's
age identity (default: the demonstration key LOTTO_SECRETS_DIR/printer-identity.txt),
checks the lottery's signature when the download's X-Lotto-Signature and the key of
/v1/instant/keys are given, and prints each ticket as a person sees it.
cluster runs the replicated Postgres of docs/adr/0013 on this machine from Debian's packages
(etcd-server, patroni, haproxy): three members, strict synchronous replication, one address
(HAProxy) that follows the primary; in LOTTO_CLUSTER_DIR (default .lotto/cluster) from port
LOTTO_CLUSTER_PORT (default 5440). start prints the DATABASE_URL to run lotto on; kill loses a
member as a machine would, and start again brings it back as a standby; cut cuts a member off
the network (root, Debian's iptables) until heal. backup takes a full
pgBackRest backup (the WAL is archived all along), restore-point marks a moment, and restore
brings the newest backup back into a new cluster up to that moment.
Configuration is by environment variable; see docs/operations.md (Configuration).";

/// Runs the command; a refusal is printed as its message (its causes after colons), never as a
/// backtrace, and the process exits 1.
#[tokio::main]
async fn main() -> std::process::ExitCode {
    match command().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            platform::telemetry::refusal(&format!("lotto: {e:#}"));
            std::process::ExitCode::FAILURE
        }
    }
}

async fn command() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        [] | ["serve"] => serve().await,
        ["admin", "create-operator", username] => create_operator(username).await,
        ["payments-sandbox"] => payments_sandbox().await,
        ["print-run", game] => print_run(game).await,
        ["printer-file", file] => printer_file(file, None, None),
        ["printer-file", file, identity] => printer_file(file, Some(identity), None),
        ["printer-file", file, identity, signature, key] => {
            printer_file(file, Some(identity), Some((signature, key)))
        }
        ["verify-draw", date] => verify_draw(date, None).await,
        ["verify-draw", date, file] => verify_draw(date, Some(file)).await,
        ["verify-events", file] => records::verify_file(file),
        ["events", rest @ ..] => records::command(rest).await,
        ["cluster", rest @ ..] => cluster::command(rest).await,
        ["help" | "--help" | "-h"] => {
            say(USAGE);
            Ok(())
        }
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    }
}

/// The banner goes to stdout, where a user (or a test) reads where to connect.
#[allow(clippy::print_stdout)]
pub(crate) fn say(line: &str) {
    println!("{line}");
}

async fn serve() -> anyhow::Result<()> {
    platform::telemetry::init_tracing("lotto");
    let config = Config::from_env()?;
    let database = postgres::locate(config.database_url.as_deref()).await?;
    let result = run_services(&config, &database).await;
    if let Some(cluster) = &database.private {
        cluster.stop();
    }
    result
}

/// `lotto admin create-operator <username>`.
async fn create_operator(username: &str) -> anyhow::Result<()> {
    platform::telemetry::init_tracing("lotto");
    let config = Config::from_env()?;
    let password = operator_password()?;
    let database = postgres::locate(config.database_url.as_deref()).await?;
    let result = async {
        let pool = gateway::connect(&database.url, &config).await?;
        // One hash, made alone: one place, and no wait to speak of.
        let passwords = gateway::credentials::PasswordWork::new(1, std::time::Duration::from_secs(60));
        let id = gateway::create_staff(&pool, &passwords, username, password, Role::Operator, None)
            .await
            .map_err(|e| anyhow::anyhow!("{}", e.detail()))?;
        say(&format!("operator {username} created with id {id}"));
        anyhow::Ok(())
    }
    .await;
    if let Some(cluster) = &database.private {
        cluster.stop();
    }
    result
}

/// `lotto verify-draw <date> [export-file]`: the independent recount and the certification.
async fn verify_draw(date: &str, file: Option<&str>) -> anyhow::Result<()> {
    platform::telemetry::init_tracing("lotto");
    let date: chrono::NaiveDate = date.parse().context("the drawing's date is YYYY-MM-DD")?;
    let config = Config::from_env()?;
    let database = postgres::locate(config.database_url.as_deref()).await?;
    let result = async {
        use draw_games::certification;
        let pool = draw_games::connect(&database.url, &config).await?;
        let drawing = certification::drawing(&pool, date, file.map(std::path::Path::new))
            .await
            .map_err(|e| anyhow::anyhow!("{}", e.detail()))?;
        let started = std::time::Instant::now();
        let counting = drawing.clone();
        let recount = tokio::task::spawn_blocking(move || certification::recount(&counting)).await??;
        say(&format!(
            "recounted {} plays of {} (SHA-256 {}) in {:.1} s",
            recount.plays,
            drawing.export_file.display(),
            hex::encode(recount.sha256),
            started.elapsed().as_secs_f64()
        ));
        for line in &recount.prize_table {
            say(&format!(
                "  {:<16} {:<13} {:>10} winners × {:>14} cents = {:>16} cents",
                certification::tier_name(line.tier),
                if line.power_play { "power play" } else { "" },
                line.winners,
                line.prize_cents,
                line.total_cents
            ));
        }
        let at = draw_games::config::DrawSettings::from_env()?.clock().now();
        let verification = certification::certify(&pool, &drawing, &recount, at)
            .await
            .map_err(|e| anyhow::anyhow!("{}", e.detail()))?;
        for disagreement in &verification.disagreements {
            say(&format!("  differs: {disagreement}"));
        }
        say(&format!("drawing {date}: {}", verification.state));
        anyhow::Ok(verification.state == "certified" && verification.disagreements.is_empty())
    }
    .await;
    if let Some(cluster) = &database.private {
        cluster.stop();
    }
    if !result? {
        std::process::exit(1);
    }
    Ok(())
}

/// The operator's password: `LOTTO_ADMIN_PASSWORD`, or the first line of standard input.
fn operator_password() -> anyhow::Result<String> {
    Ok(match std::env::var("LOTTO_ADMIN_PASSWORD") {
        Ok(password) => password,
        Err(_) => {
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).context("reading the password from standard input")?;
            line.trim_end_matches(['\r', '\n']).to_owned()
        }
    })
}

/// `lotto print-run <game>`: an operator's print run through the API, followed with a progress
/// bar (plain lines when the output is not a terminal); Ctrl-C cancels it.
async fn print_run(game: &str) -> anyhow::Result<()> {
    let base = std::env::var("LOTTO_URL").unwrap_or_else(|_| "http://127.0.0.1:8080".to_owned());
    let username = std::env::var("LOTTO_OPERATOR").unwrap_or_else(|_| "ops".to_owned());
    let password = operator_password()?;
    let http = reqwest::Client::new();
    let answer = |response: reqwest::Response| async move {
        let status = response.status();
        let body: serde_json::Value = response.json().await.unwrap_or(serde_json::Value::Null);
        if status.is_success() {
            Ok(body)
        } else {
            Err(anyhow::anyhow!("{status}: {}", body["detail"].as_str().unwrap_or("no detail")))
        }
    };
    // The operator's second factor: the app's six digits, or a recovery code.
    let code = std::env::var("LOTTO_OPERATOR_CODE").context(
        "LOTTO_OPERATOR_CODE must hold the operator's second factor (the code the authenticator app shows, or a recovery code)",
    )?;
    let second =
        if code.len() == 6 && code.chars().all(|c| c.is_ascii_digit()) { "code" } else { "recovery_code" };
    let login = serde_json::json!({"username": username, "password": password, second: code.trim()});
    let session = answer(http.post(format!("{base}/v1/sessions")).json(&login).send().await?).await?;
    let token = session["access_token"].as_str().context("the login gave no token")?.to_owned();
    let started =
        http.post(format!("{base}/v1/instant/games/{game}/print-runs")).bearer_auth(&token).send().await?;
    let job = answer(started).await.context("the print run was refused")?;
    let id = job["id"].as_str().context("the answer named no job")?.to_owned();
    let total = job["tickets_total"].as_u64().unwrap_or(0);
    let bar = progress_bar(total)?;
    say(&format!("print job {id} for game {game}: {total} tickets"));
    let (mut last, mut cancelled) = (String::new(), false);
    let interrupted = tokio::signal::ctrl_c();
    tokio::pin!(interrupted);
    let finished = loop {
        tokio::select! {
            _ = &mut interrupted, if !cancelled => {
                cancelled = true;
                let url = format!("{base}/v1/instant/print-jobs/{id}/cancel");
                answer(http.post(url).bearer_auth(&token).send().await?).await?;
                say("cancelling: the run stops after its current pool and keeps nothing");
            }
            () = tokio::time::sleep(std::time::Duration::from_millis(500)) => {
                let url = format!("{base}/v1/instant/print-jobs/{id}");
                let now = answer(http.get(url).bearer_auth(&token).send().await?).await?;
                let state = now["state"].as_str().unwrap_or("?").to_owned();
                let (generated, stored) = (now["tickets_generated"].as_u64().unwrap_or(0), now["tickets_stored"].as_u64().unwrap_or(0));
                bar.set_message(state.clone());
                bar.set_position(stored);
                let line = format!("{state}: {generated} generated, {stored} stored of {total}");
                if bar.is_hidden() && line != last {
                    say(&line);
                }
                last = line;
                if !matches!(state.as_str(), "queued" | "running") {
                    break now;
                }
            }
        }
    };
    bar.finish();
    print_job_ended(&finished)
}

/// The print job's progress bar: its state, and the tickets stored of `total`.
fn progress_bar(total: u64) -> anyhow::Result<indicatif::ProgressBar> {
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg:>10} [{bar:40}] {pos}/{len} tickets stored ({elapsed})",
        )?
        .progress_chars("=> "),
    );
    Ok(bar)
}

/// How a print job ended, said; a cancelled one exits 1, a failed one is an error.
fn print_job_ended(finished: &serde_json::Value) -> anyhow::Result<()> {
    match finished["state"].as_str() {
        Some("succeeded") => {
            say(&format!("print run {} stored", finished["print_run"].as_str().unwrap_or("?")));
            Ok(())
        }
        Some("cancelled") => {
            say("print run cancelled: nothing of it was kept");
            std::process::exit(1)
        }
        _ => {
            anyhow::bail!("the print run failed: {}", finished["error"].as_str().unwrap_or("no reason given"))
        }
    }
}

/// `lotto printer-file <file> [identity] [signature key]`: a printer's file as its printer reads it.
fn printer_file(file: &str, identity: Option<&str>, signed: Option<(&str, &str)>) -> anyhow::Result<()> {
    let path = std::path::Path::new(file);
    if let Some((signature, key)) = signed {
        let signature: [u8; 64] = hex::decode(signature)
            .ok()
            .and_then(|b| b.try_into().ok())
            .context("the signature is 128 hex digits (the download's X-Lotto-Signature)")?;
        let key: [u8; 32] = hex::decode(key)
            .ok()
            .and_then(|b| b.try_into().ok())
            .context("the signing key is 64 hex digits (signing_key of /v1/instant/keys)")?;
        let verifying = ed25519_dalek::VerifyingKey::from_bytes(&key).context("not an Ed25519 public key")?;
        instant::printer_file::verify(path, &signature, &verifying)?;
        say("signature: the lottery's, and the file is as it signed it");
    }
    let identity_path = match identity {
        Some(identity) => std::path::PathBuf::from(identity),
        None => KeptSecrets::lotto_from_env()?.dir().join(instant::config::PRINTER_IDENTITY),
    };
    let text = std::fs::read_to_string(&identity_path)
        .with_context(|| format!("cannot read the printer's identity {}", identity_path.display()))?;
    let identity: age::x25519::Identity = text
        .lines()
        .find(|l| l.starts_with("AGE-SECRET-KEY-"))
        .context("no AGE-SECRET-KEY line in the identity file")?
        .parse()
        .map_err(|e| anyhow::anyhow!("not an age identity: {e}"))?;
    // What each face pays, read as the player who scratches it reads it (the games' symbols and
    // legends are the same at any scale).
    let games = instant::games::carried()?;
    let wins = |barcode: &str, face: &str| -> String {
        let game = domain::instant::print_run::barcode_is_valid(barcode)
            .and_then(|(number, _, _)| games.iter().map(|(g, _)| g).find(|g| g.number == number));
        let Some(face) = game.and_then(|g| Some((g, domain::instant::print_run::Face::from_text(g, face)?)))
        else {
            return "a face this game cannot show".to_owned();
        };
        let pays = domain::instant::print_run::face_pays(face.0, &face.1);
        if pays.is_empty() {
            return "no win".to_owned();
        }
        let parts: Vec<String> = pays
            .iter()
            .map(|&c| if c == 0 { "a free ticket".to_owned() } else { domain::money::dollars(c) })
            .collect();
        format!("wins {}", parts.join(" + "))
    };
    for t in instant::printer_file::read_tickets(path, &identity)? {
        let raw: String = t.barcode.chars().filter(char::is_ascii_digit).collect();
        let virn = format!(
            "{} {} {}",
            t.virn.get(..4).unwrap_or(""),
            t.virn.get(4..8).unwrap_or(""),
            t.virn.get(8..).unwrap_or("")
        );
        say(&format!(
            "book {:06} ticket {:03}  barcode {} ({raw})  VIRN {virn}  {}  face {}",
            t.book,
            t.ticket,
            t.barcode,
            wins(&t.barcode, &t.face),
            t.face
        ));
    }
    Ok(())
}

/// `lotto payments-sandbox`: the sandbox payment and identity providers in a process of their own.
async fn payments_sandbox() -> anyhow::Result<()> {
    platform::telemetry::init_tracing("payments-sandbox");
    let config = Config::from_env()?;
    let gateway = std::env::var("LOTTO_GATEWAY_URL").context("LOTTO_GATEWAY_URL must name the gateway")?;
    let secret = std::env::var("LOTTO_PAYMENTS_WEBHOOK_SECRET")
        .context("LOTTO_PAYMENTS_WEBHOOK_SECRET must be set")?;
    let secret =
        WebhookSecret::new(platform::config::checked_secret("LOTTO_PAYMENTS_WEBHOOK_SECRET", &secret)?);
    let delay =
        std::time::Duration::from_millis(platform::config::env_or("LOTTO_SANDBOX_DELAY_MS", 1_000u64)?);
    let identity_secret = std::env::var("LOTTO_IDENTITY_WEBHOOK_SECRET")
        .context("LOTTO_IDENTITY_WEBHOOK_SECRET must be set")?;
    let identity_secret = WebhookSecret::new(platform::config::checked_secret(
        "LOTTO_IDENTITY_WEBHOOK_SECRET",
        &identity_secret,
    )?);
    let site = std::env::var("LOTTO_PUBLIC_URL").unwrap_or_else(|_| format!("http://{}", config.listen));
    let sandbox = Sandbox::new(secret, delay).with_identity(identity_secret, &site);
    sandbox.deliver_to(platform::upstream::Upstream::remote("gateway", &gateway, config.request_timeout)?);
    let app = platform::http::app(
        sandbox.router().merge(sandbox.hosted_pages()),
        Readiness::default(),
        (&config).into(),
    );
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("cannot listen on {} (set LOTTO_LISTEN)", config.listen))?;
    platform::telemetry::banner(&format!("payments sandbox listening on http://{}", listener.local_addr()?));
    platform::http::serve(listener, app, platform::http::shutdown_signal()).await?;
    platform::telemetry::traces::shutdown();
    Ok(())
}

async fn run_services(config: &Config, database: &postgres::Database) -> anyhow::Result<()> {
    // What the environment does not give is made once and kept: a restart forgets no key.
    let kept = KeptSecrets::lotto_from_env()?;
    let options = assembly::Options::from_env(config.clone(), &kept)?;
    // Every service is mounted behind the gateway in this process: it calls them without a socket.
    let platform = assembly::Assembly::start(&database.url, options).await?;
    platform.spawn_workers();
    // The process's start, and its stop, in the significant-events log; and its chainer.
    let instance = platform::events::lifecycle::run(&platform.gateway.pool, "lotto", config);
    let api = platform.gateway_routes(platform.gateway.clone());
    let app = gateway::with_cors(
        platform::http::app(api, platform.readiness(), config.into()),
        &platform.gateway.cors,
    );

    platform::http::spawn_metrics(config).await.context("cannot listen on LOTTO_METRICS_LISTEN")?;
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("cannot listen on {} (set LOTTO_LISTEN)", config.listen))?;
    let addr = listener.local_addr()?;
    platform::telemetry::banner(&format!("lotto: database: {}", database.source));
    platform::telemetry::banner(&format!(
        "lotto: secrets not set in the environment are kept in {} (readable by this user only; keep them: printed tickets validate only with them)",
        std::path::absolute(kept.dir()).unwrap_or_else(|_| kept.dir().to_owned()).display()
    ));
    platform::telemetry::banner("lotto: services: gateway, ledger, draw-games, table-games, instant");
    platform::telemetry::banner(&format!("lotto listening on http://{addr}"));
    platform::telemetry::banner(&format!(
        "lotto: web client at http://{addr}/ (play: #/play, retailer terminal: #/till, operator console: #/console)"
    ));
    platform::http::serve(listener, app, platform::http::shutdown_signal()).await?;
    instance.stopped().await?;
    platform::telemetry::traces::shutdown();
    platform::telemetry::banner("lotto: stopped");
    Ok(())
}
