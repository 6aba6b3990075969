//! Printing one query's result as it streams: a preview of the first rows for reading
//! (table, markdown) with a footer saying how many there were, or every row written as it
//! arrives (csv, json, ndjson), so memory stays flat at any result size.

use std::io::{ErrorKind, Write};
use std::time::{Duration, Instant};

use arrow::record_batch::RecordBatch;

use super::format::{self, Format};
use crate::error::{Error, Result};

/// Rows a preview shows when nothing else is asked for (the DuckDB CLI's default too).
pub(crate) const PREVIEW_ROWS: usize = 40;

/// How many rows of a result are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaxRows {
    All,
    First(usize),
}

impl MaxRows {
    /// `--max-rows N` / `.maxrows N`: 0 (or a negative number, as DuckDB spells it) is all.
    pub fn parse(s: &str) -> Result<MaxRows> {
        let n: i64 = s.trim().parse().map_err(|_| Error::usage(format!("max rows `{s}`: expected a number of rows (0 for all)")))?;
        Ok(if n <= 0 { MaxRows::All } else { MaxRows::First(n as usize) })
    }

    /// The bound a format gets when none is given: table and markdown are read, so they
    /// show a preview (markdown only on a terminal, where it is read rather than saved);
    /// csv, json, ndjson and html are data and get every row.
    pub(crate) fn default_for(fmt: Format, terminal: bool) -> MaxRows {
        match fmt {
            Format::Table => MaxRows::First(PREVIEW_ROWS),
            Format::Markdown if terminal => MaxRows::First(PREVIEW_ROWS),
            _ => MaxRows::All,
        }
    }

    fn allows(self, n: usize) -> usize {
        match self {
            MaxRows::All => n,
            MaxRows::First(m) => m,
        }
    }
}

/// How results are shown: the settings a shell session changes with its commands.
#[derive(Clone, Copy, Debug)]
pub struct Display {
    pub format: Format,
    /// `None`: [`MaxRows::default_for`] the format.
    pub max_rows: Option<MaxRows>,
    /// Print each statement's elapsed time.
    pub timer: bool,
    /// The output is a terminal: the row-count footer is always shown.
    pub terminal: bool,
    /// Bytes of rows a preview or a whole table may hold for printing.
    pub memory: usize,
    /// Decimals of floating-point numbers in table and markdown output (`--digits`); JSON,
    /// NDJSON and CSV keep every digit.
    pub digits: u32,
}

impl Display {
    pub(crate) fn max_rows(&self) -> MaxRows {
        self.max_rows.unwrap_or_else(|| MaxRows::default_for(self.format, self.terminal))
    }
}

/// What a printed result was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Printed {
    /// Rows the statement returned (every one, also those not shown; for a written format
    /// stopped at its bound, the rows seen until then).
    pub rows: usize,
    pub(crate) shown: usize,
}

/// A statement's result on its way to `out`.
pub(crate) struct Printer<'w> {
    out: &'w mut dyn Write,
    display: Display,
    max: MaxRows,
    started: Instant,
    kept: Vec<RecordBatch>,
    held: usize,
    rows: usize,
    shown: usize,
    /// The reader went away (a closed pipe): nothing more is written.
    closed: bool,
    /// JSON nesting: 0 for a result that is the whole document, 1 inside the array of a
    /// run's results (one JSON document for several statements).
    json_level: usize,
    /// A written format has begun (CSV's header, JSON's `[`).
    opened: bool,
    /// What `out` is, for an error writing it: standard output, or the shell's `.output` file.
    name: std::path::PathBuf,
}

impl<'w> Printer<'w> {
    pub(crate) fn new(out: &'w mut dyn Write, display: Display) -> Printer<'w> {
        let max = display.max_rows();
        Printer {
            out,
            display,
            max,
            started: Instant::now(),
            kept: Vec::new(),
            held: 0,
            rows: 0,
            shown: 0,
            closed: false,
            json_level: 0,
            opened: false,
            name: "standard output".into(),
        }
    }

    /// Writing to the file at `path` (errors name it).
    pub(crate) fn into_file(mut self, path: &std::path::Path) -> Self {
        self.name = path.to_path_buf();
        self
    }

    /// JSON rows nested one level, as one element of a document holding several results.
    pub(crate) fn nested(mut self) -> Self {
        self.json_level = 1;
        self
    }

    /// Take the next batch; `false` when nothing more is wanted (the bound of a written
    /// format is reached, or the reader closed the pipe).
    pub(crate) fn batch(&mut self, b: RecordBatch) -> Result<bool> {
        if self.closed {
            return Ok(false);
        }
        // Spans (INTERVAL) as this format prints them, before anything is kept or written.
        let b = super::spans::for_format(&b, self.display.format)?;
        let n = b.num_rows();
        let take = self.max.allows(self.shown + n).saturating_sub(self.shown).min(n);
        self.rows += n;
        match self.display.format {
            Format::Table | Format::Markdown | Format::Html => {
                // Read as a whole: keep what is shown, count the rest.
                if take > 0 || self.kept.is_empty() {
                    let part = b.slice(0, take);
                    self.held += part.get_array_memory_size();
                    if self.held > self.display.memory {
                        return Err(super::memory_exceeded(self.display.memory, "the rows to print are larger; a smaller --max-rows (or .maxrows) shows a preview"));
                    }
                    self.kept.push(part);
                    self.shown += take;
                }
                // A full preview needs only the count of the rest (see `Session::print_to`).
                Ok(self.shown == self.rows || self.max == MaxRows::All)
            }
            Format::Csv | Format::Json | Format::Ndjson => {
                let part = b.slice(0, take);
                self.shown += take;
                let text = self.written(&part)?;
                self.write(&text)?;
                // A written format stops at its bound: nothing after it is printed or counted.
                Ok(!self.closed && (self.max == MaxRows::All || self.shown < self.max.allows(0)))
            }
        }
    }

    /// A preview that stopped reading once it was full: its row count is still to be had.
    pub(crate) fn counting(&self) -> bool {
        matches!(self.display.format, Format::Table | Format::Markdown | Format::Html) && self.rows > self.shown
    }

    /// The result's row count, counted apart from the rows shown.
    pub(crate) fn set_rows(&mut self, rows: usize) {
        self.rows = rows.max(self.shown);
    }

    /// Text of `b` in a written format, as the next part of the document.
    fn written(&mut self, b: &RecordBatch) -> Result<String> {
        match self.display.format {
            Format::Csv => {
                // The header with the first batch, even an empty one (as the whole rendering).
                let mut buf = Vec::new();
                if b.num_rows() > 0 || !self.opened {
                    let mut w = arrow::csv::WriterBuilder::new().with_header(!self.opened).build(&mut buf);
                    w.write(b)?;
                }
                self.opened = true;
                Ok(String::from_utf8_lossy(&buf).into_owned())
            }
            Format::Ndjson => format::ndjson(std::slice::from_ref(b), None),
            _ => {
                // The document's rows, one batch at a time: `[`, rows joined by `,`, `]`.
                let rows = format::json_array(std::slice::from_ref(b), self.json_level)?;
                let inner = rows.strip_prefix('[').and_then(|r| r.strip_suffix(']')).unwrap_or_default();
                let inner = inner.strip_suffix(&format!("\n{}", "  ".repeat(self.json_level))).unwrap_or(inner);
                if inner.is_empty() {
                    return Ok(String::new());
                }
                let opened = std::mem::replace(&mut self.opened, true);
                Ok(if opened { format!(",{inner}") } else { format!("[{inner}") })
            }
        }
    }

    fn write(&mut self, text: &str) -> Result<()> {
        if self.closed || text.is_empty() {
            return Ok(());
        }
        match self.out.write_all(text.as_bytes()) {
            Err(e) if e.kind() == ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            r => r.map_err(|e| Error::io(&self.name, e)),
        }
    }

    /// The end of the result: the preview and its footer, or the written format's closing.
    pub(crate) fn finish(mut self) -> Result<Printed> {
        let elapsed = self.started.elapsed();
        let printed = Printed { rows: self.rows, shown: self.shown };
        match self.display.format {
            Format::Table | Format::Markdown | Format::Html => {
                let kept = std::mem::take(&mut self.kept);
                let kept = if self.display.format == Format::Html { kept } else { format::rounded_to(&kept, self.display.digits)? };
                let body = if self.display.format == Format::Table && self.rows == 0 { String::new() } else { format::render(&kept, self.display.format)? };
                self.write(&body)?;
                if self.display.format != Format::Html {
                    let truncated = self.shown < self.rows;
                    if truncated || self.display.terminal || self.display.timer || self.rows == 0 {
                        let footer = footer(printed, self.display.timer.then_some(elapsed));
                        self.write(&(footer + "\n"))?;
                    }
                }
            }
            Format::Json => {
                let end = if !self.opened { "[]".to_string() } else { format!("\n{}]", "  ".repeat(self.json_level)) };
                let end = if self.json_level == 0 { end + "\n" } else { end };
                self.write(&end)?;
                self.timer_line(elapsed, printed);
            }
            Format::Csv | Format::Ndjson => self.timer_line(elapsed, printed),
        }
        match self.out.flush() {
            Err(e) if e.kind() == ErrorKind::BrokenPipe => {}
            r => r.map_err(|e| Error::io(&self.name, e))?,
        }
        Ok(printed)
    }

    /// A written format's elapsed time goes to stderr: the data stays parseable.
    fn timer_line(&self, elapsed: Duration, printed: Printed) {
        if self.display.timer {
            eprintln!("{}", footer(printed, Some(elapsed)));
        }
    }
}

/// "3 rows", "1000000 rows (40 shown)", with " in 0.012 s" when timed.
pub(crate) fn footer(p: Printed, elapsed: Option<Duration>) -> String {
    let mut s = match p.rows {
        1 => "1 row".to_string(),
        n => format!("{n} rows"),
    };
    if p.shown < p.rows {
        s.push_str(&format!(" ({} shown)", p.shown));
    }
    if let Some(t) = elapsed {
        s.push_str(&format!(" in {:.3} s", t.as_secs_f64()));
    }
    if p.rows == 0 {
        s = format!("({s})");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{ArrayRef, Int64Array, StringArray};
    use std::sync::Arc;

    fn batch(from: i64, n: i64) -> RecordBatch {
        let ids: Vec<i64> = (from..from + n).collect();
        let names: Vec<Option<String>> = ids.iter().map(|i| (i % 3 != 0).then(|| format!("r{i}"))).collect();
        RecordBatch::try_from_iter(vec![
            ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
            ("name", Arc::new(StringArray::from(names)) as ArrayRef),
        ])
        .unwrap()
    }

    /// A write error names where the result was going: the `.output` file, not standard
    /// output.
    #[test]
    fn a_write_error_names_the_file_written() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::new(ErrorKind::StorageFull, "no space left on device"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let display = Display { format: Format::Csv, max_rows: None, timer: false, terminal: false, memory: 1 << 30, digits: 17 };
        let mut full = Full;
        let mut p = Printer::new(&mut full, display).into_file(std::path::Path::new("saved.csv"));
        let err = p.batch(batch(0, 3)).and_then(|_| p.finish().map(|_| ())).unwrap_err().to_string();
        assert!(err.contains("saved.csv") && !err.contains("standard output"), "{err}");
    }

    fn print(fmt: Format, max: Option<MaxRows>, batches: Vec<RecordBatch>) -> (String, Printed) {
        let mut out = Vec::new();
        let display = Display { format: fmt, max_rows: max, timer: false, terminal: false, memory: 1 << 30, digits: 17 };
        let total: usize = batches.iter().map(RecordBatch::num_rows).sum();
        let mut p = Printer::new(&mut out, display);
        for b in batches {
            if !p.batch(b).unwrap() {
                break;
            }
        }
        // As `Session::print_to` does: a full preview's rest is counted apart.
        if p.counting() {
            p.set_rows(total);
        }
        let printed = p.finish().unwrap();
        (String::from_utf8(out).unwrap(), printed)
    }

    /// Streamed JSON, CSV and NDJSON are byte for byte what rendering the whole result
    /// gives, however the rows arrive in batches.
    #[test]
    fn streamed_formats_equal_the_whole_rendering() {
        let whole = vec![batch(0, 7)];
        let parts = vec![batch(0, 3), batch(3, 0), batch(3, 4)];
        for fmt in [Format::Json, Format::Csv, Format::Ndjson] {
            let expected = format::render(&whole, fmt).unwrap();
            assert_eq!(print(fmt, None, parts.clone()).0, expected, "{fmt:?}");
        }
        assert_eq!(print(Format::Json, None, vec![batch(0, 0)]).0, "[]\n");
        assert_eq!(print(Format::Json, None, vec![]).0, "[]\n");
    }

    /// A table previews its first rows and says how many there were; written formats stop
    /// at an explicit bound.
    #[test]
    fn a_preview_shows_its_bound_and_counts_every_row() {
        let (text, p) = print(Format::Table, None, (0..10).map(|i| batch(i * 10, 10)).collect());
        assert_eq!(p, Printed { rows: 100, shown: PREVIEW_ROWS });
        assert!(text.ends_with("100 rows (40 shown)\n"), "{text}");
        assert!(text.contains("| 39 ") && !text.contains("| 40 "), "{text}");
        let (text, p) = print(Format::Table, Some(MaxRows::All), vec![batch(0, 50)]);
        assert_eq!(p, Printed { rows: 50, shown: 50 });
        assert!(text.contains("| 49 ") && !text.contains("rows"), "{text}");
        let (text, p) = print(Format::Csv, Some(MaxRows::First(5)), vec![batch(0, 3), batch(3, 3), batch(6, 3)]);
        assert_eq!(p.shown, 5);
        assert_eq!(text.lines().count(), 6, "{text}");
        assert_eq!(print(Format::Table, None, vec![batch(0, 0)]).0, "(0 rows)\n");
    }

    #[test]
    fn max_rows_reads_zero_and_negatives_as_all() {
        assert_eq!(MaxRows::parse("0").unwrap(), MaxRows::All);
        assert_eq!(MaxRows::parse("-1").unwrap(), MaxRows::All);
        assert_eq!(MaxRows::parse(" 12 ").unwrap(), MaxRows::First(12));
        assert!(MaxRows::parse("ten").is_err());
    }
}
