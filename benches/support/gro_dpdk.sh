#!/usr/bin/env bash
# Builds the DPDK GRO peer (../shared/bench-peers/dpdk-gro), dumps its streams and runs
# benches/gro_dpdk.rs against it on one CPU. ROUNDS, MS, CPU and a cell filter pass through:
#   benches/support/gro_dpdk.sh            benches/support/gro_dpdk.sh vxlan/verify
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; d="${GRO_DPDK_DIR:-$root/target/dpdk-gro}"
OUT="$d" DUMP="$d/streams" MS=1 CPU="${CPU:-0}" "${GRO_DPDK_PEER:-$root/../shared/bench-peers/dpdk-gro}/run.sh" >/dev/null
cd "$root" && cargo bench --bench gro_dpdk --no-run
# As root, free and compact memory first (COMPACT=0 skips it): after other
# processes had churned memory, ours ran 17-50% slower in this VM (the frames'
# pages scattered; DPDK's process, smaller, barely moved) until compaction
# restored it (docs/perf/gro-hot-path.md, session 11).
if [ "${COMPACT:-1}" != 0 ] && [ -w /proc/sys/vm/compact_memory ]; then
  sync; echo 3 >/proc/sys/vm/drop_caches; echo 1 >/proc/sys/vm/compact_memory
fi
GRO_DPDK_DIR="$d" taskset -c "${CPU:-0}" cargo bench --bench gro_dpdk -- "$@"
