#!/usr/bin/env python3
"""Writes one large Ethernet pcap by concatenating the records of the corpus's
Ethernet pcaps, round after round, until it reaches a size (default 700 MB).

The replay benchmark (`bench-threads.sh`) and the bounded-memory check use it:
    make-big-pcap.py ../shared/corpus/pcap /tmp/big.pcap [MEGABYTES]

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


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: make-big-pcap.py CORPUS_PCAP_DIR OUT.pcap [MEGABYTES]")
    src, dst = sys.argv[1], sys.argv[2]
    target = int(sys.argv[3] if len(sys.argv) > 3 else 700) * 1_000_000
    files = []
    for name in sorted(os.listdir(src)):
        recs = records(os.path.join(src, name))
        if recs:
            files.append(recs)
    if not files:
        sys.exit(f"no Ethernet pcap in {src}")
    written, frames, clock = 24, 0, 1_600_000_000 * 1_000_000
    with open(dst, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
        while written < target:
            for recs in files:
                prev = recs[0][0]
                for ts, body, origlen in recs:
                    clock += min(max(ts - prev, 0), MAX_GAP_US)
                    prev, t = ts, clock
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
