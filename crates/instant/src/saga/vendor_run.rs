//! A run a printing vendor generated, imported from its validation file
//! (docs/formats/vendor-validation-file.md) as a print job of its own kind.
//!
//! The vendor delivers the file into the inbox (`LOTTO_VENDOR_FILE_DIR`) encrypted to the
//! lottery's `age` key, so no clear VIRN rests on the lottery's disk either. The job decrypts it
//! in a blocking task that checks every line (`domain::instant::vendor_file`) and hands the
//! tickets over in chunks; each chunk is written with COPY (each VIRN hashed under the lottery's
//! key, as a generated run's) in the run's one transaction. Only when the whole file passed, and
//! its books follow on from the game's printed ones, are the packs and prize counts written and
//! the prizes funded; any failure refuses the file whole, with every reason, and nothing stays.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::Instant;

use domain::instant::GameDefinition;
use domain::instant::print_run::PrintedTicket;
use domain::instant::vendor_file::{VendorRun, VendorRunCheck, VendorTicket};
use platform::AppError;
use platform::events::{self, Event, Kind};
use platform::codes;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::InstantState;
use crate::store::print_jobs;
use crate::store::print_jobs::PrintJobRow;
use crate::config::VirnKey;
use crate::store::print_runs::{self, RunRecord, TicketRows};
use crate::views::PrintRunView;

/// The first line of a vendor's file, in the clear.
pub const HEADER: &str = "lotto vendor validation file v1";

/// Tickets handed from the reading task to the writer at a time.
const CHUNK: usize = 50_000;

/// The code a refused file ends its job with.
pub const REFUSED: codes::CodeName = codes::VENDOR_FILE_REFUSED;

/// `name` as a file of the inbox: a plain name (no directory, no `..`) of a plain file that is
/// there. A link is not followed: whoever may write into the inbox must not make the service
/// read a file elsewhere (a key, another run) as a vendor's.
pub fn inbox_file(state: &InstantState, name: &str) -> Result<PathBuf, AppError> {
    let plain = !name.is_empty()
        && name.len() <= 200
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
        && !name.starts_with('.');
    let path = state.settings.vendor_file_dir.join(name);
    if !plain || !std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file()) {
        return Err(AppError::unprocessable(
            codes::VENDOR_FILE_NOT_FOUND,
            format!("no file {name:?} in the vendor inbox (a plain file name, delivered there first)"),
        ));
    }
    Ok(path)
}

/// The SHA-256 of the file at `path`, as delivered (encrypted).
fn file_sha256(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut hasher = Sha256::new();
    let mut file = std::fs::File::open(path)?;
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            return Ok(hasher.finalize().to_vec());
        }
        hasher.update(buffer.get(..n).unwrap_or_default());
    }
}

/// The file's SHA-256, then its tickets in chunks through `chunks`, every line checked; the run
/// it holds, or every reason it is refused for.
fn read_vendor_file(
    path: &Path,
    identity: &age::x25519::Identity,
    (game, key): (&GameDefinition, &VirnKey),
    next_book: i32,
    chunks: &tokio::sync::mpsc::Sender<TicketRows>,
) -> Result<(VendorRun, Vec<u8>), Vec<String>> {
    let io = |e: std::io::Error| vec![format!("the file cannot be read: {e}")];
    let sha256 = file_sha256(path).map_err(io)?;
    let decrypt = |e: age::DecryptError| {
        vec![format!(
            "the file cannot be decrypted with the lottery's key (encrypt it to GET /v1/instant/keys' lottery_recipient): {e}"
        )]
    };
    let decryptor =
        age::Decryptor::new(BufReader::new(std::fs::File::open(path).map_err(io)?)).map_err(decrypt)?;
    let reader =
        BufReader::new(decryptor.decrypt(std::iter::once(identity as &dyn age::Identity)).map_err(decrypt)?);
    let mut check = VendorRunCheck::new(game);
    let mut chunk = Vec::with_capacity(CHUNK);
    let (mut end, mut last_line, mut started) = (None, 0usize, false);
    for (i, line) in reader.lines().enumerate() {
        let number = i.saturating_add(1);
        last_line = number;
        let Ok(line) = line else {
            check.refuse_file(number, "not UTF-8 text, or the file is cut short");
            break;
        };
        if i == 0 {
            if line != HEADER {
                check.refuse_file(1, &format!("not a vendor validation file (the first line is {HEADER:?})"));
                break;
            }
            continue;
        }
        let mut fields = line.splitn(7, '|');
        match fields.next() {
            Some("game") => {
                if fields.next() != Some(game.number.to_string().as_str()) {
                    check.refuse_file(number, &format!("the file is not game {}'s", game.number));
                }
            }
            Some("ticket") => {
                let f: Vec<&str> = fields.collect();
                let [book, ticket, barcode, virn, prize, face] = f.as_slice() else {
                    check.refuse_file(number, "a ticket line has seven fields");
                    continue;
                };
                let t = VendorTicket { book, ticket, barcode, virn, prize, face };
                if let Some(printed) = check.ticket(number, t) {
                    // Refused before a row is stored: its first book is one printed already.
                    if !started && i64::from(printed.book) < i64::from(next_book) {
                        return Err(vec![printed_already(printed.book, next_book)]);
                    }
                    started = true;
                    chunk.push(printed);
                }
                if chunk.len() >= CHUNK {
                    send_rows(chunks, (game, key), &mut chunk)?;
                }
            }
            Some("end") => end = fields.next().and_then(|n| n.parse::<u64>().ok()),
            _ => check.refuse_file(number, "an unknown line"),
        }
    }
    if !chunk.is_empty() {
        send_rows(chunks, (game, key), &mut chunk)?;
    }
    check.finish(last_line, end).map(|run| (run, sha256))
}

/// `chunk`'s tickets sent on as COPY rows, and the chunk emptied for the next.
fn send_rows(
    chunks: &tokio::sync::mpsc::Sender<TicketRows>,
    (game, key): (&GameDefinition, &VirnKey),
    chunk: &mut Vec<PrintedTicket>,
) -> Result<(), Vec<String>> {
    chunks
        .blocking_send(print_runs::ticket_rows(game, chunk, key))
        .map_err(|_| vec!["the import stopped".to_owned()])?;
    chunk.clear();
    Ok(())
}

/// Why a file whose books start at `first` is refused where books up to `next_book - 1` are
/// printed already.
fn printed_already(first: u32, next_book: i32) -> String {
    format!("its books start at {first}, but books up to {} are printed already", next_book.saturating_sub(1))
}

/// The record of an imported run: its books and pools as the file holds them.
fn run_record<'a>(
    game: &GameDefinition,
    run: &VendorRun,
    created_by: &'a str,
) -> Result<RunRecord<'a>, AppError> {
    let per_pool = game.pool_size.checked_div(game.ticket_numbers.tickets_per_book()).unwrap_or(1).max(1);
    let books = u64::from(run.last_book.saturating_sub(run.first_book)).saturating_add(1);
    Ok(RunRecord {
        id: Uuid::now_v7(),
        game: i32::try_from(game.number).map_err(AppError::internal)?,
        tickets: i64::try_from(run.tickets).map_err(AppError::internal)?,
        pools: i32::try_from(books.div_ceil(per_pool)).map_err(AppError::internal)?,
        first_book: i32::try_from(run.first_book).map_err(AppError::internal)?,
        last_book: i32::try_from(run.last_book).map_err(AppError::internal)?,
        created_by,
    })
}

/// Imports job `job`'s vendor file as a run of `game` (see the module).
pub async fn import(
    state: &InstantState,
    game: &GameDefinition,
    job: &PrintJobRow,
) -> Result<PrintRunView, AppError> {
    let started = Instant::now();
    let name =
        job.vendor_file.as_deref().ok_or_else(|| AppError::internal("an import job without its file"))?;
    let path = inbox_file(state, name)?;
    let number = i32::try_from(game.number).map_err(AppError::internal)?;
    let mut progress = Some((job.id, print_jobs::ProgressLine::open(&state.pool).await?));
    let mut conn = state.pool.acquire().await?;
    conn.close_on_drop();
    let mut tx = sqlx::Connection::begin(&mut *conn).await?;
    let next_book = print_runs::lock_next_book(&mut tx, number).await?;
    // The reader decrypts, checks and makes COPY rows while the chunk before is stored; a file
    // whose books collide with printed ones is refused before a row is.
    let (sender, mut receiver) = tokio::sync::mpsc::channel(2);
    let identity = state.settings.lottery_identity.0.clone();
    let (for_reader, key) = (game.clone(), state.settings.virn_key.clone());
    let reader = tokio::task::spawn_blocking(move || {
        read_vendor_file(&path, &identity, (&for_reader, &key), next_book, &sender)
    });
    let copied = super::print_run::copy_chunks(&mut tx, &mut receiver, &mut progress, "the import was cancelled").await;
    // Dropping the receiver stops the reader; dropping the transaction keeps nothing.
    drop(receiver);
    let read = reader.await.map_err(AppError::internal)?;
    copied?;
    let refused = |reasons: &str| {
        AppError::unprocessable(REFUSED, format!("the vendor's file is refused whole: {reasons}"))
    };
    let (run, sha256) = read.map_err(|reasons| refused(&reasons.join("; ")))?;
    if i64::from(run.first_book) < i64::from(next_book) {
        return Err(refused(&printed_already(run.first_book, next_book)));
    }
    let record = run_record(game, &run, &job.created_by)?;
    print_runs::insert_run(&mut tx, &record).await?;
    print_runs::mark_vendor_run(&mut tx, record.id, &sha256).await?;
    print_runs::insert_packs_and_counts(&mut tx, game, &record).await?;
    let made = super::print_run::RunMade {
        print_run: record.id,
        game: game.number,
        source: "vendor",
        file_sha256: hex::encode(&sha256),
    };
    events::record(&mut tx, crate::SCHEMA, &Event::new(Kind::PrintRun, &made)?).await?;
    tx.commit().await?;
    super::print_run::fund_once_stored(state, game, record.id).await;
    tracing::info!(run = %record.id, file = name, tickets = run.tickets, "a vendor's run imported");
    Ok(PrintRunView {
        id: record.id,
        game: game.number,
        tickets: run.tickets,
        pools: u32::try_from(record.pools).unwrap_or(0),
        first_book: run.first_book,
        last_book: run.last_book,
        seconds: started.elapsed().as_secs_f64(),
    })
}
