//! Printing results on stdout. A reader that stops early (`hindsight report ... | head -1`)
//! closes the pipe; that ends the output quietly, as it does for other command-line tools,
//! instead of panicking with exit 101.

use std::io::{ErrorKind, Write};

use crate::error::{Error, Result};

/// Write `text` to stdout and flush it. A closed stdout (broken pipe) is not an error: the
/// reader has all it wanted.
pub fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(()),
        r => r.map_err(|e| Error::io("standard output", e)),
    }
}
