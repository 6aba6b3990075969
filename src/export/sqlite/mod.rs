//! A SQLite 3 database file written directly (https://www.sqlite.org/fileformat2.html), with
//! no SQLite library: 4096-byte pages, UTF-8, schema format 4, one rowid table per table
//! added, its rows in the order given (rowid 1, 2, ...). Tables are written one after
//! another as their rows stream in; the schema (`sqlite_schema`, rooted on page 1) and the
//! database header last. The same tables and rows give the same bytes.

mod btree;
pub(crate) mod record;

use std::io::{self, Seek, Write};

use btree::{blank, interior_page, leaf_page, Pager, Root, Tree, HEADER_BYTES, PAGE_SIZE};
pub(crate) use record::Record;

/// The SQLite release whose format this file follows, recorded in the header as
/// `SQLITE_VERSION_NUMBER` of the library that last wrote it.
const SQLITE_VERSION: u32 = 3_040_001;

/// A column's declared type, which gives it SQLite's type affinity of the same name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Declared {
    Integer,
    Real,
    Text,
    Blob,
    /// No declared type (BLOB affinity): SQLite keeps each value as it is given.
    Untyped,
}

impl Declared {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Declared::Integer => "INTEGER",
            Declared::Real => "REAL",
            Declared::Text => "TEXT",
            Declared::Blob => "BLOB",
            Declared::Untyped => "",
        }
    }
}

/// `name` as an SQL identifier: double-quoted, inner quotes doubled.
pub(crate) fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The statement `sqlite_schema` keeps for a table, which SQLite parses on opening the file.
pub(crate) fn create_table(name: &str, columns: &[(String, Declared)]) -> String {
    let cols: Vec<String> = columns.iter().map(|(c, t)| format!("{} {}", quoted(c), t.name()).trim_end().to_string()).collect();
    format!("CREATE TABLE {} ({})", quoted(name), cols.join(", "))
}

/// A database being written.
pub(crate) struct Database<W> {
    pager: Pager<W>,
    /// (table, root page, CREATE TABLE) of every table written.
    schema: Vec<(String, u32, String)>,
    encoded: Vec<u8>,
}

/// A table being filled, row after row.
pub(crate) struct Table<'a, W> {
    db: &'a mut Database<W>,
    name: String,
    columns: Vec<(String, Declared)>,
    tree: Tree,
    rows: i64,
}

impl<W: Write + Seek> Database<W> {
    pub(crate) fn create(out: W) -> io::Result<Database<W>> {
        Ok(Database { pager: Pager::new(out)?, schema: Vec::new(), encoded: Vec::new() })
    }

    /// A new table named `name` with these columns; its rows follow, then [`Table::finish`].
    pub(crate) fn table(&mut self, name: &str, columns: &[(String, Declared)]) -> Table<'_, W> {
        Table { columns: columns.to_vec(), name: name.to_string(), db: self, tree: Tree::new(), rows: 0 }
    }

    /// The schema and the header written; the file is complete. Its size in pages.
    pub(crate) fn finish(mut self) -> io::Result<(W, u32)> {
        let mut tree = Tree::new();
        let mut r = Record::default();
        for (rowid, (name, root, sql)) in std::mem::take(&mut self.schema).iter().enumerate() {
            r.clear();
            r.text("table");
            r.text(name);
            r.text(name);
            r.int(i64::from(*root));
            r.text(sql);
            r.encode(&mut self.encoded);
            tree.push(&mut self.pager, rowid as i64 + 1, &self.encoded)?;
        }
        let root = tree.finish(&mut self.pager, PAGE_SIZE - HEADER_BYTES)?;
        let mut page1 = blank();
        put_root(&mut page1, HEADER_BYTES, &root);
        let pages = self.pager.pages();
        header(&mut page1, pages);
        Ok((self.pager.finish(&page1)?, pages))
    }
}

impl<W: Write + Seek> Table<'_, W> {
    /// The next row, an encoded [`Record`] with a value for every column.
    pub(crate) fn push(&mut self, record: &Record) -> io::Result<()> {
        self.rows += 1;
        record.encode(&mut self.db.encoded);
        if self.db.encoded.len() > record::MAX_ROW_BYTES {
            return Err(io::Error::other(format!(
                "row {} is {} bytes, more than the {} SQLite reads back",
                self.rows,
                self.db.encoded.len(),
                record::MAX_ROW_BYTES
            )));
        }
        self.tree.push(&mut self.db.pager, self.rows, &self.db.encoded)
    }

    /// Column `k` declared with no type after all: its values were not all of the type
    /// first declared (the statement is written with the schema, at the end).
    pub(crate) fn untype(&mut self, k: usize) {
        if let Some(c) = self.columns.get_mut(k) {
            c.1 = Declared::Untyped;
        }
    }

    /// The table's last pages and its root written; its row count.
    pub(crate) fn finish(self) -> io::Result<u64> {
        let root = self.tree.finish(&mut self.db.pager, PAGE_SIZE)?;
        let mut page = blank();
        put_root(&mut page, 0, &root);
        let n = self.db.pager.append(&page)?;
        let sql = create_table(&self.name, &self.columns);
        self.db.schema.push((self.name, n, sql));
        Ok(self.rows as u64)
    }
}

fn put_root(page: &mut [u8; PAGE_SIZE], at: usize, root: &Root) {
    match root {
        Root::Leaf { cells, ends } => leaf_page(page, at, cells, ends),
        Root::Interior(entries) => interior_page(page, at, entries),
    }
}

/// The 100-byte database header (sqlite.org/fileformat2.html, "The Database Header") at the start of page 1.
fn header(page: &mut [u8; PAGE_SIZE], pages: u32) {
    page[..16].copy_from_slice(b"SQLite format 3\0");
    page[16..18].copy_from_slice(&(PAGE_SIZE as u16).to_be_bytes());
    // Read and write versions 1: a rollback journal, as any SQLite opens it.
    page[18] = 1;
    page[19] = 1;
    // Reserved bytes per page; the payload fractions, which must be 64, 32, 32.
    page[20] = 0;
    page[21] = 64;
    page[22] = 32;
    page[23] = 32;
    let mut put = |at: usize, v: u32| page[at..at + 4].copy_from_slice(&v.to_be_bytes());
    // File change counter; size in pages (trusted because version-valid-for below matches
    // the counter); no freelist; schema cookie; schema format 4; text encoding UTF-8.
    put(24, 1);
    put(28, pages);
    put(32, 0);
    put(36, 0);
    put(40, 1);
    put(44, 4);
    put(56, 1);
    put(92, 1);
    put(96, SQLITE_VERSION);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_quoted() {
        let sql = create_table("t", &[("a \"b\"".into(), Declared::Integer), ("c".into(), Declared::Text), ("d".into(), Declared::Untyped)]);
        assert_eq!(sql, "CREATE TABLE \"t\" (\"a \"\"b\"\"\" INTEGER, \"c\" TEXT, \"d\")");
    }

    #[test]
    fn the_header_says_what_the_file_is() {
        let mut db = Database::create(io::Cursor::new(Vec::new())).unwrap();
        let t = db.table("empty", &[("a".into(), Declared::Text)]);
        assert_eq!(t.finish().unwrap(), 0);
        let (out, pages) = db.finish().unwrap();
        let bytes = out.into_inner();
        assert_eq!((pages, bytes.len()), (2, 2 * PAGE_SIZE));
        assert_eq!(&bytes[..16], b"SQLite format 3\0");
        assert_eq!(&bytes[16..24], &[0x10, 0x00, 1, 1, 0, 64, 32, 32]);
        assert_eq!(&bytes[28..32], &2u32.to_be_bytes());
        // Page 1: a leaf with the one schema row; page 2: the empty table's leaf.
        assert_eq!((bytes[100], &bytes[103..105]), (0x0d, &[0u8, 1][..]));
        assert_eq!((bytes[PAGE_SIZE], &bytes[PAGE_SIZE + 3..PAGE_SIZE + 7]), (0x0d, &[0u8, 0, 0x10, 0][..]));
    }

    #[test]
    fn a_payload_keeps_what_sqlite_expects_on_its_page() {
        use btree::local_payload;
        // U = 4096: X = 4061, M = 489, K = M + (P - M) % 4092.
        assert_eq!(local_payload(4061), 4061);
        assert_eq!(local_payload(10_000), 1816);
        // K = 4062 > X: M.
        assert_eq!(local_payload(4062), 489);
        // K past X: the minimum stays.
        assert_eq!(local_payload(489 + 4092 + 4000), 489);
    }
}
