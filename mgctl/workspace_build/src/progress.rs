//! How long work (the workspace's `[build]`, a base revision's build) shows on stderr: a live
//! spinner with the elapsed time on a terminal, as cargo and hyperfine users expect; plain
//! `mgctl: …` lines otherwise (CI logs, pipes); nothing under `-q/--quiet`. Stdout carries
//! only the report in every case.

use std::io::IsTerminal;
use std::time::Duration;

use crate::Step;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The elapsed time stays at the right edge: the message is cut to the terminal's width first.
const TEMPLATE: &str = "{spinner} {wide_msg} [{elapsed}]";

/// The display for one command's long work.
pub struct Progress {
    mode: Mode,
    /// The running spinner and the start line it stands for (printed when the work ends, so
    /// the scrollback reads as the plain lines do).
    spinner: Option<(ProgressBar, String)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Quiet,
    Lines,
    Live,
}

impl Progress {
    /// Live on a terminal stderr (not `TERM=dumb`), lines elsewhere, silent when `quiet`.
    pub fn new(quiet: bool) -> Self {
        let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
        let mode = match quiet {
            true => Mode::Quiet,
            false if std::io::stderr().is_terminal() && !dumb => Mode::Live,
            false => Mode::Lines,
        };
        Progress {
            mode,
            spinner: None,
        }
    }

    /// One step of the work, shown as this display shows it.
    pub fn step(&mut self, step: Step<'_>) {
        let line = format!("mgctl: {}", step.text());
        match (self.mode, step) {
            (Mode::Quiet, _) => {}
            (Mode::Lines, _) => eprintln!("{line}"),
            (Mode::Live, Step::Start(_)) => {
                self.finish();
                let spinner = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                // The template is a constant: a bad one is a bug caught by the unit test below.
                if let Ok(style) = ProgressStyle::with_template(TEMPLATE) {
                    spinner.set_style(style);
                }
                spinner.set_message(line.clone());
                spinner.enable_steady_tick(Duration::from_millis(120));
                self.spinner = Some((spinner, line));
            }
            (Mode::Live, Step::Done(_)) => {
                self.finish();
                eprintln!("{line}");
            }
            (Mode::Live, Step::Note(_)) => match &self.spinner {
                Some((s, _)) => s.println(line),
                None => eprintln!("{line}"),
            },
        }
    }

    fn finish(&mut self) {
        if let Some((s, start)) = self.spinner.take() {
            s.finish_and_clear();
            eprintln!("{start}");
        }
    }
}

impl Drop for Progress {
    // An error between Start and Done must not leave a spinner drawn over the error line.
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spinner_template_parses() {
        assert!(ProgressStyle::with_template(TEMPLATE).is_ok());
    }

    #[test]
    fn quiet_draws_nothing_and_keeps_no_spinner() {
        let mut p = Progress::new(true);
        p.step(Step::Start("building ws: ./build.sh"));
        assert!(p.spinner.is_none());
        assert_eq!(p.mode, Mode::Quiet);
    }
}
