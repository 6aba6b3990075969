//! The process's allocator: mimalloc, asked through its plain entry points (how long it keeps
//! what is freed is set per stage: `hindsight::memory`).

// Parsing JSON makes and frees millions of small strings and maps; mimalloc cut the evaluate
// and convert stages' allocator time by measurement (BENCHMARKS.md).
#[global_allocator]
static ALLOC: Mimalloc = Mimalloc;

// The `mimalloc` crate links the allocator; its `MiMalloc` asks for every block through
// `mi_malloc_aligned`, whose extra path cost ~2% of evaluate's instructions (callgrind,
// `bench/instructions.sh`) over the plain `mi_malloc` most blocks can use.
extern crate mimalloc;

extern "C" {
    fn mi_malloc(size: usize) -> *mut std::ffi::c_void;
    fn mi_zalloc(size: usize) -> *mut std::ffi::c_void;
    fn mi_realloc(p: *mut std::ffi::c_void, size: usize) -> *mut std::ffi::c_void;
    fn mi_malloc_aligned(size: usize, alignment: usize) -> *mut std::ffi::c_void;
    fn mi_zalloc_aligned(size: usize, alignment: usize) -> *mut std::ffi::c_void;
    fn mi_realloc_aligned(p: *mut std::ffi::c_void, size: usize, alignment: usize) -> *mut std::ffi::c_void;
    fn mi_free(p: *mut std::ffi::c_void);
}

/// mimalloc, through its plain entry points for alignments every block of it has: a block is
/// at least word-aligned (mimalloc's own `mi_realloc_aligned` relies on the same), and most
/// of Rust's allocations (strings, vectors of words) ask no more.
struct Mimalloc;

const WORD: usize = std::mem::size_of::<usize>();

// SAFETY: each call passes the layout's size (and, where a block's own alignment may not do,
// its alignment) to mimalloc, and frees with mimalloc what mimalloc gave.
unsafe impl std::alloc::GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        match layout.align() <= WORD {
            true => unsafe { mi_malloc(layout.size()) as *mut u8 },
            false => unsafe { mi_malloc_aligned(layout.size(), layout.align()) as *mut u8 },
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        match layout.align() <= WORD {
            true => unsafe { mi_zalloc(layout.size()) as *mut u8 },
            false => unsafe { mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8 },
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: std::alloc::Layout) {
        unsafe { mi_free(ptr as *mut std::ffi::c_void) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        match layout.align() <= WORD {
            true => unsafe { mi_realloc(ptr as *mut std::ffi::c_void, new_size) as *mut u8 },
            false => unsafe { mi_realloc_aligned(ptr as *mut std::ffi::c_void, new_size, layout.align()) as *mut u8 },
        }
    }
}
