#!/usr/bin/env bash
# bench/clones.sh: what a clone costs as clones accumulate on one server (issue 28). A CI fixture server shared by
# parallel runs holds a clone per run; making, resetting and removing one must cost the same at 10,000 clones as at
# 100, and each must take a known amount of memory.
#
# One release grona-mock (--max-clones 20000) is brought to 100, 1,000 and 10,000 clones of acme-market and back,
# interleaved (LEVELS, default 100 1000 10000 1000 100 1000 10000 1000 100), so that a slow minute of the machine
# does not land on one size only. At each visit ROUNDS (default 200) clones are made, then reset, then made again
# and deleted, each timed from request to whole answer on one keep-alive connection (bench/clones/drive.py).
# Printed per size: the median over its visits of the p50 and p99 of each operation, the creation p50's ratio to
# the one at the smallest size (the reference, measured in the same run), and the resident memory per clone
# between the first visits of the smallest and the largest size. Targets: creation p50 under 5 ms at every size, and the largest
# size's within 1.5x of the smallest.
#
# Usage:   bash bench/clones.sh            LEVELS="100 1000 3000 1000 100" ROUNDS=100 bash bench/clones.sh
# Needs python3 and curl. Traffic to 127.0.0.1 only.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LEVELS="${LEVELS:-100 1000 10000 1000 100 1000 10000 1000 100}"
ROUNDS="${ROUNDS:-200}"
readonly TARGET_P50_MS="5.0"
readonly TARGET_FLAT="1.5"

install_traps
enter_repo_root
want_command python3 python3
want_command curl curl
install_missing
require_commands python3 curl
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a whole number of at least 1, got '$ROUNDS'"
for level in $LEVELS; do [[ "$level" =~ ^[0-9]+$ ]] || die "LEVELS must be whole numbers, got '$level'"; done

build_grona
make_work_dir clones
log "== grona-mock $(commit_id): clones of acme-market at ${LEVELS// /, } (rounds of $ROUNDS)"
launch_grona --db "$WORK/grona-mock.sqlite" --max-clones 20000
await_status ready curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$GRONA_PORT/_mock/health"
[[ "$ready" == 200 ]] || die "grona-mock did not become healthy (status $ready)"

run_child "drive.py" python3 bench/clones/drive.py "$GRONA_PORT" "$GRONA_PID" "${LEVELS// /,}" "$ROUNDS" \
    >"$WORK/figures.json"

python3 - "$WORK/figures.json" "$TARGET_P50_MS" "$TARGET_FLAT" <<'PY'
import json, statistics, sys
figures = json.load(open(sys.argv[1]))["checkpoints"]
target_p50, target_flat = float(sys.argv[2]), float(sys.argv[3])
sizes = sorted({visit["clones"] for visit in figures})
def median(size, operation, figure):
    return statistics.median(v[operation][figure] for v in figures if v["clones"] == size)
reference = median(sizes[0], "create", "p50")
print(f"{'clones':>8} {'visits':>6} {'create p50':>11} {'p99':>8} {'ratio':>6} {'reset p50':>10} {'p99':>8} "
      f"{'delete p50':>11} {'p99':>8}")
for size in sizes:
    visits = sum(1 for v in figures if v["clones"] == size)
    p50 = median(size, "create", "p50")
    print(f"{size:>8} {visits:>6} {p50:>9.2f}ms {median(size, 'create', 'p99'):>6.2f}ms {p50 / reference:>5.2f}x "
          f"{median(size, 'reset', 'p50'):>8.2f}ms {median(size, 'reset', 'p99'):>6.2f}ms "
          f"{median(size, 'delete', 'p50'):>9.2f}ms {median(size, 'delete', 'p99'):>6.2f}ms")
small, large = sizes[0], sizes[-1]
# Memory on the way up only: freed memory stays with the process (malloc keeps it), so later visits of a smaller
# size still show the largest's.
rss = {}
for visit in figures:
    rss.setdefault(visit["clones"], visit["rssKiB"])
per_clone = (rss[large] - rss[small]) * 1024 / max(1, large - small)
print(f"resident memory: {rss[small] / 1024:.1f} MiB at {small} clones, {rss[large] / 1024:.1f} MiB at {large}: "
      f"{per_clone / 1024:.1f} KiB per clone")
worst = max(median(size, "create", "p50") for size in sizes)
flat = median(large, "create", "p50") / reference
print(f"creation p50 at most {worst:.2f} ms (target under {target_p50} ms): "
      f"{'PASS' if worst < target_p50 else 'BELOW'}")
print(f"creation p50 at {large} within {flat:.2f}x of {small} (target {target_flat}x): "
      f"{'PASS' if flat <= target_flat else 'BELOW'}")
PY
