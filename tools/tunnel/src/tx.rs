//! TUN -> UDP: virtio header -> metadata -> decide -> segment -> UDP GSO.

use std::os::fd::RawFd;
use std::sync::Arc;

use netoffload::state::paravirt::virtio::{GsoOutcome, HdrLayout, VirtioNetHdr, VirtioPolicy};
use netoffload::tx::{
    self, Device, Features, GsoInfo, SegmentCsum, StrideLimits, TxAction, segment_into,
};
use netoffload::wire::{self, LinkType};

use crate::counters::Counters;
use crate::sys;

pub struct TxPath {
    pub tun: RawFd,
    pub sock: RawFd,
    pub vnet: bool,
    pub udp_gso: bool,
    pub limits: StrideLimits,
    pub corrupt_every: u64,
    pub counters: Arc<Counters>,
}

const LAYOUT: HdrLayout = HdrLayout::Legacy;

impl TxPath {
    pub fn run(mut self) {
        let mut rbuf = vec![0u8; 65536 + 64];
        let mut sbuf = vec![0u8; 2 * 65536];
        // The underlay socket offloads nothing: every checksum is finished here.
        let dev = Device::new(Features::empty());
        let mut seg_no = 0u64;
        loop {
            let n = match sys::read(self.tun, &mut rbuf) {
                Ok(n) => n,
                Err(e) => {
                    self.counters.reason(format!("tun_read_err_{:?}", e.kind()));
                    continue;
                }
            };
            Counters::add(&self.counters.tun_reads, 1);
            let frame = &mut rbuf[..n];
            if !self.vnet {
                self.plain(frame, &mut seg_no);
                continue;
            }
            let Ok((hdr, _)) = VirtioNetHdr::parse(frame, LAYOUT) else {
                self.counters.reason("drop_short_vnet_hdr");
                continue;
            };
            let pkt = &mut frame[LAYOUT.len()..];
            let inbound = match hdr.to_meta(pkt, &VirtioPolicy::TUN_READ) {
                Ok(i) => i,
                Err(e) => {
                    self.counters.reason(format!("drop_vnet_{:?}", e.field));
                    continue;
                }
            };
            // The layers to_meta parsed (no second parse).
            let Some(layers) = inbound.layers else {
                self.counters.reason("drop_unparsed");
                continue;
            };
            let gso = match inbound.gso {
                GsoOutcome::Segment(p) => match GsoInfo::from_virtio(&p) {
                    Some(g) => Some(g),
                    None => {
                        self.counters.reason("drop_ufo");
                        continue;
                    }
                },
                _ => None,
            };
            let meta = inbound.meta;
            let action = match tx::decide(&meta, &layers, gso, &dev) {
                Ok(a) => a,
                Err(e) => {
                    self.counters
                        .reason(format!("drop_decide_{e:?}").replace(' ', ""));
                    continue;
                }
            };
            match action {
                TxAction::Segment { gso, .. } => {
                    let plan = match tx::plan(pkt, &layers, gso, SegmentCsum::Compute) {
                        Ok(p) => p,
                        Err(_) => {
                            self.counters.reason("drop_plan");
                            continue;
                        }
                    };
                    Counters::add(&self.counters.tun_read_segs, plan.count() as u64);
                    let mut next = 0;
                    while next < plan.count() {
                        let limits = if self.udp_gso {
                            self.limits
                        } else {
                            StrideLimits::NONE
                        };
                        let packed = match segment_into(pkt, &plan, next, &mut sbuf, limits) {
                            Ok(p) => p,
                            Err(_) => {
                                self.counters.reason("drop_segment");
                                break;
                            }
                        };
                        let hdr_len = plan.header_len();
                        for i in 0..packed.count {
                            if let Some(r) = packed.range_of(i) {
                                corrupt(
                                    &mut sbuf[r],
                                    hdr_len,
                                    self.corrupt_every,
                                    &mut seg_no,
                                    &self.counters,
                                );
                            }
                        }
                        self.send_packed(&sbuf[..packed.len], &packed);
                        next = packed.next();
                    }
                }
                TxAction::FillSoftware(_) => {
                    if tx::fill_software(pkt, &layers, meta, &action).is_err() {
                        self.counters.reason("drop_fill");
                        continue;
                    }
                    self.send_one(pkt, layers.payload, &mut seg_no);
                }
                TxAction::AlreadyComplete { .. } => self.send_one(pkt, layers.payload, &mut seg_no),
                TxAction::Offload { .. } | TxAction::CrcOffload { .. } => {
                    // Not with an empty feature set; never forward a blank field.
                    self.counters.reason("drop_unexpected_offload");
                }
            }
        }
    }

    fn plain(&self, frame: &mut [u8], seg_no: &mut u64) {
        let hdr_len = if self.corrupt_every > 0 {
            wire::parse(frame, LinkType::RawIp)
                .map(|l| l.payload)
                .unwrap_or(frame.len())
        } else {
            frame.len()
        };
        self.send_one(frame, hdr_len, seg_no);
    }

    fn send_one(&self, pkt: &mut [u8], hdr_len: usize, seg_no: &mut u64) {
        Counters::add(&self.counters.tun_read_segs, 1);
        corrupt(pkt, hdr_len, self.corrupt_every, seg_no, &self.counters);
        match sys::send(self.sock, pkt) {
            Ok(_) => {
                Counters::add(&self.counters.udp_sends, 1);
                Counters::add(&self.counters.udp_dgrams, 1);
            }
            Err(e) => self.counters.reason(format!("send_err_{:?}", e.kind())),
        }
    }

    fn send_packed(&mut self, buf: &[u8], packed: &tx::Packed) {
        if packed.count == 1 {
            let _ = sys::send(self.sock, buf)
                .map_err(|e| self.counters.reason(format!("send_err_{:?}", e.kind())));
        } else if let (true, Ok(stride)) = (self.udp_gso, u16::try_from(packed.stride)) {
            match sys::send_gso(self.sock, buf, stride) {
                Ok(_) => {}
                Err(e)
                    if e.raw_os_error() == Some(libc::EIO)
                        || e.raw_os_error() == Some(libc::EINVAL) =>
                {
                    // No UDP GSO on this path: fall back for good.
                    self.counters.reason("udp_gso_fallback");
                    self.udp_gso = false;
                    self.send_many(buf, packed);
                    return;
                }
                Err(e) => {
                    self.counters.reason(format!("send_err_{:?}", e.kind()));
                    return;
                }
            }
        } else {
            self.send_many(buf, packed);
            return;
        }
        Counters::add(&self.counters.udp_sends, 1);
        Counters::add(&self.counters.udp_dgrams, packed.count as u64);
    }

    fn send_many(&self, buf: &[u8], packed: &tx::Packed) {
        let dgrams: Vec<&[u8]> = (0..packed.count)
            .filter_map(|i| packed.range_of(i).map(|r| &buf[r]))
            .collect();
        match sys::send_many(self.sock, &dgrams) {
            Ok(n) => {
                Counters::add(&self.counters.udp_sends, 1);
                Counters::add(&self.counters.udp_dgrams, n as u64);
            }
            Err(e) => self.counters.reason(format!("send_err_{:?}", e.kind())),
        }
    }
}

/// The corruption control: flips the last payload byte of every
/// `every`-th segment that has payload (after its checksum was computed).
fn corrupt(seg: &mut [u8], hdr_len: usize, every: u64, seg_no: &mut u64, c: &Counters) {
    if every == 0 || seg.len() <= hdr_len {
        return;
    }
    *seg_no += 1;
    if (*seg_no).is_multiple_of(every)
        && let Some(b) = seg.last_mut()
    {
        *b ^= 0x5a;
        Counters::add(&c.corrupted, 1);
    }
}
