//! One piece of work per key at a time in this process: the copies of a request that arrive
//! while the first is being worked on (a client retrying an answer it has not yet had) wait for
//! its answer, holding nothing (no connection, no lock), instead of each doing the work again.
//!
//! A hint, like every process memory: another replica's copy is not seen here, so the work itself
//! must still be idempotent. If the first copy is abandoned (its request timed out and was
//! dropped), a waiting copy takes the work up itself.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::watch;

/// The works in flight, by key.
#[derive(Debug)]
pub struct SingleFlight<K, V>(Arc<Mutex<HashMap<K, watch::Receiver<Option<V>>>>>);

impl<K, V> Clone for SingleFlight<K, V> {
    fn clone(&self) -> Self {
        SingleFlight(Arc::clone(&self.0))
    }
}

impl<K, V> Default for SingleFlight<K, V> {
    fn default() -> Self {
        SingleFlight(Arc::default())
    }
}

/// Takes a finished (or abandoned) work's key out of the map.
struct Landing<'a, K: Hash + Eq, V> {
    flights: &'a Mutex<HashMap<K, watch::Receiver<Option<V>>>>,
    key: &'a K,
}

impl<K: Hash + Eq, V> Drop for Landing<'_, K, V> {
    fn drop(&mut self) {
        self.flights.lock().unwrap_or_else(PoisonError::into_inner).remove(self.key);
    }
}

impl<K: Hash + Eq + Clone, V: Clone> SingleFlight<K, V> {
    /// Runs `work` for `key`, unless a work for it is in flight here: then waits for that one's
    /// answer. Says whether this call did the work (`true`) or shared another's (`false`).
    pub async fn run<F, Fut>(&self, key: K, work: F) -> (V, bool)
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = V>,
    {
        loop {
            // The lock is held only here, never across an await.
            let role = {
                let mut flights = self.0.lock().unwrap_or_else(PoisonError::into_inner);
                match flights.get(&key) {
                    Some(receiver) => Err(receiver.clone()),
                    None => {
                        let (sender, receiver) = watch::channel(None);
                        flights.insert(key.clone(), receiver);
                        Ok(sender)
                    }
                }
            };
            match role {
                Ok(sender) => {
                    // Declared after the sender, so dropped before it: the key is gone when the
                    // copies wake.
                    let _landing = Landing { flights: &self.0, key: &key };
                    let answer = work().await;
                    sender.send_replace(Some(answer.clone()));
                    return (answer, true);
                }
                Err(mut receiver) => {
                    // An error is the first copy dropped before it answered: take the work up.
                    if let Ok(answer) = receiver.wait_for(Option::is_some).await
                        && let Some(answer) = answer.clone()
                    {
                        return (answer, false);
                    }
                    tokio::task::yield_now().await;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn copies_share_the_first_ones_answer_and_an_abandoned_work_is_taken_up() {
        let flights = SingleFlight::<&str, usize>::default();
        let runs = Arc::new(AtomicUsize::new(0));
        let work = |runs: Arc<AtomicUsize>| async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            runs.fetch_add(1, Ordering::SeqCst) + 1
        };
        let copies: Vec<_> = (0..10)
            .map(|_| {
                let (flights, runs) = (flights.clone(), Arc::clone(&runs));
                tokio::spawn(async move { flights.run("k", || work(runs)).await })
            })
            .collect();
        let mut answers = Vec::new();
        for copy in copies {
            answers.push(copy.await.unwrap());
        }
        assert_eq!(runs.load(Ordering::SeqCst), 1, "one run for ten copies");
        assert!(answers.iter().all(|(n, _)| *n == 1));
        assert_eq!(answers.iter().filter(|(_, led)| *led).count(), 1);
        // Done: the next call runs again.
        assert_eq!(flights.run("k", || work(Arc::clone(&runs))).await, (2, true));

        // The first copy abandoned midway: the waiting copy does the work itself.
        let first =
            tokio::time::timeout(Duration::from_millis(10), flights.run("a", || work(Arc::clone(&runs))));
        let second = async {
            tokio::time::sleep(Duration::from_millis(1)).await;
            flights.run("a", || work(Arc::clone(&runs))).await
        };
        let (first, second) = tokio::join!(first, second);
        assert!(first.is_err(), "the first copy timed out");
        assert_eq!(second, (3, true));
    }
}
