//! Ctrl-C (SIGINT) or SIGTERM while a dataset is being written: the dataset is staged beside
//! its directory and swapped in only when complete, so an interrupted run leaves the previous
//! dataset as it was. The handler says so, instead of ending silently.

use std::sync::OnceLock;

/// The line printed on an interrupt, set once before the handler is installed.
static MESSAGE: OnceLock<Vec<u8>> = OnceLock::new();

/// What an interrupt leaves at `out`: the previous dataset, or nothing.
pub fn message(out: &std::path::Path) -> String {
    if out.join("manifest.json").is_file() {
        format!("hindsight: interrupted; the previous dataset at {} is unchanged\n", out.display())
    } else {
        format!("hindsight: interrupted; nothing was written to {}\n", out.display())
    }
}

/// Say `text` and exit (130 after SIGINT, 143 after SIGTERM, as shells report them) when
/// the process is interrupted. Only the first call sets the message.
pub fn on_interrupt(text: String) {
    if MESSAGE.set(text.into_bytes()).is_err() {
        return;
    }
    let handler = handle as extern "C" fn(libc::c_int);
    // SAFETY: `handle` only reads a message set before this point and calls
    // async-signal-safe functions (write, _exit).
    unsafe {
        libc::signal(libc::SIGINT, handler as libc::sighandler_t);
        libc::signal(libc::SIGTERM, handler as libc::sighandler_t);
    }
}

extern "C" fn handle(signal: libc::c_int) {
    if let Some(m) = MESSAGE.get() {
        // SAFETY: write(2) on stderr with a buffer that lives for the whole program.
        unsafe {
            libc::write(2, m.as_ptr().cast(), m.len());
        }
    }
    // SAFETY: _exit is async-signal-safe; the staging directory is removed by the next run.
    unsafe { libc::_exit(128 + signal) }
}
