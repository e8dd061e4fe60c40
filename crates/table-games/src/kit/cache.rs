//! What this process last wrote of a row, kept so the next request on it need not read it back
//! first. A remembered value is a hint, never the truth: every write made from one is
//! conditional on the row being as remembered, so a stale one (another process moved the row on)
//! only costs a failed write and a fresh read. Each game's repository says what it remembers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use platform::AppError;
use uuid::Uuid;

/// Values by id, at most [`Remembered::MOST`]; past it, the memory starts again.
#[derive(Debug, Clone)]
pub struct Remembered<T>(Arc<Mutex<HashMap<Uuid, T>>>);

impl<T> Default for Remembered<T> {
    fn default() -> Self {
        Remembered(Arc::default())
    }
}

impl<T: Clone> Remembered<T> {
    pub const MOST: usize = 20_000;

    /// The value remembered for `id`, if it passes `keep`.
    pub fn get(&self, id: Uuid, keep: impl FnOnce(&T) -> bool) -> Result<Option<T>, AppError> {
        let known = self.0.lock().map_err(AppError::internal)?;
        Ok(known.get(&id).filter(|v| keep(v)).cloned())
    }

    pub fn remember(&self, id: Uuid, value: T) -> Result<(), AppError> {
        let mut known = self.0.lock().map_err(AppError::internal)?;
        if known.len() >= Self::MOST {
            known.clear();
        }
        known.insert(id, value);
        Ok(())
    }

    pub fn forget(&self, id: Uuid) -> Result<(), AppError> {
        self.0.lock().map_err(AppError::internal)?.remove(&id);
        Ok(())
    }
}
