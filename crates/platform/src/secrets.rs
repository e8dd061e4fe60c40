//! Secrets a process keeps in files of its own, so a restart never forgets them.
//!
//! A deployment gives every secret in its environment (the separate binaries refuse to start
//! without them: several replicas must share one key). The `lotto` command, run by a newcomer with
//! no settings, may not make its keys up afresh at each start either: a VIRN key that changes
//! makes every printed ticket worthless, a token key that changes logs every player out. So what
//! the environment does not give, `lotto` makes once and keeps in a directory
//! (`LOTTO_SECRETS_DIR`, default `.lotto/secrets`): the directory readable by its owner only
//! (0700), each secret one file (0600), never in the database and never in a log.
//!
//! A file is made by writing a temporary file and linking it to its name, which fails when
//! another process got there first: two processes starting together on one directory end up
//! with the same key, whichever wrote it.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::config::{ConfigError, Secret, checked_secret};

/// Where secrets the environment does not give come from.
#[derive(Debug, Clone)]
pub struct KeptSecrets {
    dir: PathBuf,
    /// `lotto`: a missing secret is made and kept. A separate service: it is refused.
    make_missing: bool,
}

/// The default directory, relative to the working directory (as `.lotto/pgdata` is).
pub const DEFAULT_DIR: &str = ".lotto/secrets";

impl KeptSecrets {
    /// For `lotto`: every secret the environment does not give is made once and kept in `dir`.
    pub fn made_and_kept_in(dir: impl Into<PathBuf>) -> Self {
        KeptSecrets { dir: dir.into(), make_missing: true }
    }

    /// For a service run on its own: its secrets must be given; only demonstration keys
    /// ([`KeptSecrets::demonstration`]) are kept in `dir`.
    pub fn required_with_demonstrations_in(dir: impl Into<PathBuf>) -> Self {
        KeptSecrets { dir: dir.into(), make_missing: false }
    }

    /// `lotto`'s, in `LOTTO_SECRETS_DIR` (default [`DEFAULT_DIR`]).
    pub fn lotto_from_env() -> Result<Self, ConfigError> {
        Ok(KeptSecrets::made_and_kept_in(dir_from_env()?))
    }

    /// A separate service's, its demonstration keys in `LOTTO_SECRETS_DIR`.
    pub fn service_from_env() -> Result<Self, ConfigError> {
        Ok(KeptSecrets::required_with_demonstrations_in(dir_from_env()?))
    }

    /// The directory, as given.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether a missing secret is made (`lotto`) rather than refused.
    pub fn makes_missing(&self) -> bool {
        self.make_missing
    }

    /// The secret `var` of the environment (checked by [`checked_secret`]); without it, the one
    /// kept in the file `file` (made of 32 random bytes, as hex, the first time), or, for a
    /// service run on its own, a refusal that names the variable.
    pub fn secret(&self, var: &'static str, file: &str) -> Result<Secret, ConfigError> {
        if let Some(secret) = Secret::from_env(var)? {
            return Ok(secret);
        }
        if !self.make_missing {
            return Err(ConfigError {
                name: var,
                value: String::new(),
                reason: "must be set (32 random bytes or more, e.g. openssl rand -hex 32): every replica \
                         must share it and it must outlive the process"
                    .to_owned(),
            });
        }
        let text = self.kept(var, file, || hex::encode(crate::auth::random_bytes::<32>()))?;
        Ok(Secret::new(checked_secret(var, text.trim()).map_err(|mut e| {
            e.reason = format!("{} (kept in {})", e.reason, self.dir.join(file).display());
            e
        })?))
    }

    /// A demonstration's key (made by `make` the first time), kept in `file` whatever the
    /// process: a printer's key pair a newcomer decrypts with, never one a deployment relies on.
    /// `setting` names the variable that gives the real one, for the messages.
    pub fn demonstration(
        &self,
        setting: &'static str,
        file: &str,
        make: impl FnOnce() -> String,
    ) -> Result<String, ConfigError> {
        self.kept(setting, file, make)
    }

    /// The text of `file`, made with `make` when it does not exist.
    fn kept(
        &self,
        setting: &'static str,
        file: &str,
        make: impl FnOnce() -> String,
    ) -> Result<String, ConfigError> {
        let failed = |path: &Path, reason: String| ConfigError {
            name: setting,
            value: String::new(),
            reason: format!("{}: {reason}", path.display()),
        };
        let path = self.dir.join(file);
        close_dir(&self.dir).map_err(|e| failed(&self.dir, e))?;
        if let Some(text) = read_private(&path).map_err(|e| failed(&path, e))? {
            return Ok(text);
        }
        make_private_dir(&self.dir).map_err(|e| failed(&self.dir, e.to_string()))?;
        let temporary = self.dir.join(format!(".{file}.{}", uuid::Uuid::new_v4()));
        let written = (|| {
            let mut out = private_file(&temporary)?;
            out.write_all(format!("{}\n", make()).as_bytes())?;
            out.sync_all()?;
            match std::fs::hard_link(&temporary, &path) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(e),
                // Made here, or by a process that started at the same moment: either is the key.
                _ => Ok(()),
            }
        })();
        let _ = std::fs::remove_file(&temporary);
        written.map_err(|e| failed(&path, e.to_string()))?;
        read_private(&path).map_err(|e| failed(&path, e))?.ok_or_else(|| failed(&path, "vanished".to_owned()))
    }
}

/// `LOTTO_SECRETS_DIR` (default [`DEFAULT_DIR`]).
fn dir_from_env() -> Result<PathBuf, ConfigError> {
    crate::config::env_or("LOTTO_SECRETS_DIR", PathBuf::from(DEFAULT_DIR))
}

/// The file's text, `None` when it does not exist; refused when others may read it (as ssh
/// refuses a private key others can read: it may have been seen).
fn read_private(path: &Path) -> Result<Option<String>, String> {
    let metadata = match std::fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    if !metadata.is_file() {
        return Err("is not a plain file".to_owned());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if metadata.permissions().mode() & 0o077 != 0 {
            return Err(
                "may be read by others than its owner: chmod 600 it (or remove it to make a new one)"
                    .to_owned(),
            );
        }
    }
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    Ok(Some(text.trim().to_owned()))
}

/// An existing secrets directory that its group or others may read, write or enter is closed
/// to its owner (0700), and the log says so with the mode it had (issue 47 §5: files were
/// refused so, the directory was not); refused when it cannot be closed (the process is not its
/// owner). A directory not made yet is made 0700 by [`make_private_dir`].
fn close_dir(dir: &Path) -> Result<(), String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let Ok(metadata) = std::fs::metadata(dir) else { return Ok(()) };
        let mode = metadata.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode & 0o700)).map_err(|e| {
                format!("may be read by others than its owner (mode {mode:o}) and could not be closed ({e}): chmod 700 it")
            })?;
            tracing::warn!(
                dir = %dir.display(),
                was = format!("{mode:o}"),
                now = format!("{:o}", mode & 0o700),
                "the secrets directory could be read by others than its owner: closed to its owner"
            );
        }
    }
    Ok(())
}

/// `dir` made 0700; the directories above it, when missing, as any other (a recursive builder
/// would make them all 0700, shutting out, say, the private cluster's `postgres` user beside it).
fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    match builder.create(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    }
}

fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn scratch() -> PathBuf {
        crate::config::scratch_dir("secrets")
    }

    #[test]
    fn a_secret_is_made_once_and_the_same_at_every_later_start() {
        let dir = scratch();
        let first = KeptSecrets::made_and_kept_in(&dir).secret("LOTTO_TEST_UNSET_A", "a").unwrap();
        let again = KeptSecrets::made_and_kept_in(&dir).secret("LOTTO_TEST_UNSET_A", "a").unwrap();
        assert_eq!(first.expose(), again.expose());
        assert_eq!(first.expose().len(), 64, "32 bytes as hex");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&dir), 0o700);
            assert_ne!(mode(dir.parent().unwrap()) & 0o077, 0, "only the secrets' own directory is closed");
            assert_eq!(mode(&dir.join("a")), 0o600);
        }
        let other = KeptSecrets::made_and_kept_in(&dir).secret("LOTTO_TEST_UNSET_A", "b").unwrap();
        assert_ne!(first.expose(), other.expose(), "each secret its own");
    }

    #[test]
    fn a_service_run_alone_refuses_a_missing_secret_and_makes_no_file() {
        let dir = scratch();
        let kept = KeptSecrets::required_with_demonstrations_in(&dir);
        let refused = kept.secret("LOTTO_TEST_UNSET_B", "b").unwrap_err();
        assert_eq!(refused.name, "LOTTO_TEST_UNSET_B");
        assert!(!dir.join("b").exists());
        let demo = kept.demonstration("LOTTO_TEST_UNSET_B", "demo", || "one".to_owned()).unwrap();
        let again = kept.demonstration("LOTTO_TEST_UNSET_B", "demo", || "two".to_owned()).unwrap();
        assert_eq!((demo.as_str(), again.as_str()), ("one", "one"));
    }

    #[test]
    fn processes_starting_together_share_one_key() {
        let dir = scratch();
        let made: Vec<Vec<u8>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        KeptSecrets::made_and_kept_in(&dir)
                            .secret("LOTTO_TEST_UNSET_C", "c")
                            .unwrap()
                            .expose()
                            .to_vec()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(made.windows(2).all(|w| w[0] == w[1]), "all eight agree");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(left, vec![std::ffi::OsString::from("c")], "no temporary file is left behind");
    }

    #[cfg(unix)]
    #[test]
    fn a_secrets_directory_others_may_enter_is_closed_to_its_owner() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch();
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let kept = KeptSecrets::made_and_kept_in(&dir);
        let first = kept.secret("LOTTO_TEST_DIR_SECRET_UNSET", "e").unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
        // Opened again later (a careless chmod): closed again, the same secret read.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o750)).unwrap();
        let again = kept.secret("LOTTO_TEST_DIR_SECRET_UNSET", "e").unwrap();
        assert_eq!(first.expose(), again.expose());
        assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
    }

    #[cfg(unix)]
    #[test]
    fn a_kept_secret_others_may_read_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch();
        KeptSecrets::made_and_kept_in(&dir).secret("LOTTO_TEST_UNSET_D", "d").unwrap();
        std::fs::set_permissions(dir.join("d"), std::fs::Permissions::from_mode(0o644)).unwrap();
        let refused = KeptSecrets::made_and_kept_in(&dir).secret("LOTTO_TEST_UNSET_D", "d").unwrap_err();
        assert!(refused.reason.contains("chmod 600"), "{refused}");
    }
}
