//! Table b-trees built bottom-up (sqlite.org/fileformat2.html, "B-tree Pages"): rows arrive
//! in rowid order, fill leaf pages one after another, and each page written becomes an entry
//! of the level above. Only the page being filled on each level is held (and above the
//! leaves, the full page before it), so memory does not grow with the table.

use std::io::{self, Seek, SeekFrom, Write};

use super::record::{put_varint, varint_len};

pub(crate) const PAGE_SIZE: usize = 4096;
/// No bytes are reserved at the end of a page, so all of it is usable.
const USABLE: usize = PAGE_SIZE;
/// Page 1 begins with the 100-byte database header; its b-tree header follows.
pub(crate) const HEADER_BYTES: usize = 100;
/// The page holding byte 2^30, where SQLite keeps its file locks: never used for data.
const PENDING_PAGE: u32 = (0x4000_0000 / PAGE_SIZE) as u32 + 1;

const LEAF: u8 = 0x0d;
const INTERIOR: u8 = 0x05;
const LEAF_HEADER: usize = 8;
const INTERIOR_HEADER: usize = 12;

pub(crate) type Page = Box<[u8; PAGE_SIZE]>;

pub(crate) fn blank() -> Page {
    Box::new([0u8; PAGE_SIZE])
}

/// The database file, written one page after another from page 2; page 1 (the header and
/// the schema's root) is written last, when everything it points at is known.
pub(crate) struct Pager<W> {
    out: W,
    next: u32,
}

impl<W: Write + Seek> Pager<W> {
    pub(crate) fn new(mut out: W) -> io::Result<Pager<W>> {
        out.write_all(&[0u8; PAGE_SIZE])?;
        Ok(Pager { out, next: 2 })
    }

    /// The number the next page appended will have.
    pub(crate) fn upcoming(&self) -> u32 {
        after(self.next - 1)
    }

    pub(crate) fn append(&mut self, page: &[u8; PAGE_SIZE]) -> io::Result<u32> {
        if self.next == PENDING_PAGE {
            self.out.write_all(&[0u8; PAGE_SIZE])?;
            self.next += 1;
        }
        if self.next == u32::MAX {
            return Err(io::Error::other("more than 4294967294 pages of 4 KiB: too large for one SQLite database"));
        }
        self.out.write_all(page)?;
        self.next += 1;
        Ok(self.next - 1)
    }

    /// Pages in the file, page 1 included.
    pub(crate) fn pages(&self) -> u32 {
        self.next - 1
    }

    /// Page 1 written over its placeholder; the writer handed back.
    pub(crate) fn finish(mut self, page1: &[u8; PAGE_SIZE]) -> io::Result<W> {
        self.out.flush()?;
        self.out.seek(SeekFrom::Start(0))?;
        self.out.write_all(page1)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// The page number after `n`, stepping over the lock page.
fn after(n: u32) -> u32 {
    if n + 1 == PENDING_PAGE {
        n + 2
    } else {
        n + 1
    }
}

/// How much of a payload of `p` bytes a table leaf cell keeps on its page; the rest goes to
/// overflow pages. SQLite computes the same split when it reads, so it must be exact.
pub(crate) fn local_payload(p: usize) -> usize {
    let max = USABLE - 35;
    let min = (USABLE - 12) * 32 / 255 - 23;
    if p <= max {
        return p;
    }
    let k = min + (p - min) % (USABLE - 4);
    if k <= max {
        k
    } else {
        min
    }
}

/// A level above the leaves: the (child page, largest rowid under it) entries of the page
/// being filled, and the page before it, held back so the last page never has a lone child.
#[derive(Default)]
struct Level {
    held: Option<Vec<(u32, i64)>>,
    entries: Vec<(u32, i64)>,
    /// The bytes the entries take as cells, pointers included.
    bytes: usize,
}

fn interior_cell_len(key: i64) -> usize {
    4 + varint_len(key as u64) + 2
}

/// One table's b-tree, filled in rowid order.
pub(crate) struct Tree {
    /// The current leaf's cells, back to back, and where each ends.
    cells: Vec<u8>,
    ends: Vec<usize>,
    last_rowid: i64,
    levels: Vec<Level>,
    cell: Vec<u8>,
}

/// The root of a finished tree, not yet on a page: the caller puts it on a page of its own, or
/// page 1 for the schema.
pub(crate) enum Root {
    Leaf { cells: Vec<u8>, ends: Vec<usize> },
    Interior(Vec<(u32, i64)>),
}

impl Tree {
    pub(crate) fn new() -> Tree {
        Tree { cells: Vec::new(), ends: Vec::new(), last_rowid: 0, levels: Vec::new(), cell: Vec::new() }
    }

    /// A row: its cell on the current leaf (the leaf written out first when it is full), the
    /// part of the record that does not fit on a page in overflow pages.
    pub(crate) fn push<W: Write + Seek>(&mut self, pager: &mut Pager<W>, rowid: i64, record: &[u8]) -> io::Result<()> {
        let mut cell = std::mem::take(&mut self.cell);
        cell.clear();
        put_varint(&mut cell, record.len() as u64);
        put_varint(&mut cell, rowid as u64);
        let local = local_payload(record.len());
        cell.extend_from_slice(&record[..local]);
        if local < record.len() {
            let first = write_overflow(pager, &record[local..])?;
            cell.extend_from_slice(&first.to_be_bytes());
        }
        if LEAF_HEADER + 2 * (self.ends.len() + 1) + self.cells.len() + cell.len() > USABLE {
            self.flush_leaf(pager)?;
        }
        self.cells.extend_from_slice(&cell);
        self.ends.push(self.cells.len());
        self.last_rowid = rowid;
        self.cell = cell;
        Ok(())
    }

    fn flush_leaf<W: Write + Seek>(&mut self, pager: &mut Pager<W>) -> io::Result<()> {
        let mut page = blank();
        leaf_page(&mut page, 0, &self.cells, &self.ends);
        let n = pager.append(&page)?;
        self.cells.clear();
        self.ends.clear();
        push_entry(&mut self.levels, pager, 0, (n, self.last_rowid))
    }

    /// The tree's pages all written but the root, which must fit in `room` bytes (a page, or
    /// page 1 less the database header); when the top level does not, it is split in two
    /// under a new root.
    pub(crate) fn finish<W: Write + Seek>(mut self, pager: &mut Pager<W>, room: usize) -> io::Result<Root> {
        if self.levels.is_empty() {
            return self.leaf_root(pager, room);
        }
        self.flush_leaf(pager)?;
        let mut i = 0;
        loop {
            if i + 1 == self.levels.len() && self.levels[i].held.is_none() {
                let level = std::mem::take(&mut self.levels[i]);
                if INTERIOR_HEADER + level.bytes - interior_cell_len(level.entries[level.entries.len() - 1].1) <= room {
                    return Ok(Root::Interior(level.entries));
                }
                let (a, b) = level.entries.split_at(level.entries.len() / 2);
                return Ok(Root::Interior(vec![write_interior(pager, a)?, write_interior(pager, b)?]));
            }
            close_level(&mut self.levels, pager, i)?;
            i += 1;
        }
    }

    /// The root of a tree of one leaf: that leaf, or when it does not fit in `room`, its two
    /// halves under an interior root.
    fn leaf_root<W: Write + Seek>(self, pager: &mut Pager<W>, room: usize) -> io::Result<Root> {
        let n = self.ends.len();
        if LEAF_HEADER + 2 * n + self.cells.len() <= room {
            return Ok(Root::Leaf { cells: self.cells, ends: self.ends });
        }
        if n < 2 {
            return Err(io::Error::other("a single row larger than the first page's room"));
        }
        let half = n / 2;
        let cut = self.ends[half - 1];
        let last_left = if half >= 2 { self.ends[half - 2] } else { 0 };
        let left_key = rowid_of(&self.cells[last_left..])?;
        let mut page = blank();
        leaf_page(&mut page, 0, &self.cells[..cut], &self.ends[..half]);
        let left = pager.append(&page)?;
        page.fill(0);
        let right_ends: Vec<usize> = self.ends[half..].iter().map(|e| e - cut).collect();
        leaf_page(&mut page, 0, &self.cells[cut..], &right_ends);
        let right = pager.append(&page)?;
        Ok(Root::Interior(vec![(left, left_key), (right, self.last_rowid)]))
    }
}

/// The rowid of the leaf cell `cell` starts with (its payload length, then its rowid).
fn rowid_of(cell: &[u8]) -> io::Result<i64> {
    let skip = cell.iter().take(9).position(|b| b & 0x80 == 0).map_or(9, |p| p + 1);
    let mut v = 0u64;
    for (i, &b) in cell.iter().skip(skip).enumerate().take(9) {
        if i == 8 {
            return Ok(((v << 8) | u64::from(b)) as i64);
        }
        v = (v << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            return Ok(v as i64);
        }
    }
    Err(io::Error::other("a leaf cell without a rowid"))
}

/// The last pages of level `i` written, at finish: the held page and the one being filled
/// (with one of the held page's entries moved over when it would be left with one child),
/// each passed up to the level above.
fn close_level<W: Write + Seek>(levels: &mut Vec<Level>, pager: &mut Pager<W>, i: usize) -> io::Result<()> {
    let level = std::mem::take(&mut levels[i]);
    let mut entries = level.entries;
    if let Some(mut held) = level.held {
        if entries.len() < 2 {
            if let Some(moved) = held.pop() {
                entries.insert(0, moved);
            }
        }
        let up = write_interior(pager, &held)?;
        push_entry(levels, pager, i + 1, up)?;
    }
    let up = write_interior(pager, &entries)?;
    push_entry(levels, pager, i + 1, up)
}

/// Entry `e` added to level `i` (made when missing); a full page is held back, and the one
/// held before it written and passed up.
fn push_entry<W: Write + Seek>(levels: &mut Vec<Level>, pager: &mut Pager<W>, i: usize, e: (u32, i64)) -> io::Result<()> {
    if levels.len() == i {
        levels.push(Level::default());
    }
    let level = &mut levels[i];
    // With `e` as the right-most child, every entry before it becomes a cell.
    if !level.entries.is_empty() && INTERIOR_HEADER + level.bytes > USABLE {
        let full = std::mem::take(&mut level.entries);
        level.bytes = 0;
        if let Some(held) = level.held.replace(full) {
            let up = write_interior(pager, &held)?;
            push_entry(levels, pager, i + 1, up)?;
        }
    }
    let level = &mut levels[i];
    level.bytes += interior_cell_len(e.1);
    level.entries.push(e);
    Ok(())
}

/// An interior page of `entries` appended: its (page, largest rowid) for the level above.
fn write_interior<W: Write + Seek>(pager: &mut Pager<W>, entries: &[(u32, i64)]) -> io::Result<(u32, i64)> {
    let mut page = blank();
    interior_page(&mut page, 0, entries);
    let n = pager.append(&page)?;
    Ok((n, entries[entries.len() - 1].1))
}

/// `payload` on a chain of overflow pages, each starting with the next one's number (0 on
/// the last); the first one's number.
fn write_overflow<W: Write + Seek>(pager: &mut Pager<W>, payload: &[u8]) -> io::Result<u32> {
    let first = pager.upcoming();
    let mut page = blank();
    let chunks = payload.chunks(USABLE - 4);
    let count = chunks.len();
    for (i, chunk) in chunks.enumerate() {
        let next = if i + 1 == count { 0 } else { after(pager.upcoming()) };
        page.fill(0);
        page[..4].copy_from_slice(&next.to_be_bytes());
        page[4..4 + chunk.len()].copy_from_slice(chunk);
        pager.append(&page)?;
    }
    Ok(first)
}

/// A table leaf page at `at` (100 on page 1): the header, the cell pointers in rowid order,
/// the cells packed against the end of the page.
pub(crate) fn leaf_page(page: &mut [u8; PAGE_SIZE], at: usize, cells: &[u8], ends: &[usize]) {
    let mut top = USABLE;
    let mut start = 0;
    for (k, &end) in ends.iter().enumerate() {
        let cell = &cells[start..end];
        top -= cell.len();
        page[top..top + cell.len()].copy_from_slice(cell);
        put_u16(page, at + LEAF_HEADER + 2 * k, top);
        start = end;
    }
    page[at] = LEAF;
    put_u16(page, at + 3, ends.len());
    put_u16(page, at + 5, top);
}

/// A table interior page at `at`: a cell (left child, its largest rowid) for every entry but
/// the last, whose page is the right-most pointer.
pub(crate) fn interior_page(page: &mut [u8; PAGE_SIZE], at: usize, entries: &[(u32, i64)]) {
    let (last, cells) = entries.split_last().map_or((0, &[][..]), |(l, c)| (l.0, c));
    let mut top = USABLE;
    let mut cell = Vec::with_capacity(13);
    for (k, &(child, key)) in cells.iter().enumerate() {
        cell.clear();
        cell.extend_from_slice(&child.to_be_bytes());
        put_varint(&mut cell, key as u64);
        top -= cell.len();
        page[top..top + cell.len()].copy_from_slice(&cell);
        put_u16(page, at + INTERIOR_HEADER + 2 * k, top);
    }
    page[at] = INTERIOR;
    put_u16(page, at + 3, cells.len());
    put_u16(page, at + 5, top);
    page[at + 8..at + 12].copy_from_slice(&last.to_be_bytes());
}

fn put_u16(page: &mut [u8], at: usize, v: usize) {
    page[at..at + 2].copy_from_slice(&(v as u16).to_be_bytes());
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;

    fn u16_at(p: &[u8], at: usize) -> usize {
        usize::from(u16::from_be_bytes([p[at], p[at + 1]]))
    }

    fn u32_at(p: &[u8], at: usize) -> u32 {
        u32::from_be_bytes([p[at], p[at + 1], p[at + 2], p[at + 3]])
    }

    fn varint(p: &[u8], at: usize) -> (u64, usize) {
        let mut v = 0u64;
        for i in 0..8 {
            v = (v << 7) | u64::from(p[at + i] & 0x7f);
            if p[at + i] & 0x80 == 0 {
                return (v, at + i + 1);
            }
        }
        ((v << 8) | u64::from(p[at + 8]), at + 9)
    }

    /// A table b-tree read back as fileformat2 describes it, checking what SQLite's
    /// integrity check does: one depth for every leaf, keys in order and within their
    /// parents' bounds, no interior page without a cell. Each row's (rowid, payload), and
    /// the tree's depth.
    fn read(file: &[u8], page: u32, bound: (i64, i64), rows: &mut Vec<(i64, Vec<u8>)>) -> usize {
        let p = &file[(page as usize - 1) * PAGE_SIZE..page as usize * PAGE_SIZE];
        let n = u16_at(p, 3);
        if p[0] == LEAF {
            for k in 0..n {
                let (size, at) = varint(p, u16_at(p, LEAF_HEADER + 2 * k));
                let (rowid, at) = varint(p, at);
                let rowid = rowid as i64;
                assert!(rowid > bound.0 && rowid <= bound.1, "rowid {rowid} outside {bound:?}");
                let local = local_payload(size as usize);
                let mut payload = p[at..at + local].to_vec();
                let mut next = if local < size as usize { u32_at(p, at + local) } else { 0 };
                while next != 0 {
                    let o = &file[(next as usize - 1) * PAGE_SIZE..next as usize * PAGE_SIZE];
                    let take = (size as usize - payload.len()).min(USABLE - 4);
                    payload.extend_from_slice(&o[4..4 + take]);
                    next = u32_at(o, 0);
                }
                assert_eq!(payload.len(), size as usize);
                rows.push((rowid, payload));
            }
            return 1;
        }
        assert_eq!(p[0], INTERIOR);
        assert!(n >= 1, "an interior page without a cell");
        let mut low = bound.0;
        let mut depths = Vec::new();
        for k in 0..n {
            let at = u16_at(p, INTERIOR_HEADER + 2 * k);
            let (key, _) = varint(p, at + 4);
            depths.push(read(file, u32_at(p, at), (low, key as i64), rows));
            low = key as i64;
        }
        depths.push(read(file, u32_at(p, 8), (low, bound.1), rows));
        assert!(depths.iter().all(|d| *d == depths[0]), "leaves at different depths: {depths:?}");
        depths[0] + 1
    }

    fn build(n: i64, size: impl Fn(i64) -> usize) -> (Vec<(i64, Vec<u8>)>, usize) {
        build_in(n, size, PAGE_SIZE)
    }

    /// `n` rows, the k-th `size(k)` bytes, built into a tree whose root has `room` bytes:
    /// the rows read back, and the tree's depth.
    fn build_in(n: i64, size: impl Fn(i64) -> usize, room: usize) -> (Vec<(i64, Vec<u8>)>, usize) {
        let mut pager = Pager::new(Cursor::new(Vec::new())).unwrap();
        let mut tree = Tree::new();
        let row = |k: i64| (0..size(k)).map(|i| (i as i64 * 31 + k) as u8).collect::<Vec<u8>>();
        for k in 1..=n {
            tree.push(&mut pager, k, &row(k)).unwrap();
        }
        let root = tree.finish(&mut pager, room).unwrap();
        let mut page = blank();
        match &root {
            Root::Leaf { cells, ends } => leaf_page(&mut page, 0, cells, ends),
            Root::Interior(entries) => interior_page(&mut page, 0, entries),
        }
        let at = pager.append(&page).unwrap();
        let file = pager.finish(&blank()).unwrap().into_inner();
        let mut rows = Vec::new();
        let depth = read(&file, at, (0, i64::MAX), &mut rows);
        assert_eq!(rows.len() as i64, n);
        for (k, (rowid, payload)) in rows.iter().enumerate() {
            assert_eq!((*rowid, payload), (k as i64 + 1, &row(k as i64 + 1)), "row {}", k + 1);
        }
        (rows, depth)
    }

    #[test]
    fn trees_of_every_depth_read_back_in_order() {
        assert_eq!(build(0, |_| 1).1, 1);
        assert_eq!(build(3, |_| 10).1, 1);
        assert_eq!(build(2_000, |_| 10).1, 2);
        // Three levels: leaves of ~250 rows under pages of ~450 children, and trees ending
        // at every remainder near a page's end.
        assert_eq!(build(250_000, |_| 10).1, 3);
        // A row a leaf, and an interior page holds 527 of them (cells of 7 bytes up to key
        // 127, 8 after): the leaves' level ends around a full page, a lone last child among
        // them (moved beside one of the page before).
        for n in 520..=535 {
            assert_eq!(build(n, |_| 4000).1, if n <= 527 { 2 } else { 3 }, "{n}");
        }
    }

    #[test]
    fn a_root_too_big_for_page_1_is_split_under_a_new_one() {
        let room = PAGE_SIZE - HEADER_BYTES;
        // 520 leaves fit one interior page but not page 1; three rows one leaf but not page 1.
        assert_eq!((build(520, |_| 4000).1, build_in(520, |_| 4000, room).1), (2, 3));
        assert_eq!((build(3, |_| 1340).1, build_in(3, |_| 1340, room).1), (1, 2));
    }

    #[test]
    fn long_rows_go_to_overflow_chains() {
        let (rows, _) = build(40, |k| [0, 1, 4061, 4062, 4100, 8000, 20_000, 100_003][k as usize % 8]);
        assert_eq!(rows[6].1.len(), 100_003);
    }

    /// A writer that keeps nothing, for files too large to hold.
    struct Sink(u64);

    impl Write for Sink {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0 += b.len() as u64;
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Seek for Sink {
        fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
            Ok(if let SeekFrom::Start(n) = to { n } else { self.0 })
        }
    }

    #[test]
    fn the_lock_page_at_one_gibibyte_is_never_used() {
        let mut pager = Pager::new(Sink(0)).unwrap();
        let page = blank();
        let mut numbers = Vec::new();
        while pager.pages() < PENDING_PAGE + 2 {
            let expect = pager.upcoming();
            let n = pager.append(&page).unwrap();
            assert_eq!(n, expect);
            numbers.push(n);
        }
        assert!(!numbers.contains(&PENDING_PAGE) && numbers.contains(&(PENDING_PAGE + 1)));
        assert_eq!(pager.out.0, u64::from(pager.pages()) * PAGE_SIZE as u64);
    }
}
