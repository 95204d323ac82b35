//! Progress on stderr, only when stderr is a terminal and the work lasts over half a second.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

const DELAY: Duration = Duration::from_millis(500);

/// A bar (with a length) or a spinner (without) that stays hidden for its first half second,
/// and always when stderr is not a terminal. Cleared when dropped.
pub struct Progress {
    bar: ProgressBar,
    done: Arc<AtomicBool>,
}

impl Progress {
    pub fn new(message: &str, len: Option<u64>) -> Progress {
        let bar = match len {
            Some(n) => ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::hidden()),
            None => ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden()),
        };
        let style = match len {
            Some(_) => ProgressStyle::with_template("{msg} [{bar:30}] {percent}% ({eta} left)"),
            None => ProgressStyle::with_template("{spinner} {msg} ({elapsed})"),
        };
        if let Ok(style) = style {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(message.to_owned());
        let done = Arc::new(AtomicBool::new(false));
        if std::io::stderr().is_terminal() {
            let (bar2, done2) = (bar.clone(), done.clone());
            std::thread::spawn(move || {
                std::thread::sleep(DELAY);
                if !done2.load(Ordering::Acquire) {
                    bar2.set_draw_target(ProgressDrawTarget::stderr());
                    bar2.enable_steady_tick(Duration::from_millis(100));
                }
            });
        }
        Progress { bar, done }
    }

    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Release);
        self.bar.finish_and_clear();
    }
}
