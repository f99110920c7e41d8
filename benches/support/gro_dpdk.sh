#!/usr/bin/env bash
# Builds the DPDK GRO peer (../shared/bench-peers/dpdk-gro), dumps its streams and runs
# benches/gro_dpdk.rs against it on one CPU. ROUNDS, MS, CPU and a cell filter pass through:
#   benches/support/gro_dpdk.sh            benches/support/gro_dpdk.sh vxlan/verify
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; d="${GRO_DPDK_DIR:-$root/target/dpdk-gro}"
OUT="$d" DUMP="$d/streams" MS=1 CPU="${CPU:-0}" "${GRO_DPDK_PEER:-$root/../shared/bench-peers/dpdk-gro}/run.sh" >/dev/null
cd "$root" && cargo bench --bench gro_dpdk --no-run && GRO_DPDK_DIR="$d" taskset -c "${CPU:-0}" cargo bench --bench gro_dpdk -- "$@"
