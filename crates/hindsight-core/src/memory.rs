//! How long memory the process freed stays with it: mimalloc's purge delay, chosen per stage.
//!
//! Evaluate frees one chunk's indexes and builds the next every second or so, and paid each
//! return of that memory again as page faults: it keeps what it frees (system time at a
//! million outputs 1.8 -> 1.2 s, for a peak 35-170 MiB higher, when this was chosen). Convert's
//! phases (read, merge, derived tables) each free what the one before held on other threads;
//! kept, that was ~3x its live heap at a million outputs (1.1 GiB resident for a 360 MiB
//! heap, heaptrack). Memory free for a second goes back: 0.91 GiB, for ~7% more wall time
//! (BENCHMARKS.md, "Memory a stage frees"). `MIMALLOC_PURGE_DELAY` in the environment
//! overrides both.

/// What a stage does with the memory it frees.
#[derive(Clone, Copy, Debug)]
pub enum Retention {
    /// Kept for the next allocation, never given back.
    Keep,
    /// Given back to the system once it has been free this long (milliseconds).
    ReturnAfter(i64),
}

/// Convert's retention: a phase's memory goes back once the next phase has started.
pub const CONVERT: Retention = Retention::ReturnAfter(1000);
/// Evaluate's retention.
pub const EVALUATE: Retention = Retention::Keep;
/// Evaluate's retention when it judges a band of repositories at a time: kept, what each
/// band's threads freed crept up band after band (0.96 -> 1.53 GiB over 15 bands at 930k
/// AIDev PRs, for ~0.55 GiB live); given back after a second, the peak stays near 1 GiB and
/// the stage was no slower. What is free for up to a second still grows with threads (at
/// 1M synthetic outputs 540 MB at one thread, 775 MB at sixteen on two cores); after 100
/// ms it was 489 and 579 MB, but evaluate took 15% longer at one and two threads (100k
/// outputs: the memory faulted in again), so a second it stays.
pub const EVALUATE_BANDS: Retention = Retention::ReturnAfter(1000);

// Option numbers of the vendored mimalloc.h (v3). The `mimalloc` crate binds them only with a
// feature whose dependencies are not vendored here.
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;
const MI_OPTION_ARENA_PURGE_MULT: std::ffi::c_int = 24;

// The allocator's C library is linked wherever this module is, tests included.
use mimalloc as _;

extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    fn mi_collect(force: bool);
}

/// Give back to the system now what the process has freed and still holds. Called before
/// a stage that keeps what it frees ([`EVALUATE`]): what the stage before it freed (an AIDev
/// import's, hundreds of MB at 300k PRs) would otherwise stay with the process throughout.
pub fn give_back() {
    // SAFETY: a plain C call into the linked allocator.
    unsafe { mi_collect(true) }
}

/// Apply `r` from now on (it does not matter which allocator the binary uses: a binary
/// without mimalloc as its allocator only sets a number nobody reads).
pub fn retain(r: Retention) {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    let delay = match r {
        Retention::Keep => -1,
        Retention::ReturnAfter(ms) => ms,
    };
    // SAFETY: plain C calls into the linked allocator; each sets one number.
    unsafe {
        mi_option_set(MI_OPTION_PURGE_DELAY, delay);
        // Arenas wait the same delay (mimalloc's default waits ten times longer there).
        mi_option_set(MI_OPTION_ARENA_PURGE_MULT, 1);
    }
}
