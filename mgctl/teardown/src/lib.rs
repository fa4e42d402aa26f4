//! What mgctl undoes when it exits or is interrupted (issue 29): the temp file of an atomic write,
//! the process group of a child it runs (the `[build]`), a throw-away git worktree.
//!
//! Each of those is registered here while it exists and unregistered when its owner is done
//! ([`Guard`]). The first registration installs a handler for SIGINT, SIGTERM and SIGHUP on a
//! thread of its own (signal-hook's iterator, so nothing runs in signal context): on a signal it
//! takes the registry for good (a registration racing it blocks until the process is gone),
//! forwards the signal to every registered process group, kills what is still alive after a short
//! grace, removes every registered file, runs every registered undo action, and then ends the
//! process as the signal's default action would (exit status 128 + signal for the parent).
//!
//! Creating a temp file and spawning a child happen *under* the registry lock ([`create_file`],
//! [`spawn_group`]), so there is no instant at which a signal finds the thing made but not yet
//! registered.
#![warn(unreachable_pub)]

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

enum Entry {
    File(PathBuf),
    Group(u32),
    Action(Box<dyn FnOnce() + Send>),
}

#[derive(Default)]
struct Registry {
    next: u64,
    entries: BTreeMap<u64, Entry>,
    installed: bool,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    next: 0,
    entries: BTreeMap::new(),
    installed: false,
});

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The signals that end mgctl and are forwarded to its children.
const SIGNALS: [i32; 3] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
];

/// How long a process group has to exit after a forwarded signal before it is killed.
const GRACE: Duration = Duration::from_millis(1500);

impl Registry {
    fn add(&mut self, e: Entry) -> Guard {
        self.install_once();
        self.next += 1;
        self.entries.insert(self.next, e);
        Guard { id: self.next }
    }

    fn install_once(&mut self) {
        if !self.installed {
            // Without the handler thread the default action applies, as it did before; a
            // failure to install is no reason to refuse the work.
            self.installed = install().is_ok();
        }
    }
}

fn install() -> io::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new(SIGNALS)?;
    thread::Builder::new()
        .name("mgctl-signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                let mut reg = registry();
                undo_all(&mut reg, sig);
                // Ends the process as the signal would have; the registry stays locked, so
                // nothing registers (and so nothing is left behind) in the meantime.
                let _ = signal_hook::low_level::emulate_default_handler(sig);
                drop(reg);
            }
        })?;
    Ok(())
}

fn undo_all(reg: &mut Registry, sig: i32) {
    let entries = std::mem::take(&mut reg.entries);
    let groups: Vec<u32> = entries
        .values()
        .filter_map(|e| match e {
            Entry::Group(g) => Some(*g),
            _ => None,
        })
        .collect();
    for g in &groups {
        signal_group(*g, sig);
    }
    let deadline = Instant::now() + GRACE;
    while groups.iter().any(|g| group_alive(*g)) && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(20));
    }
    for g in &groups {
        signal_group(*g, signal_hook::consts::SIGKILL);
    }
    for e in entries.into_values() {
        match e {
            Entry::File(p) => {
                let _ = std::fs::remove_file(p);
            }
            Entry::Action(f) => f(),
            Entry::Group(_) => {}
        }
    }
}

/// A registration: dropping it unregisters (a [`GroupGuard`] also kills what is left of its group).
#[must_use = "dropping the guard unregisters at once"]
pub struct Guard {
    id: u64,
}

impl Drop for Guard {
    fn drop(&mut self) {
        registry().entries.remove(&self.id);
    }
}

/// Runs `create` (which makes a temp file and returns its path) under the registry lock and
/// registers the path, so a signal removes it. Unregister by dropping the guard once the file is
/// renamed or removed.
pub fn create_file<T>(
    create: impl FnOnce() -> io::Result<(PathBuf, T)>,
) -> io::Result<(PathBuf, T, Guard)> {
    let mut reg = registry();
    // The handler goes in before the file exists: a signal between the two would otherwise take
    // the default action and leave the file behind.
    reg.install_once();
    let (path, made) = create()?;
    let guard = reg.add(Entry::File(path.clone()));
    Ok((path, made, guard))
}

/// An undo action run on a signal (removing a throw-away worktree). The owner runs its own
/// clean-up on the ordinary path and then drops the guard.
pub fn on_signal(action: impl FnOnce() + Send + 'static) -> Guard {
    registry().add(Entry::Action(Box::new(action)))
}

/// A child in a process group of its own: dropping this kills what is left of the group
/// (a build's background jobs too) and unregisters it.
pub struct GroupGuard {
    pgid: u32,
    _guard: Guard,
}

impl GroupGuard {
    pub fn pgid(&self) -> u32 {
        self.pgid
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        signal_group(self.pgid, signal_hook::consts::SIGKILL);
    }
}

/// Spawns `cmd` as the leader of a new process group, registered so that a signal to mgctl is
/// forwarded to the whole group and the group is killed when mgctl exits.
pub fn spawn_group(cmd: &mut Command) -> io::Result<(Child, GroupGuard)> {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
    let mut reg = registry();
    let child = cmd.spawn()?;
    let pgid = child.id();
    let guard = reg.add(Entry::Group(pgid));
    Ok((
        child,
        GroupGuard {
            pgid,
            _guard: guard,
        },
    ))
}

/// What a captured child did.
#[derive(Debug)]
pub struct Captured {
    /// None when it ran out of time (and its group was killed).
    pub status: Option<ExitStatus>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// Runs `cmd` in its own process group (stdout and stderr captured, stdin as the caller set it),
/// waits at most `timeout`, and kills the group afterwards, whatever happened: a build's leftover
/// background job does not outlive it, and one that overruns is stopped (SIGTERM, then SIGKILL
/// after a grace) with `status: None`.
pub fn run_captured(cmd: &mut Command, timeout: Option<Duration>) -> io::Result<Captured> {
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let (mut child, group) = spawn_group(cmd)?;
    let out = child.stdout.take().map(reader);
    let err = child.stderr.take().map(reader);
    let deadline = timeout.map(|t| Instant::now() + t);
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break Some(s);
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            signal_group(group.pgid, signal_hook::consts::SIGTERM);
            let grace = Instant::now() + GRACE;
            while group_alive(group.pgid) && Instant::now() < grace {
                thread::sleep(Duration::from_millis(20));
            }
            signal_group(group.pgid, signal_hook::consts::SIGKILL);
            let _ = child.wait();
            break None;
        }
        thread::sleep(Duration::from_millis(10));
    };
    // The leader is gone; what it left running in its group goes now, so the pipes close.
    drop(group);
    let join = |h: Option<thread::JoinHandle<Vec<u8>>>| {
        h.map(|h| h.join().unwrap_or_default()).unwrap_or_default()
    };
    Ok(Captured {
        status,
        stdout: join(out),
        stderr: join(err),
    })
}

fn reader(mut r: impl Read + Send + 'static) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        buf
    })
}

/// Sends `sig` to process group `pgid`; false when there is no such group (any more).
#[allow(unsafe_code)]
fn signal_group(pgid: u32, sig: i32) -> bool {
    let Ok(pid) = i32::try_from(pgid) else {
        return false;
    };
    if pid <= 1 {
        // Never the caller's own group (0) or every process (-1).
        return false;
    }
    // SAFETY: kill(2) takes plain integers and touches no memory of this process; a negative
    // pid names the process group, and pid > 1 was checked above.
    unsafe { libc::kill(-pid, sig) == 0 }
}

/// Whether any process of group `pgid` is still alive.
pub fn group_alive(pgid: u32) -> bool {
    signal_group(pgid, 0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_build_leaves_no_background_job() {
        let dir = tempfile::tempdir().unwrap();
        let pid = dir.path().join("bg.pid");
        let script = format!("sleep 30 & echo $! > {}; echo done", pid.display());
        let out = run_captured(Command::new("sh").args(["-c", &script]), None).unwrap();
        assert!(out.status.unwrap().success());
        assert_eq!(out.stdout, b"done\n");
        let bg: i32 = std::fs::read_to_string(&pid)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // kill(bg, 0) fails once the job is gone (it may linger as a zombie of init briefly).
        let deadline = Instant::now() + Duration::from_secs(5);
        while alive(bg) && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(20));
        }
        assert!(!alive(bg), "the background job {bg} survived its build");
    }

    #[test]
    fn an_overrunning_child_is_stopped_at_its_timeout() {
        let start = Instant::now();
        let out = run_captured(
            Command::new("sh").args(["-c", "echo started; sleep 30"]),
            Some(Duration::from_millis(200)),
        )
        .unwrap();
        assert!(out.status.is_none());
        assert_eq!(out.stdout, b"started\n");
        assert!(start.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_registered_file_is_unregistered_by_its_guard() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t");
        let (path, (), g) =
            create_file(|| std::fs::write(&p, "x").map(|()| (p.clone(), ()))).unwrap();
        assert_eq!(path, p);
        assert!(registry()
            .entries
            .values()
            .any(|e| matches!(e, Entry::File(f) if *f == p)));
        drop(g);
        assert!(!registry()
            .entries
            .values()
            .any(|e| matches!(e, Entry::File(f) if *f == p)));
    }

    fn alive(pid: i32) -> bool {
        // A zombie still answers kill(0); read its state instead.
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| !s.split(") ").nth(1).unwrap_or("").starts_with('Z'))
            .unwrap_or(false)
    }
}
