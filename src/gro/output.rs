//! What leaves the engine: the disposition of the packet just received, and
//! super-packet descriptors for flushed flows.

use core::fmt;

use super::config::MAX_HEADER;
use super::expect::Expect;
use super::flow::TCP_CWR;
use super::layout::{Fixed, RAW_TCP4, TCP4, TCP6, TCP6_HDR, VXLAN4, VXLAN4_HDR};
use super::parse::{Encap, L4, Parsed, be16};
use super::reason::FlushReason;
use super::segs::SegList;
use crate::csum::{self, Sum16, Wsum};
use crate::state::{CsumFlags, CsumMeta, CsumState, PartialKind};
use crate::wire::consts::ipproto;
use crate::wire::{GsoType, gre, ipv4, ipv6, tcp, udp};

impl core::error::Error for WriteError {}

/// How a held packet was kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Held {
    /// Appended to a held super-packet of its flow (possibly flushed at once,
    /// e.g. after PSH: the flushed super-packet then contains it).
    Merged,
    /// Started a new held flow.
    NewFlow,
}

/// What the engine did with one received packet: holds it, or passes it up
/// (Linux `dev_gro_receive`'s `GRO_MERGED*`, `GRO_HELD`, `GRO_NORMAL`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[must_use]
pub enum Disposition {
    /// The engine holds the packet; it will leave inside a super-packet.
    Held(Held),
    /// Deliver the packet now, alone, after any super-packets this call
    /// flushed. `meta` is the packet's metadata, upgraded if this pass verified
    /// its checksums in software (`skb_gro_incr_csum_unnecessary`).
    PassUp {
        /// Why it did not join a super-packet.
        reason: FlushReason,
        /// The packet's checksum metadata.
        meta: CsumMeta,
    },
}

/// One coalesced segment: its packet id and where its payload sits in that
/// packet's frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, zerocopy::FromZeros)]
pub struct Segment {
    /// The caller's opaque packet id.
    pub id: u32,
    /// Offset of the first payload byte in the packet's frame.
    pub start: u16,
    /// Payload length.
    pub len: u16,
}

impl Segment {
    /// The payload range in the packet's frame.
    pub const fn range(&self) -> core::ops::Range<usize> {
        self.start as usize..self.start as usize + self.len as usize
    }
}

/// The IPv4 ID mode of one IP layer of a flow, decided by its second segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, zerocopy::FromZeros)]
#[repr(u8)]
pub enum IdMode {
    /// Only one segment so far (or IPv6).
    #[default]
    Undecided,
    /// The ID increases by one per segment.
    Incrementing,
    /// The ID stays the same (`ip_fixedid`).
    Fixed,
}

/// Why [`SuperPacket::write_into`] could not write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WriteError {
    /// The buffer is shorter than [`SuperPacket::len`].
    BufferTooSmall {
        /// Bytes needed.
        needed: usize,
        /// Bytes available.
        available: usize,
    },
    /// `payload_of` had no frame for this id, or the frame is shorter than the
    /// recorded payload range.
    MissingPayload {
        /// The packet id.
        id: u32,
    },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::BufferTooSmall { needed, available } => {
                write!(f, "buffer too small: need {needed} bytes, have {available}")
            }
            WriteError::MissingPayload { id } => write!(f, "no payload bytes for packet id {id}"),
        }
    }
}

/// A held flow and, once flushed, the descriptor of its super-packet.
///
/// Keeps the first packet's header bytes, the ids and payload ranges of every
/// segment, and the merge state (`NAPI_GRO_CB(p)`: count, `ip_fixedid`, ...).
/// When handed to the caller it is final: header bytes rewritten as the
/// `*_gro_complete` chain leaves them.
#[derive(Clone, Debug)]
// `repr(C)`: fields in this order, so what every merge touches (prediction,
// identity, counters) shares the first cache lines of a flow, then the
// segment list, then the header bytes (read at insert and at completion).
#[repr(C)]
#[derive(zerocopy::FromZeros)]
pub struct SuperPacket {
    /// The next full-size segment's header, predicted (fixed layouts only).
    pub(crate) exp: Expect,
    pub(crate) hash: u32,
    pub(crate) next: u16,
    /// The slot the frame after this flow's latest frame joined (a guess for
    /// the next time, see `Gro::guessed`).
    pub(crate) succ: u16,
    /// The flow has the fixed Ethernet + IPv4 (no options) + TCP layout.
    pub(crate) tcp4: bool,
    /// The flow has the fixed IPv4 / VXLAN / IPv4 / TCP layout.
    pub(crate) vx4: bool,
    /// The flow has the fixed raw IPv4 (no options) + TCP layout.
    pub(crate) raw4: bool,
    /// The flow has the fixed Ethernet + IPv6 (no extension headers) + TCP layout.
    pub(crate) tcp6: bool,
    /// IPv4 ID mode, per IP layer.
    pub(crate) id_mode: [IdMode; 2],
    /// Payload length of the first segment (`gso_size`).
    pub(crate) mss: u16,
    /// IPv4 ID of the first segment, per IP layer.
    pub(crate) ids: [u16; 2],
    /// FIN / PSH bits of merged segments (ORed into the header at completion).
    pub(crate) fin_psh: u8,
    pub(crate) reason: FlushReason,
    /// Bytes the outermost IP datagram may still grow by under the size
    /// limit (`gro_max_size` minus its length so far).
    pub(crate) room: u32,
    /// Payload bytes so far.
    pub(crate) payload: u32,
    /// TCP sequence of the first segment.
    pub(crate) seq: u32,
    pub(crate) p: Parsed,
    pub(crate) older: u16,
    pub(crate) newer: u16,
    pub(crate) gso: GsoType,
    pub(crate) born: u64,
    pub(crate) first_state: CsumState,
    pub(crate) first_flags: CsumFlags,
    pub(crate) segs: SegList,
    pub(crate) hdr: [u8; MAX_HEADER],
}

impl SuperPacket {
    pub(crate) const EMPTY: SuperPacket = SuperPacket {
        hdr: [0; MAX_HEADER],
        p: Parsed {
            ips: [super::parse::Ip {
                off: 0,
                next: 0,
                v6: false,
            }; 2],
            n: 0,
            encap: Encap::None,
            enc_off: 0,
            inner_l2: 0,
            l4: 0,
            l4kind: L4::Tcp,
            payload: 0,
            end: 0,
        },
        segs: SegList::EMPTY,
        exp: Expect::EMPTY,
        room: 0,
        payload: 0,
        mss: 0,
        seq: 0,
        ids: [0; 2],
        id_mode: [IdMode::Undecided; 2],
        fin_psh: 0,
        first_state: CsumState::None,
        first_flags: CsumFlags::empty(),
        reason: FlushReason::PollEnd,
        gso: GsoType::empty(),
        born: 0,
        hash: 0,
        tcp4: false,
        vx4: false,
        raw4: false,
        tcp6: false,
        next: u16::MAX,
        succ: u16::MAX,
        older: u16::MAX,
        newer: u16::MAX,
    };

    /// Appends a merged segment of `len` payload bytes at `start` of packet
    /// `id`: the segment list, the payload and room counts, and the
    /// prediction, which stays only while another full-size segment fits.
    #[inline(always)]
    pub(crate) fn append(&mut self, id: u32, start: u16, len: u32) {
        self.segs.push(Segment {
            id,
            start,
            len: len as u16,
        });
        self.payload += len;
        self.room -= len;
        self.exp.keep_if(self.mss as u32 <= self.room);
    }

    /// Header bytes (frame start to the first payload byte), rewritten for the
    /// whole super-packet.
    #[inline]
    pub fn header(&self) -> &[u8] {
        self.hdr.get(..self.p.payload as usize).unwrap_or(&[])
    }

    /// The segments in order.
    #[inline]
    pub fn segments(&self) -> &[Segment] {
        self.segs.as_slice()
    }

    /// Number of segments (`gso_segs`; 1 means the packet left unchanged).
    #[inline]
    pub fn seg_count(&self) -> u16 {
        self.segs.len() as u16
    }

    /// Payload size of every segment but possibly the last (`gso_size`); 0
    /// for a single packet, as Linux clears it.
    #[inline]
    pub fn gso_size(&self) -> u16 {
        if self.segs.len() > 1 { self.mss } else { 0 }
    }

    /// Segmentation type; empty for a single packet.
    #[inline]
    pub fn gso_type(&self) -> GsoType {
        self.gso
    }

    /// True when the outermost IPv4 ID was fixed (`SKB_GSO_TCP_FIXEDID`).
    #[inline]
    pub fn fixed_id(&self) -> bool {
        self.gso.contains(GsoType::TCP_FIXEDID)
    }

    /// Why the super-packet left the engine.
    #[inline]
    pub fn reason(&self) -> FlushReason {
        self.reason
    }

    /// Total bytes of the written super-packet (header + payloads).
    #[inline]
    pub fn len(&self) -> usize {
        self.p.payload as usize + self.payload as usize
    }

    /// Always false: a super-packet has at least its headers.
    #[inline]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Offset of the outermost IP header.
    #[inline]
    pub fn l3(&self) -> usize {
        self.p.ips[0].off as usize
    }

    /// Offset of the (innermost) TCP or UDP header.
    #[inline]
    pub fn l4(&self) -> usize {
        self.p.l4 as usize
    }

    /// Offset of the first payload byte (= header length).
    #[inline]
    pub fn payload_offset(&self) -> usize {
        self.p.payload as usize
    }

    /// Checksum metadata of the super-packet: `Partial` at the TCP/UDP header
    /// with the pseudo-header seed in the field and `CSUM_BLANK` (as
    /// `tcp_gro_complete` / `udp_gro_complete_segment` leave it); for a single
    /// packet, the metadata it arrived with.
    pub fn meta(&self) -> CsumMeta {
        if self.segs.len() > 1 {
            let offset = match self.p.l4kind {
                L4::Tcp => tcp::CHECKSUM_OFFSET,
                L4::Udp => udp::CHECKSUM_OFFSET,
            };
            CsumMeta::new(
                CsumState::Partial {
                    start: self.p.l4 as usize,
                    offset,
                    kind: PartialKind::Inet,
                },
                CsumFlags::CSUM_BLANK,
            )
            .unwrap_or(CsumMeta::NONE)
        } else {
            CsumMeta::new(self.first_state, self.first_flags)
                .unwrap_or_else(|_| CsumMeta::from_state(self.first_state))
        }
    }

    /// Writes the contiguous super-packet into `buf` (header, then each
    /// segment's payload read through `payload_of(id)`, which returns that
    /// packet's whole frame). Returns the number of bytes written.
    ///
    /// The bytes are `CHECKSUM_PARTIAL`, as Linux hands a GRO packet up: for
    /// two or more segments the TCP/UDP checksum field (and a VXLAN/GENEVE
    /// outer UDP checksum, when the first packet had one) holds the
    /// pseudo-header seed, not the checksum, and a GRE checksum is stale;
    /// [`Self::meta`] says so (`Partial`, `CSUM_BLANK`). A reader that checks
    /// the written bytes sees a bad checksum until it is filled: hand the
    /// packet on with [`Self::meta`] (a stack or device fills it), or call
    /// [`Self::write_finished_into`] for bytes whose every checksum is correct.
    /// IPv4 header checksums are always correct.
    ///
    /// Every held frame's bytes must still be there, unchanged: the engine
    /// kept only their ids (see [`Gro`](super::Gro)).
    pub fn write_into<'b, F>(&self, buf: &mut [u8], mut payload_of: F) -> Result<usize, WriteError>
    where
        F: FnMut(u32) -> Option<&'b [u8]>,
    {
        let total = self.len();
        let available = buf.len();
        let Some(out) = buf.get_mut(..total) else {
            return Err(WriteError::BufferTooSmall {
                needed: total,
                available,
            });
        };
        let h = self.header();
        let (head, mut rest) = out.split_at_mut(h.len());
        head.copy_from_slice(h);
        for s in self.segs.as_slice() {
            let src = payload_of(s.id)
                .and_then(|fr| fr.get(s.range()))
                .ok_or(WriteError::MissingPayload { id: s.id })?;
            if src.len() > rest.len() {
                return Err(WriteError::MissingPayload { id: s.id });
            }
            let (dst, tail) = core::mem::take(&mut rest).split_at_mut(src.len());
            dst.copy_from_slice(src);
            rest = tail;
        }
        Ok(total)
    }

    /// Writes the super-packet as [`Self::write_into`] does, then fills in
    /// every checksum it left as a seed or stale (innermost first, as
    /// `skb_checksum_help` and the GSO tunnel code would), from the layer
    /// offsets the engine already knows: no re-parse. Returns the bytes
    /// written; the packet is then plain bytes with correct checksums
    /// (`CHECKSUM_NONE` is always a sound state for it, and a segment that
    /// joined was verified, so `Unnecessary` at the merged layers is too).
    ///
    /// A single packet (one segment) is written as it arrived; if it arrived
    /// `Partial` (a local or virtio sender), its field is filled the same way.
    pub fn write_finished_into<'b, F>(
        &self,
        buf: &mut [u8],
        payload_of: F,
    ) -> Result<usize, WriteError>
    where
        F: FnMut(u32) -> Option<&'b [u8]>,
    {
        let n = self.write_into(buf, payload_of)?;
        if let Some(out) = buf.get_mut(..n) {
            self.fill_checksums(out);
        }
        Ok(n)
    }

    /// Fills the seeded (or stale) checksum fields of the written packet
    /// `out`: the TCP/UDP one, then a tunnel's outer UDP or GRE one, whose sum
    /// covers the inner one.
    fn fill_checksums(&self, out: &mut [u8]) {
        if self.segs.len() <= 1 {
            if let CsumState::Partial {
                start,
                offset,
                kind: PartialKind::Inet,
            } = self.first_state
            {
                fill_seeded(out, start, start + offset, self.p.l4kind == L4::Udp);
            }
            return;
        }
        let l4 = self.p.l4 as usize;
        match self.p.l4kind {
            L4::Tcp => fill_seeded(out, l4, l4 + tcp::CHECKSUM_OFFSET, false),
            L4::Udp => fill_seeded(out, l4, l4 + udp::CHECKSUM_OFFSET, true),
        }
        let enc = self.p.enc_off as usize;
        if self.gso.contains(GsoType::UDP_TUNNEL_CSUM) {
            fill_seeded(out, enc, enc + udp::CHECKSUM_OFFSET, true);
        } else if self.gso.contains(GsoType::GRE_CSUM) {
            // The GRE checksum covers the GRE header and what follows, with
            // its own field zero, and no pseudo-header (RFC 2784).
            set_bytes(out, enc + gre::CHECKSUM_OFFSET, [0, 0]);
            fill_seeded(out, enc, enc + gre::CHECKSUM_OFFSET, false);
        }
    }

    /// Rewrites the header for the merged length (the `*_gro_complete` chain).
    /// A single held packet leaves unchanged (inline: the common flush of
    /// many-flow traffic).
    #[inline(always)]
    pub(crate) fn finalize(&mut self) {
        if self.segs.len() <= 1 {
            self.gso = GsoType::empty();
        } else {
            self.finalize_merged();
        }
    }

    /// [`Self::finalize`] for two or more segments.
    #[inline(always)]
    fn finalize_merged(&mut self) {
        let end = self.p.payload as usize + self.payload as usize;
        if self.tcp4 {
            self.finalize_tcp4(TCP4, end);
        } else if self.vx4 {
            self.finalize_vx4(end);
        } else {
            self.finalize_other(end);
        }
    }

    /// [`Self::finalize_merged`] for every layout but plain TCP/IPv4 and
    /// VXLAN (out of line: the common completion stays inline in the flush
    /// loops, this one keeps them small).
    #[inline(never)]
    fn finalize_other(&mut self, end: usize) {
        if self.tcp6 {
            self.finalize_tcp6(end);
            return;
        }
        if self.raw4 {
            self.finalize_tcp4(RAW_TCP4, end);
            return;
        }
        let p = self.p;
        let mut gso = GsoType::empty();
        for (i, ip) in p.ips.iter().take(p.n as usize).enumerate() {
            let o = ip.off as usize;
            if ip.v6 {
                let plen = end - o - ipv6::HEADER_LEN;
                set16(&mut self.hdr, o + ipv6::PAYLOAD_LEN_OFFSET, plen as u16);
            } else {
                set_ipv4_len(&mut self.hdr, o, (end - o) as u16);
                if self.id_mode[i] == IdMode::Fixed {
                    gso |= if i == 0 {
                        GsoType::TCP_FIXEDID
                    } else {
                        GsoType::TCP_FIXEDID_INNER
                    };
                }
            }
        }
        let outer = p.ips[0];
        match p.encap {
            Encap::Vxlan | Encap::Geneve => {
                let u = p.enc_off as usize;
                set16(&mut self.hdr, u + udp::LENGTH_OFFSET, (end - u) as u16);
                let check = be16(&self.hdr, u + udp::CHECKSUM_OFFSET).unwrap_or(0);
                if check != 0 {
                    let seed = seed(&self.hdr, outer, ipproto::UDP, (end - u) as u32);
                    set_bytes(&mut self.hdr, u + udp::CHECKSUM_OFFSET, seed);
                    gso |= GsoType::UDP_TUNNEL_CSUM;
                } else {
                    gso |= GsoType::UDP_TUNNEL;
                }
            }
            Encap::Gre => {
                let flags = be16(&self.hdr, p.enc_off as usize + gre::FLAGS_OFFSET).unwrap_or(0);
                gso |= if flags & gre::FLAG_CHECKSUM != 0 {
                    GsoType::GRE_CSUM
                } else {
                    GsoType::GRE
                };
            }
            Encap::Ipip => {
                gso |= if outer.v6 {
                    GsoType::IPXIP6
                } else {
                    GsoType::IPXIP4
                };
            }
            Encap::None => {}
        }
        let inner = p.inner();
        let l4 = p.l4 as usize;
        let l4len = (end - l4) as u32;
        match p.l4kind {
            L4::Tcp => {
                if let Some(fl) = self.hdr.get_mut(l4 + tcp::FLAGS_OFFSET) {
                    *fl |= self.fin_psh;
                }
                let s = seed(&self.hdr, inner, ipproto::TCP, l4len);
                set_bytes(&mut self.hdr, l4 + tcp::CHECKSUM_OFFSET, s);
                gso |= if inner.v6 {
                    GsoType::TCPV6
                } else {
                    GsoType::TCPV4
                };
                if self
                    .hdr
                    .get(l4 + tcp::FLAGS_OFFSET)
                    .is_some_and(|f| f & TCP_CWR != 0)
                {
                    gso |= GsoType::TCP_ACCECN;
                }
            }
            L4::Udp => {
                set16(&mut self.hdr, l4 + udp::LENGTH_OFFSET, l4len as u16);
                let s = seed(&self.hdr, inner, ipproto::UDP, l4len);
                set_bytes(&mut self.hdr, l4 + udp::CHECKSUM_OFFSET, s);
                gso |= GsoType::UDP_L4;
            }
        }
        self.gso = gso;
    }
}

impl SuperPacket {
    /// [`SuperPacket::finalize`] for a fixed IPv4 (no options) + TCP layout
    /// `l` (Ethernet or raw IP), at fixed offsets; the same bytes and GSO type.
    #[inline]
    fn finalize_tcp4(&mut self, l: Fixed, end: usize) {
        let Some(h) = self.hdr.get_mut(..l.options()) else {
            return;
        };
        set_ipv4_len(h, l.ip[0], (end - l.ip[0]) as u16);
        h[l.flags()] |= self.fin_psh;
        let cwr = h[l.flags()] & TCP_CWR != 0;
        let addr = |at: usize| [h[at], h[at + 1], h[at + 2], h[at + 3]];
        let src = addr(l.ip4(0, ipv4::SRC_OFFSET));
        let dst = addr(l.ip4(0, ipv4::DST_OFFSET));
        let ps = csum::pseudo_v4(src, dst, ipproto::TCP, (end - l.tcp) as u32, Wsum::ZERO);
        let seed = Sum16::from_raw(!csum::fold(ps).raw()).to_bytes();
        set_bytes(h, l.tcp(tcp::CHECKSUM_OFFSET), seed);
        let mut gso = GsoType::TCPV4;
        if self.id_mode[0] == IdMode::Fixed {
            gso |= GsoType::TCP_FIXEDID;
        }
        if cwr {
            gso |= GsoType::TCP_ACCECN;
        }
        self.gso = gso;
    }
}

impl SuperPacket {
    /// [`SuperPacket::finalize`] for the fixed Ethernet + IPv6 (no extension
    /// headers) + TCP layout, at fixed offsets; the same bytes and GSO type.
    /// Why: the general completion's walk took about 115 instructions per
    /// flushed IPv6 flow, most of the IPv6 streams' extra instructions at 8
    /// flows.
    #[inline]
    fn finalize_tcp6(&mut self, end: usize) {
        let l = TCP6;
        let Some(h) = self.hdr.get_mut(..TCP6_HDR) else {
            return;
        };
        let ip = l.ip[0];
        set16(
            h,
            ip + ipv6::PAYLOAD_LEN_OFFSET,
            (end - ip - ipv6::HEADER_LEN) as u16,
        );
        h[l.flags()] |= self.fin_psh;
        let cwr = h[l.flags()] & TCP_CWR != 0;
        const IP: super::parse::Ip = super::parse::Ip {
            off: TCP6.ip[0] as u16,
            next: TCP6.tcp as u16,
            v6: true,
        };
        let s = seed(h, IP, ipproto::TCP, (end - l.tcp) as u32);
        set_bytes(h, l.tcp(tcp::CHECKSUM_OFFSET), s);
        self.gso = if cwr {
            GsoType::TCPV6 | GsoType::TCP_ACCECN
        } else {
            GsoType::TCPV6
        };
    }
}

/// Sets the total length of the IPv4 header at `o` to `new_len` and its
/// checksum from the old one and the length change (RFC 1624 eqn. 3,
/// `csum_replace2`, as `inet_gro_complete` does), computed before either
/// field is written: summing the header back after narrow stores into it
/// stalls store forwarding. For a header that verified this is exactly the
/// from-scratch checksum: the sum is positive, so the end-around carries
/// give the representative a fresh sum gives. The words stay in the order
/// they are stored (a ones-complement sum commutes with a byte swap, RFC
/// 1071), added with end-around carries one at a time: no swaps, no fold.
/// (`csum::replace2` writes the same bytes, through a 32-bit sum and a fold:
/// 4 more instructions per packet at 8 VXLAN flows, callgrind.)
#[inline(always)]
fn set_ipv4_len(h: &mut [u8], o: usize, new_len: u16) {
    const LEN: usize = ipv4::TOTAL_LEN_OFFSET;
    const CSUM: usize = ipv4::CHECKSUM_OFFSET;
    let Some(ip) = h.get_mut(o..o + CSUM + 2) else {
        return;
    };
    let stored = |at: usize| u16::from_ne_bytes([ip[at], ip[at + 1]]);
    let new = u16::from_ne_bytes(new_len.to_be_bytes());
    // `a + b + carry` cannot carry again: with a carry, `a + b` <= 0xFFFE.
    let add = |a: u16, b: u16| {
        let (s, carry) = a.overflowing_add(b);
        s + u16::from(carry)
    };
    let c = !add(add(!stored(CSUM), !stored(LEN)), new);
    ip[LEN..LEN + 2].copy_from_slice(&new.to_ne_bytes());
    ip[CSUM..CSUM + 2].copy_from_slice(&c.to_ne_bytes());
}

/// IPv4 header `k` of the fixed VXLAN layout.
const fn vx4_ip(k: usize) -> super::parse::Ip {
    super::parse::Ip {
        off: VXLAN4.ip[k] as u16,
        next: (VXLAN4.ip[k] + ipv4::MIN_HEADER_LEN) as u16,
        v6: false,
    }
}

impl SuperPacket {
    /// [`SuperPacket::finalize`] for the fixed VXLAN layout (outer IPv4 at 14,
    /// UDP at 34, inner IPv4 at 64, TCP at 84), at fixed offsets; the same
    /// bytes and GSO type as the general completion. Out of line on its own:
    /// inlined, the flush loop saved more registers around the sink than the
    /// call costs; inside `finalize_other`, it paid that one's prologue
    /// (6 fewer instructions per packet at 8 VXLAN flows, callgrind).
    #[inline(never)]
    fn finalize_vx4(&mut self, end: usize) {
        const OUTER: super::parse::Ip = vx4_ip(0);
        const INNER: super::parse::Ip = vx4_ip(1);
        let l = VXLAN4;
        let fixed = [self.id_mode[0], self.id_mode[1]].map(|m| m == IdMode::Fixed);
        let Some(h) = self.hdr.get_mut(..VXLAN4_HDR) else {
            return;
        };
        for o in l.ip {
            set_ipv4_len(h, o, (end - o) as u16);
        }
        let mut gso = GsoType::TCPV4;
        if fixed[0] {
            gso |= GsoType::TCP_FIXEDID;
        }
        if fixed[1] {
            gso |= GsoType::TCP_FIXEDID_INNER;
        }
        let udp_len = end - l.udp;
        set16(h, l.udp + udp::LENGTH_OFFSET, udp_len as u16);
        let csum = l.udp + udp::CHECKSUM_OFFSET;
        if (h[csum] | h[csum + 1]) != 0 {
            let s = seed(h, OUTER, ipproto::UDP, udp_len as u32);
            set_bytes(h, csum, s);
            gso |= GsoType::UDP_TUNNEL_CSUM;
        } else {
            gso |= GsoType::UDP_TUNNEL;
        }
        h[l.flags()] |= self.fin_psh;
        if h[l.flags()] & TCP_CWR != 0 {
            gso |= GsoType::TCP_ACCECN;
        }
        let s = seed(h, INNER, ipproto::TCP, (end - l.tcp) as u32);
        set_bytes(h, l.tcp(tcp::CHECKSUM_OFFSET), s);
        self.gso = gso;
    }
}

/// The `CHECKSUM_PARTIAL` seed: the folded, uncomplemented pseudo-header sum
/// (`~tcp_v4_check(len, saddr, daddr, 0)`).
fn seed(hdr: &[u8], ip: super::parse::Ip, proto: u8, len: u32) -> [u8; 2] {
    let ps: Wsum = super::parse::pseudo(hdr, ip, proto, len);
    Sum16::from_raw(!csum::fold(ps).raw()).to_bytes()
}

/// Fills the checksum field at `field` of the bytes from `start` to the end
/// of `out`, whose field holds the seed (the pseudo-header sum) or zero:
/// their sum, folded and complemented (`skb_checksum_help`); a UDP result of
/// zero is sent as all ones (RFC 768).
fn fill_seeded(out: &mut [u8], start: usize, field: usize, udp: bool) {
    let Some(covered) = out.get(start..) else {
        return;
    };
    let mut check = csum::fold(csum::partial(covered, Wsum::ZERO));
    if udp {
        check = check.udp_mangle_zero();
    }
    set_bytes(out, field, check.to_bytes());
}

#[inline]
fn set16(b: &mut [u8], at: usize, v: u16) {
    set_bytes(b, at, v.to_be_bytes());
}

#[inline]
fn set_bytes(b: &mut [u8], at: usize, v: [u8; 2]) {
    if let Some(f) = b.get_mut(at..at + 2) {
        f.copy_from_slice(&v);
    }
}

#[cfg(test)]
mod tests {
    /// A from-scratch IPv4 header checksum (the field taken as zero).
    fn from_scratch(h: &[u8; 20]) -> [u8; 2] {
        let mut s: u32 = h
            .chunks_exact(2)
            .enumerate()
            .filter(|(i, _)| *i != 5)
            .map(|(_, w)| u32::from(u16::from_be_bytes([w[0], w[1]])))
            .sum();
        while s > 0xFFFF {
            s = (s & 0xFFFF) + (s >> 16);
        }
        (!(s as u16)).to_be_bytes()
    }

    /// The incremental length update writes the from-scratch checksum, for
    /// headers whose words take every carry and for every length step.
    #[test]
    fn set_ipv4_len_is_the_from_scratch_checksum() {
        let mut seed = 0x9E37_79B9u32;
        for k in 0..20_000u32 {
            let mut h = [0u8; 20];
            for b in h.iter_mut() {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                *b = seed as u8;
            }
            // Words near the carries: all ones, all zeros.
            match k % 4 {
                0 => h[12..20].fill(0xFF),
                1 => h[12..20].fill(0),
                _ => {}
            }
            h[0] = 0x45;
            let c = from_scratch(&h);
            h[10..12].copy_from_slice(&c);
            let new_len = (seed >> 8) as u16 ^ (k as u16);
            super::set_ipv4_len(&mut h, 0, new_len);
            assert_eq!(h[2..4], new_len.to_be_bytes());
            assert_eq!(h[10..12], from_scratch(&h), "{k}: {h:02x?}");
        }
    }
}
