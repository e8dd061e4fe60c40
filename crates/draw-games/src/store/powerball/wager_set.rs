//! A closed drawing's frozen wager set streamed out of Postgres into its canonical export
//! (docs/formats/powerball-wager-set.md).
//!
//! The plays leave Postgres as binary `COPY` of two 8-byte columns, the serial and the rest of the
//! play packed into one integer, and become text here, on this process's core: Postgres' own text
//! output of ten columns sorted cost 12.2 s of a 10-million-play drawing on this project's machine,
//! the packed binary 5.1 s (issue 52). The bytes written are the same.

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use futures_util::StreamExt;
use platform::AppError;
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use tokio::io::AsyncWriteExt;

use crate::export::{EXPORT_HEADER, ExportedPlay};

/// What binary `COPY` sends before its first row: the signature, the flags and the length of
/// the header's extension (none).
const COPY_HEADER: &[u8] = b"PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0";
/// One row: two fields, each an 8-byte integer with its length.
const ROW_BYTES: usize = 2 + (4 + 8) * 2;

/// Writes the closed drawing's canonical export into `dir`: a header, then one line per play in
/// serial and board order, streamed out of Postgres. The file is written under a temporary name
/// and renamed when complete, so a crash never leaves a partial export under the real name; the
/// content depends only on the plays, so writing it again gives the same bytes. Returns the file
/// and its SHA-256.
pub async fn write_export(pool: &PgPool, date: NaiveDate, dir: &Path) -> Result<(PathBuf, [u8; 32]), AppError> {
    tokio::fs::create_dir_all(dir).await.map_err(AppError::internal)?;
    // Recorded absolute, so `lotto verify-draw` finds it from any directory.
    let dir = tokio::fs::canonicalize(dir).await.map_err(AppError::internal)?;
    let name = format!("powerball-{}.psv", date.format("%Y-%m-%d"));
    let path = dir.join(&name);
    let partial = dir.join(format!("{name}.partial"));
    let mut file = tokio::fs::File::create(&partial).await.map_err(AppError::internal)?;
    let mut hash = Sha256::new();
    let mut lines = format!("{EXPORT_HEADER}\n").into_bytes();
    let mut conn = pool.acquire().await?;
    let mut stream = conn.copy_out_raw(&export_copy(date)).await?;
    let mut rows = RowReader::default();
    while let Some(chunk) = stream.next().await {
        rows.read(&chunk?, &mut lines)?;
        if lines.len() >= 1 << 20 {
            hash.update(&lines);
            file.write_all(&lines).await.map_err(AppError::internal)?;
            lines.clear();
        }
    }
    drop(stream);
    if !rows.finished {
        return Err(AppError::internal("the wager set's COPY ended before its trailer"));
    }
    hash.update(&lines);
    file.write_all(&lines).await.map_err(AppError::internal)?;
    file.sync_all().await.map_err(AppError::internal)?;
    drop(file);
    tokio::fs::rename(&partial, &path).await.map_err(AppError::internal)?;
    Ok((path, hash.finalize().into()))
}

/// The `COPY` that streams `date`'s plays out for its export: (serial, the play packed in one
/// integer) in serial and board order, binary. Public so that the drawing's benchmark can time it
/// alone, as the least a canonical export costs Postgres.
pub fn export_copy(date: NaiveDate) -> String {
    // The date is a NaiveDate, formatted: nothing from outside reaches the statement's text
    // (COPY, which the macros cannot take). The board leads the packed play, so the order by it
    // is the order by board.
    format!(
        "COPY (SELECT serial, (board::bigint << 56) | (w1::bigint << 48) | (w2::bigint << 40) | (w3::bigint << 32)
                          | (w4::bigint << 24) | (w5::bigint << 16) | (powerball::bigint << 8)
                          | (power_play::int << 1) | online::int
                 FROM pb_plays WHERE draw_date = '{}' ORDER BY 1, 2)
           TO STDOUT WITH (FORMAT binary)",
        date.format("%Y-%m-%d")
    )
}

/// Binary `COPY` rows of (serial, packed play) read from chunks cut anywhere, each written out
/// as its export line.
#[derive(Debug, Default)]
struct RowReader {
    /// What is left of the last chunk: part of a row, or of the header.
    pending: Vec<u8>,
    header_read: bool,
    finished: bool,
}

impl RowReader {
    fn read(&mut self, chunk: &[u8], lines: &mut Vec<u8>) -> Result<(), AppError> {
        self.pending.extend_from_slice(chunk);
        let mut at = 0;
        if !self.header_read {
            if self.pending.len() < COPY_HEADER.len() {
                return Ok(());
            }
            if self.pending.get(..COPY_HEADER.len()) != Some(COPY_HEADER) {
                return Err(AppError::internal("the wager set's COPY has an unexpected header"));
            }
            self.header_read = true;
            at = COPY_HEADER.len();
        }
        while let Some(field_count) = self.pending.get(at..at + 2) {
            if field_count == [0xff, 0xff] {
                self.finished = true;
                at += 2;
                break;
            }
            let Some(row) = self.pending.get(at..at + ROW_BYTES) else { break };
            write_row(row, lines)?;
            at += ROW_BYTES;
        }
        self.pending.drain(..at);
        Ok(())
    }
}

/// One row (`2` fields, `8` bytes, the serial, `8` bytes, the packed play) as its export line.
fn write_row(row: &[u8], lines: &mut Vec<u8>) -> Result<(), AppError> {
    let field = |from: usize| -> Option<[u8; 8]> {
        (row.get(from..from + 4)? == [0, 0, 0, 8]).then_some(())?;
        row.get(from + 4..from + 12)?.try_into().ok()
    };
    let (Some([0, 2]), Some(serial), Some(packed)) =
        (row.get(..2).map(|c| [c[0], c[1]]), field(2), field(14))
    else {
        return Err(AppError::internal("the wager set's COPY sent a row of another shape"));
    };
    let [board, w1, w2, w3, w4, w5, powerball, flags] = packed;
    ExportedPlay {
        serial: i64::from_be_bytes(serial),
        board,
        whites: [w1, w2, w3, w4, w5],
        powerball,
        power_play: flags & 2 != 0,
        online: flags & 1 != 0,
    }
    .write_line(lines);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(serial: i64, packed: [u8; 8]) -> Vec<u8> {
        let mut row = vec![0, 2, 0, 0, 0, 8];
        row.extend_from_slice(&serial.to_be_bytes());
        row.extend_from_slice(&[0, 0, 0, 8]);
        row.extend_from_slice(&packed);
        row
    }

    /// Rows cut anywhere across chunks read as whole rows.
    #[test]
    fn rows_are_read_across_any_cut() {
        let mut stream = COPY_HEADER.to_vec();
        stream.extend(row(123_456_789_012_345_678, [1, 5, 15, 25, 35, 45, 10, 2]));
        stream.extend(row(123_456_789_012_345_678, [2, 1, 2, 3, 4, 6, 26, 1]));
        stream.extend_from_slice(&[0xff, 0xff]);
        let want = "123456789012345678|1|5|15|25|35|45|10|1|0\n123456789012345678|2|1|2|3|4|6|26|0|1\n";
        for size in [1, 2, 7, 26, stream.len()] {
            let (mut reader, mut lines) = (RowReader::default(), Vec::new());
            for chunk in stream.chunks(size) {
                reader.read(chunk, &mut lines).unwrap();
            }
            assert!(reader.finished, "{size}");
            assert_eq!(String::from_utf8(lines).unwrap(), want, "{size}");
        }
        let mut reader = RowReader::default();
        assert!(reader.read(b"PGCOPY\n\xff\r\n\0\0\x01\0\0\0\0\0\0", &mut Vec::new()).is_err(), "another header");
    }
}
