//! The DPDK GRO peer in this process (`dpdk_peer.c`, built by `dev/build.rs`
//! where DPDK is installed): its cells one pass at a time, so
//! `benches/gro_dpdk.rs` can alternate its passes with ours.
//!
//! Why: on a shared VM the machine's speed drifts over tens of milliseconds,
//! so two engines timed one after the other (a process each) differ by the
//! drift; passes alternated pair by pair see the same machine.
use std::ffi::{CString, c_char, c_int};

#[repr(C)]
struct RawCell {
    _opaque: [u8; 0],
}

unsafe extern "C" {
    fn peer_init(argc: c_int, argv: *mut *mut c_char) -> c_int;
    fn peer_cell_new(
        kind: c_int,
        flows: u32,
        mode: c_int,
        hash: *mut u64,
        out: *mut u32,
        groups: *mut u64,
    ) -> *mut RawCell;
    fn peer_cell_pass(c: *mut RawCell) -> u32;
    fn peer_cell_reset(c: *mut RawCell);
    fn peer_cell_free(c: *mut RawCell) -> u64;
}

/// Starts DPDK's EAL with `eal_args` (as the peer's binary is started) and
/// creates the peer's mbuf pool. Once per process.
pub fn init(eal_args: &[String]) -> Result<(), String> {
    let args: Vec<&str> = ["gro_dpdk"]
        .into_iter()
        .chain(eal_args.iter().map(String::as_str))
        .collect();
    let owned: Vec<CString> = args
        .iter()
        .map(|a| CString::new(*a).expect("no NUL"))
        .collect();
    // rte_eal_init may permute argv: give it pointers of its own, which,
    // like the strings, live to the end of the process (EAL keeps them).
    let ptrs: &'static mut [*mut c_char] = Vec::leak(
        owned
            .into_iter()
            .map(|s| s.into_raw())
            .chain([std::ptr::null_mut()])
            .collect(),
    );
    // SAFETY: argc NUL-terminated strings and a trailing null pointer, all
    // leaked so they outlive EAL; called once, from the bench's one thread.
    let rc = unsafe { peer_init(args.len() as c_int, ptrs.as_mut_ptr()) };
    if rc == 0 {
        Ok(())
    } else {
        Err("rte_eal_init or the mbuf pool failed".into())
    }
}

/// One of the peer's cells: its stream in mbufs, checked by a first pass.
pub struct PeerCell {
    raw: *mut RawCell,
    /// FNV-1a 64 of the stream as built (the dump's hash).
    pub hash: u64,
    /// Outputs per pass.
    pub out: u32,
    /// The grouping signature of the first pass.
    pub groups: u64,
}

impl PeerCell {
    /// The peer's cell `kind` ("tcp4" / "vxlan"), `flows`, `mode`
    /// ("unnecessary" / "verify"); `None` when the peer's checks fail.
    pub fn new(kind: &str, flows: u32, mode: &str) -> Option<PeerCell> {
        let kind = c_int::from(kind == "vxlan");
        let mode = c_int::from(mode == "verify");
        let (mut hash, mut out, mut groups) = (0, 0, 0);
        // SAFETY: `init` succeeded before (callers hold its Ok); the three
        // out-pointers are valid for writes.
        let raw = unsafe { peer_cell_new(kind, flows, mode, &mut hash, &mut out, &mut groups) };
        (!raw.is_null()).then_some(PeerCell {
            raw,
            hash,
            out,
            groups,
        })
    }

    /// One pass of `rte_gro_reassemble_burst` over the stream (the timed
    /// part); its outputs, or `None` when a checksum failed.
    pub fn pass(&mut self) -> Option<u32> {
        // SAFETY: `raw` came from `peer_cell_new` and is freed only in Drop.
        let out = unsafe { peer_cell_pass(self.raw) };
        (out != u32::MAX).then_some(out)
    }

    /// Restores the frames' headers after a pass (untimed, as the peer does).
    pub fn reset(&mut self) {
        // SAFETY: as in `pass`.
        unsafe { peer_cell_reset(self.raw) }
    }
}

impl Drop for PeerCell {
    fn drop(&mut self) {
        // SAFETY: as in `pass`; `raw` is not used after this.
        let h = unsafe { peer_cell_free(self.raw) };
        assert_eq!(h, self.hash, "the peer's stream changed across its passes");
    }
}
