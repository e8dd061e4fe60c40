//! The printer's file (docs/formats/printers-file.md): everything a ticket printer needs to print
//! a run, in the clear only inside the run's process. It is written as the run is generated,
//! through an `age` encryptor to the printer's public key, so a clear VIRN never touches the disk
//! or a log; the encrypted file's SHA-256 is signed with the lottery's Ed25519 key. Reading it
//! back (the printer's side, and `lotto printer-file`) needs the printer's secret key.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use domain::instant::GameDefinition;
use domain::instant::print_run::PrintedTicket;
use ed25519_dalek::{Signer, SigningKey, Verifier, VerifyingKey};
use sha2::{Digest, Sha256};

/// The first line of the clear text.
pub const HEADER: &str = "lotto printer's file v1";

/// Why a printer's file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum PrinterFileError {
    #[error("the printer's file: {0}")]
    Io(#[from] std::io::Error),
    #[error("the printer's file cannot be decrypted with this key: {0}")]
    Decrypt(#[from] age::DecryptError),
    #[error("line {line}: {reason}")]
    Malformed { line: usize, reason: String },
    #[error("the signature does not verify: the file is not the lottery's, or was changed")]
    Signature,
}

/// The keys: the printer's public key files are encrypted to, and the lottery's signing key.
#[derive(Clone)]
pub struct PrinterKeys {
    pub recipient: age::x25519::Recipient,
    pub signing: SigningKey,
}

impl std::fmt::Debug for PrinterKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrinterKeys")
            .field("recipient", &self.recipient.to_string())
            .field("verifying_key", &hex::encode(self.signing.verifying_key().to_bytes()))
            .finish_non_exhaustive()
    }
}

impl PrinterKeys {
    /// The key a printer verifies the lottery's signature with (hex).
    pub fn verifying_key_hex(&self) -> String {
        hex::encode(self.signing.verifying_key().to_bytes())
    }
}

/// A printer's file being written: clear lines in, encrypted bytes out, under a temporary name
/// until [`Writer::finish`].
pub struct Writer {
    stream: age::stream::StreamWriter<BufWriter<std::fs::File>>,
    partial: PathBuf,
    path: PathBuf,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer").field("path", &self.path).finish_non_exhaustive()
    }
}

impl Writer {
    /// Starts run `run`'s file in `dir`, encrypted to `recipient`, with its header, game and run
    /// lines.
    pub fn create(
        dir: &Path,
        run: uuid::Uuid,
        recipient: &age::x25519::Recipient,
        game: &GameDefinition,
        first_book: u32,
        last_book: u32,
    ) -> Result<Writer, PrinterFileError> {
        std::fs::create_dir_all(dir)?;
        let dir = dir.canonicalize()?;
        let path = dir.join(format!("printers-file-{}-{run}.age", game.number));
        let partial = dir.join(format!("printers-file-{}-{run}.age.partial", game.number));
        let file = BufWriter::with_capacity(1 << 20, std::fs::File::create(&partial)?);
        let encryptor = age::Encryptor::with_recipients(std::iter::once(recipient as &dyn age::Recipient))
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let mut stream = encryptor.wrap_output(file)?;
        writeln!(stream, "{HEADER}")?;
        writeln!(stream, "game|{}|{}|{}", game.number, game.name, game.price_cents)?;
        writeln!(stream, "run|{run}|{first_book}|{last_book}|{}", game.tickets_ordered)?;
        Ok(Writer { stream, partial, path })
    }

    /// One pool's packs and tickets, in book and ticket order.
    pub fn write_pool(&mut self, tickets: &[PrintedTicket]) -> Result<(), PrinterFileError> {
        // A pool's tickets come book by book: a pack line before each book's run of them.
        let mut book = None;
        let mut face = String::new();
        for (i, t) in tickets.iter().enumerate() {
            if book != Some(t.book) {
                book = Some(t.book);
                let in_book =
                    tickets.get(i..).unwrap_or_default().iter().take_while(|u| u.book == t.book).count();
                writeln!(self.stream, "pack|{}|{in_book}", t.book)?;
            }
            face.clear();
            t.face.write_text(&mut face);
            writeln!(self.stream, "ticket|{}|{}|{}|{}|{face}", t.book, t.ticket, t.barcode, t.virn)?;
        }
        Ok(())
    }

    /// Ends the file (its `end` line), renames it to its real name, and returns it with its
    /// SHA-256 and the lottery's signature of that hash.
    pub fn finish(
        mut self,
        tickets: u64,
        signing: &SigningKey,
    ) -> Result<(PathBuf, [u8; 32], [u8; 64]), PrinterFileError> {
        writeln!(self.stream, "end|{tickets}")?;
        let mut file = self.stream.finish()?;
        file.flush()?;
        file.get_ref().sync_all()?;
        drop(file);
        std::fs::rename(&self.partial, &self.path)?;
        let (sha256, signature) = sign(&self.path, signing)?;
        Ok((self.path, sha256, signature))
    }

    /// Abandons the file (the run did not commit): nothing stays on disk.
    pub fn abandon(self) {
        let partial = self.partial.clone();
        drop(self);
        let _ = std::fs::remove_file(partial);
    }
}

/// The SHA-256 of the file at `path`.
pub fn sha256_of(path: &Path) -> Result<[u8; 32], PrinterFileError> {
    let mut hash = Sha256::new();
    let mut file = std::fs::File::open(path)?;
    std::io::copy(&mut file, &mut hash)?;
    Ok(hash.finalize().into())
}

/// The file's SHA-256 and `signing`'s signature of it.
pub fn sign(path: &Path, signing: &SigningKey) -> Result<([u8; 32], [u8; 64]), PrinterFileError> {
    let sha256 = sha256_of(path)?;
    Ok((sha256, signing.sign(&sha256).to_bytes()))
}

/// Checks `signature` (of the file's SHA-256) with the lottery's `verifying` key.
pub fn verify(path: &Path, signature: &[u8; 64], verifying: &VerifyingKey) -> Result<(), PrinterFileError> {
    let sha256 = sha256_of(path)?;
    verifying
        .verify(&sha256, &ed25519_dalek::Signature::from_bytes(signature))
        .map_err(|_| PrinterFileError::Signature)
}

/// A ticket as the printer prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintableTicket {
    pub book: u32,
    pub ticket: u32,
    pub barcode: String,
    pub virn: String,
    /// The face's text (docs/formats/printers-file.md).
    pub face: String,
}

/// Decrypts the file at `path` with the printer's `identity` and returns its tickets.
pub fn read_tickets(
    path: &Path,
    identity: &age::x25519::Identity,
) -> Result<Vec<PrintableTicket>, PrinterFileError> {
    let file = BufReader::new(std::fs::File::open(path)?);
    let decryptor = age::Decryptor::new(file)?;
    let reader = BufReader::new(decryptor.decrypt(std::iter::once(identity as &dyn age::Identity))?);
    let mut tickets = Vec::new();
    let malformed =
        |line: usize, reason: &str| PrinterFileError::Malformed { line, reason: reason.to_owned() };
    let mut ended = false;
    for (i, line) in reader.lines().enumerate() {
        let line = line?;
        let number = i.saturating_add(1);
        if i == 0 {
            if line != HEADER {
                return Err(malformed(1, "not a printer's file (the header differs)"));
            }
            continue;
        }
        let mut fields = line.splitn(6, '|');
        match fields.next() {
            Some("ticket") => {
                let mut next =
                    || fields.next().ok_or_else(|| malformed(number, "a ticket line has six fields"));
                let book = next()?.parse().map_err(|_| malformed(number, "the book is a number"))?;
                let ticket = next()?.parse().map_err(|_| malformed(number, "the ticket is a number"))?;
                let (barcode, virn, face) = (next()?.to_owned(), next()?.to_owned(), next()?.to_owned());
                tickets.push(PrintableTicket { book, ticket, barcode, virn, face });
            }
            Some("end") => ended = true,
            Some("game" | "run" | "pack") => {}
            _ => return Err(malformed(number, "an unknown line")),
        }
    }
    if !ended {
        return Err(malformed(0, "the file has no end line: it is cut short"));
    }
    Ok(tickets)
}
