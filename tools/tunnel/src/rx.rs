//! UDP -> TUN: recvmmsg -> GRO (software verification on: the underlay is
//! not trusted) -> super-packet + library-built virtio header -> TUN write.

use std::os::fd::RawFd;
use std::sync::Arc;

use netoffload::gro::{
    Disposition, FlushReason, GroConfig, GroKinds, SoftwareVerify, SuperPacket, VirtioWriteError,
};
use netoffload::state::CsumMeta;
use netoffload::state::paravirt::virtio::{GuestFrame, HdrLayout, PeerFeatures, VirtioNetHdr};
use netoffload::wire::LinkType;

use crate::counters::Counters;
use crate::sys::{self, RecvBatch};

type Gro = netoffload::gro::Gro<64>;

pub struct RxPath {
    pub tun: RawFd,
    pub sock: RawFd,
    pub vnet: bool,
    pub uso: bool,
    pub counters: Arc<Counters>,
}

const LAYOUT: HdrLayout = HdrLayout::Legacy;
const BATCH: usize = 64;

impl RxPath {
    pub fn run(self) {
        let mut batch = RecvBatch::new(BATCH, 2048);
        let mut kinds = GroKinds::TCP4 | GroKinds::TCP6;
        if self.uso {
            kinds |= GroKinds::UDP;
        }
        let cfg = GroConfig {
            link: LinkType::RawIp,
            software_verify: SoftwareVerify::On,
            kinds,
            ..GroConfig::new()
        };
        let mut gro: Box<Gro> = Box::new(Gro::new(cfg));
        let mut out = vec![0u8; 65536 + 64];
        let mut last_stats = gro.stats();
        loop {
            let n = match batch.recv(self.sock) {
                Ok(n) => n,
                Err(e) => {
                    self.counters.reason(format!("recv_err_{:?}", e.kind()));
                    continue;
                }
            };
            Counters::add(&self.counters.udp_recv, n as u64);
            if !self.vnet {
                for i in 0..n {
                    if let Some(f) = batch.frame(i) {
                        self.write(&[f], 1);
                    }
                }
                continue;
            }
            let batch = &batch;
            // The sink runs inside `receive`/`flush_all`: it writes each
            // flushed super-packet at once, while the batch's frames are alive.
            let mut sink = |sp: &SuperPacket| self.write_super(sp, batch, &mut out);
            for i in 0..n {
                let Some(frame) = batch.frame(i) else {
                    continue;
                };
                match gro.receive(frame, i as u32, CsumMeta::NONE, 0, &mut sink) {
                    Disposition::Held(_) => {}
                    Disposition::PassUp { reason, meta } => {
                        self.counters.reason(format!("pass_up_{}", reason.name()));
                        if reason == FlushReason::BadChecksum {
                            Counters::add(&self.counters.gro_csum_bad, 1);
                        }
                        // Alone, after the super-packets this call flushed.
                        self.write_single(frame, meta);
                    }
                }
            }
            // Every held frame lives in `batch`: flush before it is reused.
            gro.flush_all(&mut sink);
            let s = gro.stats();
            Counters::add(
                &self.counters.gro_sw_bytes,
                s.sw_bytes - last_stats.sw_bytes,
            );
            last_stats = s;
        }
    }

    /// A super-packet: one TUN write with a GSO header, or (when virtio cannot
    /// say it) its frames one by one.
    fn write_super(&self, sp: &SuperPacket, batch: &RecvBatch, out: &mut [u8]) {
        let frame_of = |id: u32| batch.frame(id as usize);
        match sp.write_virtio_into(LAYOUT, PeerFeatures::default(), out, frame_of) {
            Ok(len) => self.write(&[&out[..len]], sp.seg_count() as u64),
            Err(VirtioWriteError::Write(_)) => self.counters.reason("drop_gro_write"),
            Err(VirtioWriteError::Header(e)) => {
                self.counters
                    .reason(format!("gro_unsplit_{e:?}").replace(' ', ""));
                for s in sp.segments() {
                    if let Some(f) = frame_of(s.id) {
                        self.write_single(f, CsumMeta::NONE);
                    }
                }
            }
        }
    }

    /// One frame as it came, with the header its metadata gives (nothing to
    /// do for the kernel but verify: a bad checksum is its to count and drop).
    fn write_single(&self, frame: &[u8], meta: CsumMeta) {
        let hdr =
            VirtioNetHdr::from_meta(meta, GuestFrame::default(), None, PeerFeatures::default())
                .unwrap_or(VirtioNetHdr::ZERO);
        let mut h = [0u8; 10];
        if hdr.write(LAYOUT, &mut h).is_err() {
            return;
        }
        self.write(&[&h, frame], 1);
    }

    fn write(&self, parts: &[&[u8]], segs: u64) {
        match sys::writev(self.tun, parts) {
            Ok(_) => {
                Counters::add(&self.counters.tun_writes, 1);
                Counters::add(&self.counters.tun_write_segs, segs);
            }
            Err(e) => self
                .counters
                .reason(format!("tun_write_err_{}", e.raw_os_error().unwrap_or(0))),
        }
    }
}
