#!/usr/bin/env python3
"""Writes one large Ethernet pcap by concatenating the records of the corpus's
Ethernet pcaps, round after round, until it reaches a size (default 700 MB).

The replay benchmark (`bench-threads.sh`) and the bounded-memory check use it:
    make-big-pcap.py [--spread] ../shared/corpus/pcap /tmp/big.pcap [MEGABYTES]

The plain concatenation keeps the corpus's flows, so RSS sees what it sees on
the corpus: a few flows (one TCP connection is most of the frames) and most
frames on one queue. `--spread` gives every round after the first its own
hosts, as traffic from many hosts would be: the second octet of the outermost
IPv4 (or IPv6) source and destination address is XORed with the round number
(1-255), and the IPv4 header checksum and the outer TCP/UDP/ICMPv6 checksum
are adjusted incrementally (RFC 1624), so every checksum verdict stays what
it was (good stays good, bad stays bad, a zero UDP checksum stays zero). A
frame whose outer transport header cannot be found (IPv6 extension headers,
cut headers) keeps its addresses.

Every input is a classic pcap of link type 1 (little- or big-endian,
microsecond or nanosecond timestamps); the output is little-endian with
microsecond timestamps. Each file's timestamps are shifted so that the output's
run on from the previous file plus one second: a file's own gaps stay (capped at
ten seconds, so the 32-bit seconds field never overflows), and the `--gap-us`
flush between files happens as it would between two captures.
"""

import os
import struct
import sys

MAX_GAP_US = 10_000_000

MAGICS = {
    b"\xd4\xc3\xb2\xa1": ("<", 1000),  # little-endian, microseconds
    b"\xa1\xb2\xc3\xd4": (">", 1000),  # big-endian, microseconds
    b"\x4d\x3c\xb2\xa1": ("<", 1),  # little-endian, nanoseconds
    b"\xa1\xb2\x3c\x4d": (">", 1),  # big-endian, nanoseconds
}


def records(path):
    """The (ts_us, caplen data, origlen) of every record of an Ethernet pcap, or None."""
    with open(path, "rb") as f:
        data = f.read()
    kind = MAGICS.get(data[:4])
    if kind is None or len(data) < 24:
        return None
    end, per_us = kind
    if struct.unpack(end + "I", data[20:24])[0] != 1:
        return None
    out, at = [], 24
    while at + 16 <= len(data):
        sec, frac, caplen, origlen = struct.unpack(end + "IIII", data[at : at + 16])
        body = data[at + 16 : at + 16 + caplen]
        if len(body) < caplen:
            break  # a cut last record: leave it out
        us = frac if per_us == 1000 else frac // 1000
        out.append((sec * 1_000_000 + us, body, origlen))
        at += 16 + caplen
    return out


def csum_add(a, b):
    """Ones-complement 16-bit addition."""
    s = a + b
    return (s & 0xFFFF) + (s >> 16)


def adjust(frame, at, old, new):
    """RFC 1624 eqn. 3: the checksum at `at` after 16-bit words `old` became `new`."""
    hc = struct.unpack(">H", frame[at : at + 2])[0]
    acc = ~hc & 0xFFFF
    for m, m2 in zip(old, new):
        acc = csum_add(csum_add(acc, ~m & 0xFFFF), m2)
    frame[at : at + 2] = struct.pack(">H", ~acc & 0xFFFF)


def words(b):
    return [struct.unpack(">H", b[i : i + 2])[0] for i in range(0, len(b), 2)]


def spread(body, k):
    """The frame with its outer addresses moved to round k's hosts (see above)."""
    f = bytearray(body)
    if len(f) < 14:
        return body
    et, l3 = struct.unpack(">H", f[12:14])[0], 14
    for _ in range(2):
        if et in (0x8100, 0x88A8) and len(f) >= l3 + 4:
            et, l3 = struct.unpack(">H", f[l3 + 2 : l3 + 4])[0], l3 + 4
    if et == 0x0800 and len(f) >= l3 + 20:
        ihl = (f[l3] & 0x0F) * 4
        proto, frag = f[l3 + 9], struct.unpack(">H", f[l3 + 6 : l3 + 8])[0]
        addrs = (l3 + 12, l3 + 20)
        l4, first = l3 + ihl, frag & 0x1FFF == 0
        moved = (l3 + 13, l3 + 17)
    elif et == 0x86DD and len(f) >= l3 + 40:
        proto, l4, first = f[l3 + 6], l3 + 40, True
        addrs = (l3 + 8, l3 + 40)
        moved = (l3 + 9, l3 + 25)
    else:
        return body
    # Where the transport checksum is (only those that cover the addresses).
    at = None
    if first and proto == 6:
        at = l4 + 16
    elif first and proto == 17:
        at = l4 + 6
    elif first and proto == 58 and et == 0x86DD:
        at = l4 + 2
    elif et == 0x86DD and proto not in (4, 41, 47, 50, 132, 1):
        return body  # an extension header: leave the frame as it is
    if at is not None and len(f) < at + 2:
        return body
    old = words(f[addrs[0] : addrs[1]])
    for m in moved:
        f[m] ^= k
    new = words(f[addrs[0] : addrs[1]])
    if et == 0x0800:
        adjust(f, l3 + 10, old, new)
    if at is not None:
        zero_udp = proto == 17 and f[at : at + 2] == b"\0\0"
        if not zero_udp:
            adjust(f, at, old, new)
            if proto == 17 and f[at : at + 2] == b"\0\0":
                f[at : at + 2] = b"\xff\xff"
    return bytes(f)


def main():
    args = sys.argv[1:]
    spreading = "--spread" in args
    args = [a for a in args if a != "--spread"]
    if len(args) < 2:
        sys.exit("usage: make-big-pcap.py [--spread] CORPUS_PCAP_DIR OUT.pcap [MEGABYTES]")
    src, dst = args[0], args[1]
    target = int(args[2] if len(args) > 2 else 700) * 1_000_000
    files = []
    for name in sorted(os.listdir(src)):
        recs = records(os.path.join(src, name))
        if recs:
            files.append(recs)
    if not files:
        sys.exit(f"no Ethernet pcap in {src}")
    written, frames, clock, rounds = 24, 0, 1_600_000_000 * 1_000_000, 0
    with open(dst, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
        while written < target:
            k = (rounds - 1) % 255 + 1 if spreading and rounds > 0 else 0
            rounds += 1
            for recs in files:
                prev = recs[0][0]
                for ts, body, origlen in recs:
                    clock += min(max(ts - prev, 0), MAX_GAP_US)
                    prev, t = ts, clock
                    if k:
                        body = spread(body, k)
                    out.write(struct.pack("<IIII", t // 1_000_000, t % 1_000_000, len(body), origlen))
                    out.write(body)
                    written += 16 + len(body)
                    frames += 1
                clock += 1_000_000
                if written >= target:
                    break
    print(f"{dst}: {written} bytes, {frames} frames from {len(files)} Ethernet pcaps")


if __name__ == "__main__":
    main()
