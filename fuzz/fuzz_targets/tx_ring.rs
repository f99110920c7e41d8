//! Random transmit workloads on `tx::TxRing` beside an independent model of a
//! Linux driver's ring (`tests/support/tx/ring_model.rs`, shared with the
//! `ring_matches_linux_model` property test). Checked after every operation:
//! the ring and the model agree; nothing in flight beyond the ring less the
//! 2-descriptor gap; no packet lost or reordered; a running queue has room for
//! a worst-case packet; a stopped queue has something in flight; one doorbell
//! per batch; a refused batch (a foreign `Prepared`) changes nothing; at the
//! end every packet goes out.
//!
//! Input: 4 configuration bytes, then operations.
//! - `[0]` ring size: 16, 64 or 256 slots (modulo 3).
//! - `[1]` fragment limit: below 240 as is, else an absurd one near
//!   `usize::MAX / 2` or `usize::MAX`.
//! - `[2]` bit 0: own wake threshold `[3]`, else the default.
//! - Operations, one tag byte each (modulo 3): enqueue (count byte, then 3
//!   bytes a packet: fragments, context, foreign limit when bit 7 is set),
//!   xmit (batch length byte), complete (budget byte, 255 = all).
#![no_main]

#[path = "../../tests/support/tx/ring_model.rs"]
mod ring_model;

use libfuzzer_sys::fuzz_target;
use ring_model::{Op, PktSpec};

fn max_frags(b: u8) -> usize {
    match b {
        0..240 => b as usize,
        240..248 => usize::MAX / 2 - 4 + (b - 240) as usize,
        _ => usize::MAX - (b - 248) as usize,
    }
}

fn take(d: &mut &[u8]) -> Option<u8> {
    let (&b, rest) = d.split_first()?;
    *d = rest;
    Some(b)
}

fn ops(mut data: &[u8]) -> Vec<Op> {
    let mut out = Vec::new();
    while let Some(tag) = take(&mut data) {
        let Some(arg) = take(&mut data) else { break };
        match tag % 3 {
            0 => {
                let mut specs = Vec::new();
                for _ in 0..=(arg % 32) {
                    let (Some(frags), Some(ctx), Some(f)) =
                        (take(&mut data), take(&mut data), take(&mut data))
                    else {
                        break;
                    };
                    specs.push(PktSpec {
                        frags: frags as usize,
                        ctx,
                        foreign: (f & 0x80 != 0).then_some((f & 0x3F) as usize),
                    });
                }
                out.push(Op::Enqueue(specs));
            }
            1 => out.push(Op::Xmit(arg as usize)),
            _ => {
                let n = if arg == 255 { usize::MAX } else { arg as usize };
                out.push(Op::Complete(n));
            }
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let [size, frags, flags, wake, rest @ ..] = data else {
        return;
    };
    let wake = (flags & 1 != 0).then_some(*wake as usize);
    let ops = ops(rest);
    let r = match size % 3 {
        0 => ring_model::run::<16>(max_frags(*frags), wake, &ops),
        1 => ring_model::run::<64>(max_frags(*frags), wake, &ops),
        _ => ring_model::run::<256>(max_frags(*frags), wake, &ops),
    };
    if let Err(e) = r {
        panic!("{e}");
    }
});
