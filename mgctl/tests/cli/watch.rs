//! `mgctl stats watch`: the text snapshot, the no-terminal message, the fake `adb`, and the real
//! binary driven in a real pseudo-terminal through tmux (follow, rotation, pause, export, quit and
//! terminal restore).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::{mgctl, repo_root, scratch};

fn sample(name: &str) -> PathBuf {
    repo_root().join("stats_viewer/tests/data").join(name)
}

const BANNER: &str = "[10:00:00] [Linux MobileGLTraceRe/INFO]: MGPipe stats: counters ON (MOBILEGL_PIPE_STATS), summary every 120 frames\n";

fn window(n: u64) -> String {
    let draws = 1000 * n + 7;
    format!(
        "[10:00:{:02}] [Linux MobileGLTraceRe/INFO]: MGPipe stats: frames={} window=120 draws={draws} draws/f={} acc={} acc/draw=10.00 bytes/f[buf=100.00 tex=50.00] tex[emit=1 box=1 rect=0 jobs=1] gates[ers={}/10 etl=5/5 eub=1/9 mfp=0/0 mpm=0/0 mdt=0/0]\n",
        n % 60,
        120 * n,
        {
            let h = (u128::from(draws) * 100 + 60) / 120;
            format!("{}.{:02}", h / 100, h % 100)
        },
        draws * 10,
        90 + n
    )
}

fn append(path: &Path, text: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

#[test]
fn once_prints_the_view_as_text() {
    let dir = scratch();
    let r = mgctl(
        &[
            "stats",
            "watch",
            "--once",
            "--width",
            "100",
            sample("abB-push-DirectGLES.logcat.txt").to_str().unwrap(),
            "--baseline",
            sample("abA-pull-DirectGLES.mobilegl.log").to_str().unwrap(),
        ],
        dir.path(),
    )
    .expect(0);
    for want in [
        "pid 21377",
        "push build",
        "period 120 (banner)",
        "verify armed 63f/69v fatal=1",
        "frames=720",
        "SESSION CHANGE pid 20877 -> 21377",
        "-10.34%",
        "absent",
    ] {
        assert!(r.stdout.contains(want), "missing {want:?}\n{}", r.dump());
    }
}

#[test]
fn without_a_terminal_it_says_so() {
    let dir = scratch();
    let log = sample("abA-pull-DirectGLES.mobilegl.log");
    let r = mgctl(&["stats", "watch", log.to_str().unwrap()], dir.path()).expect(2);
    r.assert_stderr_has("use --once");
    let r = mgctl(&["stats", "watch"], dir.path()).expect(2);
    r.assert_stderr_has("needs one source");
    let r = mgctl(
        &[
            "stats",
            "watch",
            "--once",
            "--baseline",
            "nope.log",
            log.to_str().unwrap(),
        ],
        dir.path(),
    )
    .expect(2);
    r.assert_stderr_has("nope.log");
}

#[test]
fn once_on_binary_junk_and_a_log_without_windows_says_what_it_sees() {
    let dir = scratch();
    std::fs::write(
        dir.path().join("junk.bin"),
        b"\x7fELF\x00\x01\x02\n\xff\xfe\n",
    )
    .unwrap();
    let r = mgctl(&["stats", "watch", "--once", "junk.bin"], dir.path()).expect(0);
    assert!(
        r.stdout
            .contains("waiting for the first MGPipe stats window"),
        "{}",
        r.dump()
    );
    r.assert_stdout_has("the input looks binary");
    std::fs::write(dir.path().join("empty.log"), BANNER).unwrap();
    let r = mgctl(&["stats", "watch", "--once", "empty.log"], dir.path()).expect(0);
    assert!(
        r.stdout
            .contains("waiting for the first MGPipe stats window"),
        "{}",
        r.dump()
    );
}

/// A fake `adb` on PATH that records its arguments and prints a sample capture.
fn fake_adb(dir: &Path, capture: &Path, then_sleep: bool) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("adb");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$@\" > '{}'\ncat '{}'\n{}",
            dir.join("adb-args").display(),
            capture.display(),
            if then_sleep { "sleep 600\n" } else { "" }
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin
}

fn path_with(bin: &Path) -> String {
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

#[test]
fn adb_once_dumps_logcat_through_a_fake_adb() {
    let dir = scratch();
    let bin = fake_adb(dir.path(), &sample("abB-push-DirectGLES.logcat.txt"), false);
    let out = Command::new(crate::util::bin())
        .args(["stats", "watch", "--adb", "R5CT", "--once"])
        .current_dir(dir.path())
        .env("PATH", path_with(&bin))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("frames=720"), "{stdout}");
    assert!(stdout.contains("adb -s R5CT logcat"), "{stdout}");
    let args = std::fs::read_to_string(dir.path().join("adb-args")).unwrap();
    assert_eq!(args.trim(), "-s R5CT logcat -d -v threadtime");
}

// ---- tmux: the real binary in a real pseudo-terminal ------------------------------------------

pub(crate) struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `command` in a detached 100x30 session on a private server.
    fn start(command: &str, cwd: &Path, path_env: Option<&str>) -> Tmux {
        Tmux::start_sized(command, cwd, path_env, (100, 30))
    }

    /// The same in a `cols`x`rows` terminal.
    pub(crate) fn start_sized(
        command: &str,
        cwd: &Path,
        path_env: Option<&str>,
        (cols, rows): (u16, u16),
    ) -> Tmux {
        let ok = Command::new("tmux")
            .arg("-V")
            .output()
            .map(|o| o.status.success());
        assert!(
            matches!(ok, Ok(true)),
            "tmux is required for the watch end-to-end tests and was not found on PATH \
             (install it: apt-get install tmux; .ci/run installs it)"
        );
        let socket = format!("mgctl-watch-{}-{}", std::process::id(), rand_suffix());
        let t = Tmux { socket };
        let mut cmd = Command::new("tmux");
        cmd.args([
            "-L",
            &t.socket,
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            &cols.to_string(),
            "-y",
            &rows.to_string(),
            "-s",
            "w",
            "-c",
        ])
        .arg(cwd)
        .arg(command)
        .env("NO_COLOR", "1")
        .env("TERM", "xterm-256color");
        if let Some(p) = path_env {
            cmd.env("PATH", p);
        }
        let st = cmd.status().unwrap();
        assert!(st.success(), "tmux new-session failed");
        t
    }

    pub(crate) fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-t", "w"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let st = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys", "-t", "w"])
            .args(keys)
            .status()
            .unwrap();
        assert!(st.success());
    }

    fn alternate_on(&self) -> String {
        let out = Command::new("tmux")
            .args([
                "-L",
                &self.socket,
                "display-message",
                "-p",
                "-t",
                "w",
                "#{alternate_on}",
            ])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Waits until the screen satisfies `pred`; panics with the screen after `secs`.
    pub(crate) fn wait(&self, what: &str, secs: u64, pred: impl Fn(&str) -> bool) -> String {
        let t0 = Instant::now();
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            if t0.elapsed() > Duration::from_secs(secs) {
                panic!("timed out waiting for {what}; screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() % 1_000_000_007)
}

/// After mgctl exits the pane runs `stty -a`: raw mode must be off (icanon and echo back on).
fn pane_command(mgctl_args: &str) -> String {
    piped_pane_command("", mgctl_args)
}

/// The same with `feed` piped into mgctl's stdin (`feed` ends with `|`, or is empty).
fn piped_pane_command(feed: &str, mgctl_args: &str) -> String {
    format!(
        "sh -c '{feed} {} {mgctl_args}; echo EXITED:$?; stty -a | tr \" ;\" \"\\n\\n\" | grep -E \"^-?(icanon|echo|isig)$\" | tr \"\\n\" \" \"; echo STTY-DONE; sleep 600'",
        crate::util::bin()
    )
}

#[test]
fn live_follow_rotation_pause_export_quit_in_a_real_terminal() {
    let dir = scratch();
    let log = dir.path().join("mobilegl.log");
    std::fs::write(&log, format!("{BANNER}{}{}", window(1), window(2))).unwrap();
    let tmux = Tmux::start(
        &pane_command("stats watch mobilegl.log --export-dir ."),
        dir.path(),
        None,
    );
    tmux.wait("the first windows", 20, |s| {
        s.contains("frames=240") && s.contains("windows 2 (2 complete)")
    });
    assert_eq!(
        tmux.alternate_on(),
        "1",
        "the view runs on the alternate screen"
    );

    // Appends show up as the newest window.
    append(&log, &window(3));
    tmux.wait("an appended window", 10, |s| s.contains("frames=360"));

    // Rotation: a last window lands in the old file just before it is renamed away, the next
    // one in a new file under the old name. None may be lost, none repeated.
    append(&log, &window(4));
    std::fs::rename(&log, dir.path().join("mobilegl.log.1")).unwrap();
    std::fs::write(&log, window(5)).unwrap();
    let s = tmux.wait("the window after rotation", 10, |s| {
        s.contains("frames=600")
    });
    assert!(
        s.contains("windows 5 (5 complete)"),
        "a window was lost or repeated:\n{s}"
    );
    assert!(s.contains("lines 6"), "line count after rotation:\n{s}");

    // p freezes the view while data keeps arriving.
    tmux.keys(&["p"]);
    tmux.wait("the pause marker", 10, |s| {
        s.contains("PAUSED (+0 windows)")
    });
    append(&log, &window(6));
    let s = tmux.wait("the paused count", 10, |s| {
        s.contains("PAUSED (+1 windows)")
    });
    assert!(
        s.contains("frames=600") && !s.contains("frames=720"),
        "the view moved while paused:\n{s}"
    );
    tmux.keys(&["p"]);
    tmux.wait("resume", 10, |s| {
        s.contains("frames=720") && !s.contains("PAUSED")
    });

    // ← steps back through history, → returns to the newest.
    tmux.keys(&["Left"]);
    tmux.wait("history", 10, |s| {
        s.contains("window 5/6 history frames=600")
    });
    tmux.keys(&["Right"]);
    tmux.wait("newest again", 10, |s| {
        s.contains("window 6/6 newest frames=720")
    });

    // e exports the current view's data.
    tmux.keys(&["e"]);
    tmux.wait("the export message", 10, |s| {
        s.contains("mgctl-watch-1.json")
    });
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("mgctl-watch-1.json")).unwrap())
            .unwrap();
    assert_eq!(v["schema"], 1);
    assert_eq!(v["window"]["frames"], 720);

    // q exits cleanly and restores the terminal.
    tmux.keys(&["q"]);
    let s = tmux.wait("exit", 10, |s| s.contains("STTY-DONE"));
    assert!(s.contains("EXITED:0"), "{s}");
    assert!(
        s.contains("icanon") && !s.contains("-icanon"),
        "raw mode left on:\n{s}"
    );
    assert!(
        s.contains("echo") && !s.contains("-echo "),
        "echo left off:\n{s}"
    );
    assert_eq!(tmux.alternate_on(), "0", "alternate screen not left");
}

/// Issue 32, at 80×24 in a real terminal: every view's footer ends in `? help` (the counters view's
/// was cut at "←/→ hist"), so does an export's status, and ← compares with the baseline's window at
/// the same frames=, not its last (`frames 480 vs 720 −33.33%`).
#[test]
fn at_80x24_every_view_shows_help_and_history_compares_like_with_like() {
    let dir = scratch();
    for f in [
        "abA-pull-DirectGLES.mobilegl.log",
        "abB-push-DirectGLES.logcat.txt",
    ] {
        std::fs::copy(sample(f), dir.path().join(f)).unwrap();
    }
    let tmux = Tmux::start_sized(
        &pane_command(
            "stats watch abB-push-DirectGLES.logcat.txt --baseline abA-pull-DirectGLES.mobilegl.log --export-dir .",
        ),
        dir.path(),
        None,
        (80, 24),
    );
    let footer = |s: &str| {
        s.lines()
            .rfind(|l| !l.trim().is_empty())
            .unwrap_or_default()
            .trim_end()
            .to_string()
    };
    let s = tmux.wait("the counters view", 20, |s| s.contains("frames=720"));
    for view in ["counters", "charts", "events"] {
        let s = if view == "counters" {
            s.clone()
        } else {
            tmux.keys(&["Tab"]);
            tmux.wait(view, 10, |s| match view {
                "charts" => s.contains(" · baseline "),
                _ => s.lines().any(|l| {
                    let t = l.trim_start();
                    t.split_once("s ")
                        .is_some_and(|(n, _)| n.parse::<f64>().is_ok())
                }),
            })
        };
        let f = footer(&s);
        assert!(f.ends_with("? help"), "{view} view's footer: {f:?}\n{s}");
        assert!(f.chars().count() <= 80, "{f:?}");
    }
    tmux.keys(&["Tab"]);
    tmux.keys(&["e"]);
    let s = tmux.wait("the export message", 10, |s| {
        s.contains("mgctl-watch-1.json")
    });
    let f = footer(&s);
    assert!(f.contains("exported ") && f.ends_with("? help"), "{f:?}");
    tmux.keys(&["Left", "Left"]);
    let s = tmux.wait("two windows back", 10, |s| s.contains("history frames=480"));
    let frames = s
        .lines()
        .find(|l| l.trim_start().starts_with("frames "))
        .unwrap_or_else(|| panic!("{s}"));
    let cells: Vec<&str> = frames.split_whitespace().collect();
    assert_eq!(cells[..2], ["frames", "480"], "{frames:?}");
    assert!(
        cells.contains(&"+0.00%"),
        "480 vs 480, not vs 720: {frames:?}"
    );
    assert!(!frames.contains("-33.33%"), "{frames:?}");
    tmux.keys(&["q"]);
    let s = tmux.wait("exit", 10, |s| s.contains("STTY-DONE"));
    assert!(s.contains("EXITED:0"), "{s}");
}

#[test]
fn live_stdin_and_adb_sources_and_ctrl_c() {
    let dir = scratch();
    // stdin: the view stays up after EOF and says so.
    let cmd = piped_pane_command(
        &format!(
            "cat {} |",
            sample("abB-push-DirectGLES.logcat.txt").display()
        ),
        "stats watch -",
    );
    let tmux = Tmux::start(&cmd, dir.path(), None);
    let s = tmux.wait("stdin data", 20, |s| s.contains("frames=720"));
    assert!(s.contains("stdin"), "{s}");
    tmux.wait("end of input", 10, |s| s.contains("(ended)"));
    tmux.keys(&["C-c"]);
    let s = tmux.wait("exit on ctrl-c", 10, |s| s.contains("STTY-DONE"));
    assert!(
        s.contains("EXITED:0") && s.contains("icanon") && !s.contains("-icanon"),
        "{s}"
    );
    drop(tmux);

    // --adb SERIAL spawns `adb -s SERIAL logcat -v threadtime` (a fake one here).
    let bin = fake_adb(dir.path(), &sample("abB-push-DirectGLES.logcat.txt"), true);
    let tmux = Tmux::start(
        &pane_command("stats watch --adb emulator-5554"),
        dir.path(),
        Some(&path_with(&bin)),
    );
    let s = tmux.wait("adb data", 20, |s| s.contains("frames=720"));
    assert!(s.contains("adb -s emulator-5554 logcat"), "{s}");
    let args = std::fs::read_to_string(dir.path().join("adb-args")).unwrap();
    assert_eq!(args.trim(), "-s emulator-5554 logcat -v threadtime");
    tmux.keys(&["q"]);
    let s = tmux.wait("exit", 10, |s| s.contains("STTY-DONE"));
    assert!(
        s.contains("EXITED:0") && s.contains("icanon") && !s.contains("-icanon"),
        "{s}"
    );
    drop(tmux);

    // --replay at 50x the recorded pace (the capture spans about 15 s of header clock).
    let tmux = Tmux::start(
        &pane_command(&format!(
            "stats watch --replay {} --speed 50 --view events",
            "abB-push-DirectGLES.logcat.txt"
        )),
        &repo_root().join("stats_viewer/tests/data"),
        None,
    );
    let s = tmux.wait("the replay to finish", 20, |s| s.contains("finished ("));
    assert!(s.contains("partial window frames=745 window=25"), "{s}");
    tmux.keys(&["Tab"]);
    let s = tmux.wait("the counters view", 10, |s| s.contains("frames=720"));
    assert!(s.contains("(ended)"), "{s}");
    tmux.keys(&["q"]);
    let s = tmux.wait("exit", 10, |s| s.contains("STTY-DONE"));
    assert!(s.contains("EXITED:0"), "{s}");
}

#[test]
fn a_panic_inside_the_view_restores_the_terminal() {
    let dir = scratch();
    std::fs::write(
        dir.path().join("mobilegl.log"),
        format!("{BANNER}{}", window(1)),
    )
    .unwrap();
    let tmux = Tmux::start(
        &pane_command("stats watch mobilegl.log --crash-test"),
        dir.path(),
        None,
    );
    let s = tmux.wait("exit after the panic", 20, |s| s.contains("STTY-DONE"));
    assert!(s.contains("EXITED:3"), "a panic is an internal error:\n{s}");
    // The message is printed after the restore, on the normal screen, and not overwritten.
    let flat = s.replace('\n', "");
    assert!(
        flat.contains("mgctl: internal error")
            && flat.contains("a deliberate panic inside the view"),
        "the panic message is shown:\n{s}"
    );
    assert!(
        !flat.contains("panicked at"),
        "the default panic text leaked:\n{s}"
    );
    assert!(
        s.contains("icanon") && !s.contains("-icanon"),
        "raw mode left on:\n{s}"
    );
    assert_eq!(tmux.alternate_on(), "0", "alternate screen not left");
}

#[test]
fn stdin_that_is_a_terminal_is_refused() {
    let dir = scratch();
    let tmux = Tmux::start(&pane_command("stats watch -"), dir.path(), None);
    let s = tmux.wait("exit", 20, |s| s.contains("STTY-DONE"));
    assert!(s.contains("EXITED:2"), "{s}");
    assert!(s.replace('\n', "").contains("stdin is a terminal"), "{s}");
}

#[test]
fn once_with_format_json_prints_the_view_as_json() {
    let dir = scratch();
    let log = sample("abB-push-DirectGLES.logcat.txt");
    for flags in [&["--format", "json"][..], &["--json"][..]] {
        let mut args = vec!["stats", "watch", "--once", log.to_str().unwrap()];
        args.extend_from_slice(flags);
        let r = mgctl(&args, dir.path()).expect(0);
        let v: serde_json::Value = serde_json::from_str(&r.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e})\n{}", r.dump()));
        assert_eq!(v["schema"], 1, "{}", r.dump());
        assert_eq!(v["tool"], "mgctl stats watch");
        assert_eq!(v["session"]["pid"], 21377, "{}", r.dump());
        assert_eq!(v["window"]["frames"], 720, "{}", r.dump());
    }
}

/// A pane script that records mgctl's pid (the `exec`ed inner shell), then reports its exit status
/// and the terminal modes once it is gone.
fn signal_pane(dir: &Path) -> String {
    let script = format!(
        "#!/bin/sh\nsh -c 'echo $$ > mgctl.pid; exec \"$0\" stats watch mobilegl.log' {}\necho EXITED:$?\nstty -a | tr ' ;' '\\n\\n' | grep -E '^-?(icanon|echo|isig)$' | tr '\\n' ' '; echo STTY-DONE; sleep 600\n",
        crate::util::bin()
    );
    std::fs::write(dir.join("run.sh"), script).unwrap();
    "sh run.sh".to_string()
}

fn mgctl_pid(dir: &Path) -> String {
    let t0 = Instant::now();
    loop {
        if let Ok(p) = std::fs::read_to_string(dir.join("mgctl.pid")) {
            if !p.trim().is_empty() {
                return p.trim().to_string();
            }
        }
        assert!(t0.elapsed() < Duration::from_secs(10), "no mgctl.pid");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn kill(sig: &str, pid: &str) {
    let st = Command::new("kill").args([sig, pid]).status().unwrap();
    assert!(st.success(), "kill {sig} {pid}");
}

#[test]
fn termination_signals_restore_the_terminal_and_stop_continue_resumes() {
    for (sig, code) in [("-TERM", 143), ("-INT", 130), ("-HUP", 129), ("-QUIT", 131)] {
        let dir = scratch();
        std::fs::write(
            dir.path().join("mobilegl.log"),
            format!("{BANNER}{}", window(1)),
        )
        .unwrap();
        let tmux = Tmux::start(&signal_pane(dir.path()), dir.path(), None);
        tmux.wait("the view", 20, |s| s.contains("frames=120"));
        assert_eq!(tmux.alternate_on(), "1");
        kill(sig, &mgctl_pid(dir.path()));
        let s = tmux.wait("exit on the signal", 10, |s| s.contains("STTY-DONE"));
        assert!(s.contains(&format!("EXITED:{code}")), "{sig}:\n{s}");
        assert!(
            s.contains("icanon") && !s.contains("-icanon") && !s.contains("-echo "),
            "{sig}: raw mode left on:\n{s}"
        );
        assert_eq!(tmux.alternate_on(), "0", "{sig}: alternate screen not left");
    }
    // SIGTSTP gives the terminal back and stops; SIGCONT takes it again and repaints.
    let dir = scratch();
    std::fs::write(
        dir.path().join("mobilegl.log"),
        format!("{BANNER}{}", window(1)),
    )
    .unwrap();
    let tmux = Tmux::start(&signal_pane(dir.path()), dir.path(), None);
    tmux.wait("the view", 20, |s| s.contains("frames=120"));
    let pid = mgctl_pid(dir.path());
    kill("-TSTP", &pid);
    let t0 = Instant::now();
    while tmux.alternate_on() != "0" {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "SIGTSTP kept the alternate screen"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    kill("-CONT", &pid);
    let t0 = Instant::now();
    while tmux.alternate_on() != "1" {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "SIGCONT did not take the screen back"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    tmux.wait("the repainted view", 10, |s| s.contains("frames=120"));
    tmux.keys(&["q"]);
    let s = tmux.wait("exit", 10, |s| s.contains("STTY-DONE"));
    assert!(
        s.contains("EXITED:0") && s.contains("icanon") && !s.contains("-icanon"),
        "{s}"
    );
}

/// A split run's two role logs side by side (issue 31): `--once` draws both columns; the spawn
/// client's `frames=0 window=0` windows are structural and shown, not waited past; JSON has both.
#[test]
fn two_role_logs_side_by_side_once_and_json() {
    let s = repo_root()
        .join("driver/MobileGL/MG_Test/sessions/p6-mixed/03-mc-rd12-DirectGLES-spawn-r2");
    let (c, v) = (s.join("mobilegl.client.log"), s.join("mobilegl.server.log"));
    let (c, v) = (c.to_str().unwrap(), v.to_str().unwrap());
    let run = mgctl(
        &[
            "stats", "watch", "--once", "--width", "160", "--client", c, "--server", v,
        ],
        &repo_root(),
    )
    .expect(0);
    let row = |name: &str| {
        run.stdout
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no {name} row:\n{}", run.stdout))
            .to_string()
    };
    // Left the client (cli counted here, srv a structural 0), right the server (srv counted).
    let cli = row("cli ");
    assert!(cli.split_whitespace().nth(1) == Some("60"), "{cli}");
    let srv = row("srv ");
    let cells: Vec<&str> = srv.split_whitespace().collect();
    assert_eq!((cells[1], cells[4]), ("0", "48"), "{srv}");
    assert!(
        run.stdout.contains("session 1 pid - client"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("session 1 pid - server"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("waiting for the first complete"),
        "{}",
        run.stdout
    );
    let j = mgctl(
        &[
            "stats", "watch", "--once", "--format", "json", "--client", c, "--server", v,
        ],
        &repo_root(),
    )
    .expect(0);
    let doc: serde_json::Value = serde_json::from_str(&j.stdout).unwrap();
    assert!(
        doc["client"]["counters"].is_array() && doc["server"]["counters"].is_array(),
        "{doc:#}"
    );
    // Both or neither.
    let r = mgctl(&["stats", "watch", "--once", "--client", c], &repo_root()).expect(2);
    assert!(r.stderr.contains("--server"), "{}", r.dump());
}

/// Live: both logs followed at once in a real terminal; an append to either shows on its side,
/// `p` pauses both, `q` quits and the terminal is restored.
#[test]
fn two_role_logs_followed_side_by_side_in_a_real_terminal() {
    let dir = scratch();
    let (client, server) = (dir.path().join("client.log"), dir.path().join("server.log"));
    std::fs::write(&client, format!("{BANNER}{}", window(1))).unwrap();
    std::fs::write(&server, format!("{BANNER}{}", window(2))).unwrap();
    let tmux = Tmux::start_sized(
        &pane_command("stats watch --client client.log --server server.log"),
        dir.path(),
        None,
        (160, 40),
    );
    tmux.wait("both sides", 20, |s| {
        s.contains("frames=120") && s.contains("frames=240")
    });
    append(&server, &window(3));
    tmux.wait("the server's append on its side", 10, |s| {
        s.contains("frames=120") && s.contains("frames=360")
    });
    append(&client, &window(4));
    tmux.wait("the client's append", 10, |s| {
        s.contains("frames=480") && s.contains("frames=360")
    });
    tmux.keys(&["p"]);
    let s = tmux.wait("both paused", 10, |s| {
        s.matches("PAUSED (+0 windows)").count() == 2
    });
    assert!(s.contains("frames=480"), "{s}");
    tmux.keys(&["q"]);
    let s = tmux.wait("the shell after quit", 10, |s| s.contains("STTY-DONE"));
    assert!(
        s.contains("EXITED:0") && s.contains("icanon") && !s.contains("-icanon"),
        "the terminal was not restored:\n{s}"
    );
}
