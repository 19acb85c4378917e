#!/usr/bin/env bash
# bench/http.sh: HTTP throughput of grona-mock's signed configuration endpoint, measured against nginx
# serving the same bytes.
#
# grona-mock serves GET /v1/mobile/workspaces/acme-market/config (the SDK's hottest request: an in-memory
# signed document with its ETag); nginx serves those exact bytes as a static file. Both over keep-alive
# HTTP/1.1 on 127.0.0.1; wrk drives each with one thread and 64 connections. The machine is noisy, so the
# two are measured in ROUNDS interleaved rounds (nginx, grona-mock, nginx, grona-mock, ...) and the verdict is
# taken on the median of the per-round ratios: a burst of noise then spoils one round, not the figure.
#
# Run from anywhere:   bash bench/http.sh
# Environment:         DURATION  seconds per measured run (default 10)
#                      WARMUP    seconds of unmeasured load before each run (default 2)
#                      ROUNDS    interleaved rounds (default 5)
#                      BODY      config (default) or static (a 20 KiB file through --static)
#                      EVENT_LOOPS  grona-mock's --event-loops (default: its own, one per core); 1 compares
#                                   one loop with nginx's one worker
#
# Exit status: 0 whenever the measurement ran, whether or not the target was met (a benchmark reports, it
# does not gate); non-zero when something could not be installed, built or started.
#
# Traffic goes to 127.0.0.1 only, and every wait and every load run is bounded in time.

set -euo pipefail
# The plumbing the benchmarks share: cleanup, run_child, building and starting grona-mock, wrk, verdicts.
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly TARGET_RATIO="0.85"
readonly ROUNDS="${ROUNDS:-5}"
readonly BODY="${BODY:-config}"
readonly EVENT_LOOPS="${EVENT_LOOPS:-}"
readonly BODY_BYTES=20480
readonly CONNECTIONS=64
readonly THREADS=1

cleanup_more() { stop_nginx; }

# ---------------------------------------------------------------------------------------------------------
# Set-up
# ---------------------------------------------------------------------------------------------------------

ensure_tools() {
    want_command wrk wrk
    # nginx lives in /usr/sbin, which is not on every user's PATH.
    command -v nginx >/dev/null 2>&1 || [[ -x /usr/sbin/nginx ]] || MISSING_PACKAGES+=(nginx-light)
    want_command curl curl
    want_command python3 python3
    install_missing
    NGINX="$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)"
    require_commands wrk curl python3 timeout sha256sum "$NGINX"
}

# A deterministic, realistic-looking JSON document (a page of a product listing), padded through an opaque
# cursor to exactly BODY_BYTES so both servers send the same number of bytes run after run.
generate_body() {
    mkdir -p "$WORK/www"
    python3 - "$WORK/www/bench.json" "$BODY_BYTES" <<'PY'
import hashlib, json, sys

path, target = sys.argv[1], int(sys.argv[2])
colours = ["black", "white", "slate", "forest green", "navy", "sand", "crimson", "ochre"]
materials = ["recycled polyester", "organic cotton", "aluminium", "oak", "stainless steel", "merino wool"]
kinds = ["backpack", "water bottle", "desk lamp", "rain jacket", "notebook", "headphones", "mug", "chair"]
tags = ["new", "bestseller", "eco", "limited", "sale", "gift", "outdoor", "office", "travel", "kitchen"]

def product(i):
    kind = kinds[i % len(kinds)]
    colour = colours[(i * 3) % len(colours)]
    material = materials[(i * 5) % len(materials)]
    cents = 999 + (i * 7919) % 25000
    return {
        "id": f"prod_{i:06d}",
        "sku": f"GR-{(i * 2654435761) % 1000000:06d}-{colour[:2].upper()}",
        "name": f"{colour.title()} {kind} no. {i + 1}",
        "description": f"A {colour} {kind} made of {material}, designed for everyday use and built to last.",
        "price": {"amount": cents, "currency": "EUR", "formatted": f"€{cents // 100}.{cents % 100:02d}"},
        "in_stock": i % 5 != 0,
        "stock": (i * 37) % 120,
        "tags": [tags[(i + k) % len(tags)] for k in range(1 + i % 3)],
        "rating": {"average": round(3 + (i % 20) / 10, 1), "count": (i * 53) % 900},
        "dimensions_mm": {"w": 100 + i % 300, "h": 50 + (i * 3) % 400, "d": 20 + (i * 7) % 150},
        "created_at": f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:{(i * 7) % 60:02d}:00Z",
    }

def render(items, cursor):
    doc = {"object": "list", "page": 1, "per_page": len(items), "total": 4812,
           "data": items, "next_cursor": cursor}
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

items = []
while len(render(items + [product(len(items))], "")) <= target:
    items.append(product(len(items)))
# The cursor takes up the rest, so the document is exactly `target` bytes.
seed = hashlib.sha256(b"grona-mock bench").hexdigest()
cursor = (seed * (target // len(seed) + 1))[: target - len(render(items, ""))]
body = render(items, cursor)
assert len(body) == target, len(body)
json.loads(body)
with open(path, "wb") as f:
    f.write(body)
PY
    BODY_SHA="$(sha256sum "$WORK/www/bench.json" | cut -d' ' -f1)"
    log "== body: $(wc -c <"$WORK/www/bench.json") bytes, sha256 $BODY_SHA"
}

write_nginx_conf() {
    local port="$1"
    # The configuration's media type (contract §4), or plain JSON for the static body.
    local NGINX_TYPE="application/json"
    [[ "$BODY" == config ]] && NGINX_TYPE="application/jose+json"
    {
        nginx_conf_head http.sh 1024
        cat <<EOF

    types { }
    default_type $NGINX_TYPE;

    # Keep-alive on, and not cut off after nginx's default 1000 requests, so wrk's connections live for the
    # whole run, as they do against grona-mock.
    keepalive_timeout 65s;
    keepalive_requests 1000000;

    sendfile on;
    tcp_nopush on;

    server {
        listen 127.0.0.1:$port;
        root $WORK/www;
        location = /bench.json { }
        location / { return 404; }
    }
}
EOF
    } >"$WORK/nginx.conf"
}

start_grona() {
    # --db: received events go to memory, so the run leaves no SQLite file in the working tree.
    local loops=()
    [[ -z "$EVENT_LOOPS" ]] || loops=(--event-loops "$EVENT_LOOPS")
    launch_grona --static "$WORK/www" --db :memory: "${loops[@]}"
    if [[ "$BODY" == config ]]; then
        GRONA_URL="http://127.0.0.1:$GRONA_PORT/v1/mobile/workspaces/acme-market/config"
    else
        GRONA_URL="http://127.0.0.1:$GRONA_PORT/_mock/static/bench.json"
    fi
    wait_http "$GRONA_URL" "$GRONA_PID" 10 || {
        log "grona-mock does not answer GET $GRONA_URL:"
        curl -sS -i --max-time 2 "$GRONA_URL" 2>&1 | head -n 20 >&2 || true
        cat "$WORK/grona.err" >&2 || true
        die "grona-mock is not serving the static file"
    }
    log "== grona-mock listening on 127.0.0.1:$GRONA_PORT (pid $GRONA_PID)"
}

# BODY=config: nginx must serve the very bytes grona-mock signs, so the served document is written to its
# root (before nginx starts) and the digest the bodies are checked against becomes the document's.
capture_config() {
    [[ "$BODY" == config ]] || return 0
    curl -fsS --max-time 5 -o "$WORK/www/bench.json" "$GRONA_URL" || die "GET $GRONA_URL failed"
    BODY_SHA="$(sha256sum "$WORK/www/bench.json" | cut -d' ' -f1)"
    log "== config: $(wc -c <"$WORK/www/bench.json") bytes, sha256 $BODY_SHA"
}

# Measuring a server that sends the wrong bytes would be meaningless: both bodies must be the file itself.
verify_bodies() {
    local name url sha info
    for name in nginx grona-mock; do
        if [[ "$name" == nginx ]]; then url="$NGINX_URL"; else url="$GRONA_URL"; fi
        info="$(curl -sS --max-time 5 -o "$WORK/check-$name" -w '%{http_code} %{content_type}' "$url")" \
            || die "GET $url failed"
        sha="$(sha256sum "$WORK/check-$name" | cut -d' ' -f1)"
        log "== $name: HTTP ${info%% *}, content-type '${info#* }', $(wc -c <"$WORK/check-$name") bytes, sha256 $sha"
        [[ "${info%% *}" == 200 ]] || die "$name answered ${info%% *}, not 200"
        [[ "$sha" == "$BODY_SHA" ]] || die "$name's body differs from the generated file"
    done
    log "== bodies identical"
}

# ---------------------------------------------------------------------------------------------------------
# Measurement
# ---------------------------------------------------------------------------------------------------------

# Runs a warm-up, then the measured run of round ROUND, whose wrk report is kept in $WORK/wrk-NAME-ROUND.txt:
# run_wrk NAME URL ROUND.
run_wrk() {
    local name="$1" url="$2" round="$3"
    wrk_warmup "$name" /dev/null "$url" || die "wrk warm-up against $name failed"
    log "== round $round: measuring $name (${DURATION}s)"
    wrk_measure "$WORK/wrk-$name-$round.txt" "$url" || die "wrk against $name failed"
    # The servers must have lived through the load for the figures to mean anything.
    if [[ "$name" == nginx ]]; then kill -0 "$NGINX_PID"; else kill -0 "$GRONA_PID"; fi 2>/dev/null \
        || die "$name died during the run"
}

# Reads one figure out of NAME's saved wrk report of ROUND: figure NAME ROUND rps|p50|p99|errors.
figure() { wrk_figure "$WORK/wrk-$1-$2.txt" "$3"; }

# The median of the numbers given (the middle one; the mean of the two middle ones for an even count).
median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

report() {
    local round ng_rps gm_rps ratio ratios=() ng_all=() gm_all=() problems=""
    local bytes
    bytes="$(wc -c <"$WORK/www/bench.json")"
    echo
    echo "== results: wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s --latency, $BODY body of $bytes bytes, $ROUNDS interleaved rounds, $(nproc) cores, grona-mock event loops: ${EVENT_LOOPS:-default}"
    printf '%-6s %14s %10s %10s %14s %10s %10s %8s\n' round "nginx req/s" p50 p99 "grona req/s" p50 p99 ratio
    for ((round = 1; round <= ROUNDS; round++)); do
        ng_rps="$(figure nginx "$round" rps)"
        gm_rps="$(figure grona-mock "$round" rps)"
        [[ -n "$ng_rps" && -n "$gm_rps" ]] || die "could not read Requests/sec from wrk's output (round $round)"
        ratio="$(awk -v g="$gm_rps" -v n="$ng_rps" 'BEGIN { printf "%.3f", g / n }')"
        ratios+=("$ratio")
        ng_all+=("$ng_rps")
        gm_all+=("$gm_rps")
        printf '%-6s %14s %10s %10s %14s %10s %10s %8s\n' "$round" "$ng_rps" "$(figure nginx "$round" p50)" \
            "$(figure nginx "$round" p99)" "$gm_rps" "$(figure grona-mock "$round" p50)" \
            "$(figure grona-mock "$round" p99)" "${ratio}x"
        [[ -z "$(figure nginx "$round" errors)" ]] || echo "warning: nginx had errors in round $round"
        if [[ -n "$(figure grona-mock "$round" errors)" ]]; then
            echo "warning: grona-mock had errors in round $round: $(figure grona-mock "$round" errors)"
            problems="grona-mock had errors"
        fi
    done
    echo "median requests/s: nginx $(median "${ng_all[@]}"), grona-mock $(median "${gm_all[@]}")"
    # The verdict is taken on the rounded figure, so the printed ratio and the verdict never disagree.
    ratio="$(awk -v r="$(median "${ratios[@]}")" 'BEGIN { printf "%.2f", r }')"
    echo "ratio grona-mock/nginx (median of $ROUNDS rounds): ${ratio}x"
    echo "target: ${TARGET_RATIO}x or better"
    # A fast rate made of failed responses does not meet the target.
    verdict "$ratio" "$problems"
}

main() {
    install_traps
    enter_repo_root
    check_durations
    ensure_tools
    build_grona
    make_work_dir http
    generate_body
    [[ "$BODY" == config || "$BODY" == static ]] || die "BODY must be config or static, not $BODY"
    [[ "$ROUNDS" =~ ^[1-9][0-9]?$ ]] || die "ROUNDS must be a whole number from 1 to 99"
    [[ -z "$EVENT_LOOPS" || "$EVENT_LOOPS" =~ ^[1-9][0-9]{0,2}$ ]] || die "EVENT_LOOPS must be a whole number from 1 to 256"
    start_grona
    capture_config
    launch_nginx "http://127.0.0.1:%s/bench.json"
    verify_bodies
    log "== commit $(commit_id), $("$NGINX" -v 2>&1 | sed 's/^nginx version: //'), $(wrk_version)"
    local round
    for ((round = 1; round <= ROUNDS; round++)); do
        run_wrk nginx "$NGINX_URL" "$round"
        run_wrk grona-mock "$GRONA_URL" "$round"
    done
    report
}

# Sourcing the file (to try out single functions) only defines them.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    main "$@"
fi
