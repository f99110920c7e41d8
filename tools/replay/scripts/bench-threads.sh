#!/usr/bin/env bash
# The --threads benchmark of docs/replay.md: frames per second of `replay FILE
# --threads 2` against `--threads 1`, alternating, several rounds, on
#   - the largest capture of the corpus (../shared/corpus/pcap),
#   - a ~700 MB capture, the corpus's Ethernet pcaps concatenated,
#   - the same with each round of the corpus on its own hosts (--spread).
# Per run: wall time of the process (date +%s%N around it) and of the run
# itself (the tool's own clock, without process start-up and the report),
# user and system CPU time (of the whole process), peak RSS, and
# each worker's frames and CPU time (REPLAY_WORKER_TIMES). Prints the medians
# and the ratio threads=2 / threads=1 of frames per second.
#
#   tools/replay/scripts/bench-threads.sh [ROUNDS] [CORPUS_DIR]
# Environment: BIG_MB (default 700), TMPDIR (captures are written there once).
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROUNDS=${1:-5}
CORPUS=${2:-../shared/corpus}
BIG_MB=${BIG_MB:-700}
TMP=${TMPDIR:-/tmp}
cargo build --release -q -p netoffload-replay
BIN=target/release/replay
MAKE=tools/replay/scripts/make-big-pcap.py
largest=$(ls -S "$CORPUS"/pcap/*.pcap | head -1)
big="$TMP/replay-bench-${BIG_MB}mb.pcap"
spread="$TMP/replay-bench-${BIG_MB}mb-spread.pcap"
[ -s "$big" ] || python3 "$MAKE" "$CORPUS/pcap" "$big" "$BIG_MB"
[ -s "$spread" ] || python3 "$MAKE" --spread "$CORPUS/pcap" "$spread" "$BIG_MB"
log="$TMP/replay-bench-threads.log"
: > "$log"
echo "load before: $(uptime)" | tee -a "$log"
for capture in "$largest" "$big" "$spread"; do
    # A small capture runs in milliseconds: repeat it so each timing is long enough.
    reps=1
    [ "$(stat -L -c %s "$capture")" -lt 100000000 ] && reps=50
    cat "$capture" > /dev/null # in the page cache for every run alike
    for round in $(seq 1 "$ROUNDS"); do
        for threads in 1 2; do
            for rep in $(seq 1 "$reps"); do
                start=$(date +%s%N)
                out=$(REPLAY_WORKER_TIMES=1 /usr/bin/time -f "time: %e wall %U user %S sys %M KB" \
                    "$BIN" "$capture" --threads "$threads" 2>&1 >/dev/null)
                end=$(date +%s%N)
                printf '%s\nprocess: %s ns\n' "$out" "$((end - start))" |
                    sed "s|^|$(basename "$capture") round=$round threads=$threads rep=$rep |" >> "$log"
            done
        done
    done
done
echo "load after: $(uptime)" | tee -a "$log"
python3 - "$log" <<'PY'
import re, statistics, sys
runs = {}  # (capture, threads) -> list of dicts
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) round=(\d+) threads=(\d+) rep=(\d+) (.*)", line)
    if not m:
        continue
    cap, rnd, thr, rep, rest = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)), m.group(5)
    r = runs.setdefault((cap, thr), {}).setdefault((rnd, rep), {"workers": []})
    if t := re.match(r"time: ([\d.]+) wall ([\d.]+) user ([\d.]+) sys (\d+) KB", rest):
        r["user"], r["sys"], r["rss"] = float(t[2]), float(t[3]), int(t[4])
    elif t := re.match(r"process: (\d+) ns", rest):
        r["wall"] = int(t[1]) / 1e9
    elif t := re.match(r"replay: run: (\d+) frames in ([\d.]+) s wall", rest):
        r["frames"], r["run"] = int(t[1]), float(t[2])
    elif t := re.match(r"replay: worker (\d+) of \d+: (\d+) of \d+ frames, ([\d.]+) s user, ([\d.]+) s sys", rest):
        r["workers"].append((int(t[1]), int(t[2]), float(t[3]) + float(t[4])))
caps = sorted({c for c, _ in runs}, key=lambda c: list(runs).index((c, 1)))
print(f"{'capture':44} thr  frames/s(run)  frames/s(process)  user+sys s  max RSS MB  worker own frames / CPU s")
for cap in caps:
    fps = {}
    for thr in (1, 2):
        rs = [r for r in runs[(cap, thr)].values() if "run" in r]
        frames = rs[0]["frames"]
        fps_run = statistics.median(frames / r["run"] for r in rs)
        fps_proc = statistics.median(frames / r["wall"] for r in rs)
        cpu = statistics.median(r["user"] + r["sys"] for r in rs)
        rss = max(r["rss"] for r in rs) / 1024
        per = {}
        for r in rs:
            for w, own, c in r["workers"]:
                per.setdefault(w, []).append((own, c))
        workers = ", ".join(f"w{w}: {v[0][0]} / {statistics.median(c for _, c in v):.2f}" for w, v in sorted(per.items()))
        fps[thr] = (fps_run, fps_proc)
        print(f"{cap:44} {thr:3}  {fps_run:13.0f}  {fps_proc:17.0f}  {cpu:10.2f}  {rss:10.1f}  {workers}")
    print(f"{cap:44} ratio threads 2 / 1: {fps[2][0] / fps[1][0]:.2f}x (run clock), {fps[2][1] / fps[1][1]:.2f}x (process)")
PY
