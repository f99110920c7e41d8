//! no_std probe: calls into netoffload from a crate with its own panic handler.
#![no_std]

use core::panic::PanicInfo;

use netoffload::csum::{self, Wsum};
use netoffload::wire::{self, LinkType};

/// Entry point a C caller would use; keeps the calls from being optimised out.
#[unsafe(no_mangle)]
pub extern "C" fn probe_checksum(ptr: *const u8, len: usize) -> u16 {
    if ptr.is_null() {
        return 0;
    }
    // SAFETY: the C caller promises `ptr` points to `len` readable bytes.
    let bytes = unsafe { core::slice::from_raw_parts(ptr, len) };
    let parsed = wire::parse(bytes, LinkType::Ethernet).map(|l| l.l4).unwrap_or(0);
    csum::fold(csum::partial(bytes, Wsum::new(parsed as u32))).to_be_u16()
        ^ (csum::crc32c(bytes) as u16)
}

#[panic_handler]
fn panic(_info: &PanicInfo) -> ! {
    loop {}
}
