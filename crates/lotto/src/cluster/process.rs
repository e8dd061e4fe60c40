//! The engines as processes of their own: started detached (their own process group, their
//! output in a log file, their pid in a file beside it), found again by that file, and killed
//! as the loss of their machine would kill them.

use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, bail};

/// An engine's files: `<dir>/<name>.pid` and `<dir>/<name>.log`.
#[derive(Debug, Clone)]
pub struct Daemon {
    pub dir: PathBuf,
    pub name: &'static str,
}

/// The user and group to run an engine as: Postgres (and so Patroni) refuses to run as root.
#[derive(Debug, Clone, Copy)]
pub struct RunAs {
    pub uid: u32,
    pub gid: u32,
}

impl RunAs {
    /// The `postgres` user when this process is root; None otherwise (run as ourselves).
    pub fn postgres_if_root() -> anyhow::Result<Option<RunAs>> {
        if id(&["-u"])? != 0 {
            return Ok(None);
        }
        Ok(Some(RunAs { uid: id(&["-u", "postgres"])?, gid: id(&["-g", "postgres"])? }))
    }

    /// Hands `path` (recursively) to this user.
    pub fn own(&self, path: &Path) -> anyhow::Result<()> {
        let status =
            Command::new("chown").arg("-R").arg(format!("{}:{}", self.uid, self.gid)).arg(path).status()?;
        if !status.success() {
            bail!("cannot hand {} to uid {}", path.display(), self.uid);
        }
        Ok(())
    }
}

fn id(args: &[&str]) -> anyhow::Result<u32> {
    let out = Command::new("id").args(args).output().context("cannot run id")?;
    if !out.status.success() {
        bail!("id {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().parse()?)
}

impl Daemon {
    pub fn log(&self) -> PathBuf {
        self.dir.join(format!("{}.log", self.name))
    }

    fn pid_file(&self) -> PathBuf {
        self.dir.join(format!("{}.pid", self.name))
    }

    /// The pid of the running process, if it runs.
    pub fn pid(&self) -> Option<u32> {
        let pid = std::fs::read_to_string(self.pid_file()).ok()?.trim().parse().ok()?;
        alive(pid).then_some(pid)
    }

    /// Starts `program` detached unless it already runs; returns its pid.
    pub fn start(&self, program: &str, args: &[String], run_as: Option<RunAs>) -> anyhow::Result<u32> {
        if let Some(pid) = self.pid() {
            return Ok(pid);
        }
        let log = File::options().create(true).append(true).open(self.log())?;
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            // Its own process group: a Ctrl-C to whoever started it does not reach it.
            .process_group(0);
        if let Some(user) = run_as {
            command.uid(user.uid).gid(user.gid).env("HOME", &self.dir);
        }
        let child = command.spawn().with_context(|| format!("cannot start {program} (is it installed?)"))?;
        let pid = child.id();
        std::fs::write(self.pid_file(), format!("{pid}\n"))?;
        // Not waited for: it outlives this command, as a service would.
        drop(child);
        Ok(pid)
    }

    /// Asks the process to stop (SIGTERM); true when it was running.
    pub fn terminate(&self) -> bool {
        self.pid().is_some_and(|pid| signal("TERM", pid))
    }
}

/// True when `pid` runs (a process that exited but was not reaped is not running).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name in parentheses: "pid (comm) S ...".
        Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => false,
    }
}

/// Sends `signal` to `pid`; true when it was delivered.
pub fn signal(signal: &str, pid: u32) -> bool {
    Command::new("kill")
        .args([format!("-{signal}"), pid.to_string()])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Kills `pid` and every process it started, at once (SIGKILL), as a lost machine would.
pub fn kill_tree(pid: u32) {
    let children = Command::new("pgrep").args(["-P", &pid.to_string()]).output();
    signal("STOP", pid);
    if let Ok(out) = children {
        for child in String::from_utf8_lossy(&out.stdout).split_whitespace().filter_map(|p| p.parse().ok()) {
            kill_tree(child);
        }
    }
    signal("KILL", pid);
}
