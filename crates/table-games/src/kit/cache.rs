//! What this process last wrote of a row, kept so the next request on it need not read it back
//! first. A remembered value is a hint, never the truth: every write made from one is
//! conditional on the row being as remembered, so a stale one (another process moved the row on)
//! only costs a failed write and a fresh read. Each game's repository says what it remembers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use platform::AppError;
use uuid::Uuid;

/// Values by id, at most `most` (by default [`Remembered::MOST`]); past it, the memory starts
/// again. A memory of none remembers nothing (every request reads: how the benchmark measures
/// what remembering buys).
#[derive(Debug, Clone)]
pub struct Remembered<T> {
    known: Arc<Mutex<HashMap<Uuid, T>>>,
    most: usize,
}

impl<T> Default for Remembered<T> {
    fn default() -> Self {
        Remembered::of_at_most(Self::MOST)
    }
}

impl<T> Remembered<T> {
    pub const MOST: usize = 20_000;

    /// A memory of at most `most` values (none: remembers nothing).
    pub fn of_at_most(most: usize) -> Self {
        Remembered { known: Arc::default(), most }
    }

    /// An empty memory of the same size.
    #[must_use]
    pub fn emptied(&self) -> Self {
        Remembered::of_at_most(self.most)
    }
}

impl<T: Clone> Remembered<T> {
    /// The value remembered for `id`, if it passes `keep`.
    pub fn get(&self, id: Uuid, keep: impl FnOnce(&T) -> bool) -> Result<Option<T>, AppError> {
        let known = self.known.lock().map_err(AppError::internal)?;
        Ok(known.get(&id).filter(|v| keep(v)).cloned())
    }

    pub fn remember(&self, id: Uuid, value: T) -> Result<(), AppError> {
        if self.most == 0 {
            return Ok(());
        }
        let mut known = self.known.lock().map_err(AppError::internal)?;
        if known.len() >= self.most {
            known.clear();
        }
        known.insert(id, value);
        Ok(())
    }

    pub fn forget(&self, id: Uuid) -> Result<(), AppError> {
        self.known.lock().map_err(AppError::internal)?.remove(&id);
        Ok(())
    }
}
