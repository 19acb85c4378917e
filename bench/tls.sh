#!/usr/bin/env bash
# bench/tls.sh: HTTPS throughput and handshake rate of grona-mock, measured against nginx over TLS with the same
# certificate and the same bytes.
#
# grona-mock serves GET /v1/mobile/workspaces/acme-market/config on --tls-port (the SDK's hottest request, its
# signed document from memory); nginx serves those exact bytes as a static file, over TLS with the certificate
# and key `grona-mock tls init` made (ECDSA P-256), TLS 1.2 and 1.3. Two measurements, each in ROUNDS
# interleaved rounds (nginx, grona-mock, nginx, ...), the verdict on the median of the per-round ratios:
#   keep-alive  wrk -t1 -c64 over https: requests per second on established TLS connections (record layer)
#   reconnect   wrk -t1 -c16 with "Connection: close": every request on a new connection, new connections
#               per second; wrk resumes the TLS 1.3 sessions both servers offer tickets for (nginx with tickets
#               off serves it at about half the rate), so most are PSK resumptions with ECDHE
#   full        openssl s_time -new, two clients at once: full handshakes only (certificate, ECDSA signature,
#               ECDHE), no request, handshakes per second
# nginx runs one worker; grona-mock runs LOOPS event loops (default 1, the same), since TLS is CPU-bound and two
# loops against one worker would measure the core count, not the code.
#
# Run from anywhere:   bash bench/tls.sh
# Environment:         DURATION  seconds per measured run (default 10)
#                      WARMUP    seconds of unmeasured load before each run (default 2)
#                      ROUNDS    interleaved rounds (default 5)
#                      LOOPS     grona-mock's event loops (default 1)
#
# Exit status: 0 whenever the measurement ran, whether or not the target was met (a benchmark reports, it does
# not gate); non-zero when something could not be installed, built or started.
#
# Traffic goes to 127.0.0.1 only, and every wait and every load run is bounded in time.

set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly TARGET_RATIO="0.80"
readonly ROUNDS="${ROUNDS:-5}"
readonly LOOPS="${LOOPS:-1}"
CONNECTIONS=64
readonly HANDSHAKE_CONNECTIONS=16
readonly THREADS=1

cleanup_more() { stop_nginx; }

ensure_tools() {
    want_command wrk wrk
    command -v nginx >/dev/null 2>&1 || [[ -x /usr/sbin/nginx ]] || MISSING_PACKAGES+=(nginx-light)
    want_command curl curl
    want_command openssl openssl
    want_command python3 python3
    install_missing
    NGINX="$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)"
    require_commands wrk curl openssl timeout sha256sum "$NGINX"
}

make_certificate() {
    "$GRONA_BIN" tls init --dir "$WORK/tls" >"$WORK/tls-init.out" || die "grona-mock tls init failed"
    log "== certificate: $(grep -m1 'names:' "$WORK/tls-init.out" | sed 's/^ *//')"
}

start_grona() {
    launch_grona --db :memory: --event-loops "$LOOPS" --tls-port 0 \
        --tls-cert "$WORK/tls/server.pem" --tls-key "$WORK/tls/server-key.pem"
    local port
    port="$(grep -oE 'https://[^ /]+:[0-9]+' "$WORK/grona.out" | head -n 1 | sed -E 's/.*:([0-9]+)$/\1/')"
    [[ -n "$port" ]] || die "grona-mock printed no https URL"
    GRONA_PATH="/v1/mobile/workspaces/acme-market/config"
    GRONA_URL="https://localhost:$port$GRONA_PATH"
    wait_http "$GRONA_URL" "$GRONA_PID" 10 --cacert "$WORK/tls/ca.pem" || die "grona-mock does not answer GET $GRONA_URL"
    log "== grona-mock listening on https://127.0.0.1:$port (pid $GRONA_PID, $LOOPS event loop(s))"
}

# nginx must serve the very bytes grona-mock signs: the served document is its static file.
capture_config() {
    mkdir -p "$WORK/www"
    curl -fsS --max-time 5 --cacert "$WORK/tls/ca.pem" -o "$WORK/www/bench.json" "$GRONA_URL" \
        || die "GET $GRONA_URL failed"
    BODY_SHA="$(sha256sum "$WORK/www/bench.json" | cut -d' ' -f1)"
    log "== config: $(wc -c <"$WORK/www/bench.json") bytes, sha256 $BODY_SHA"
}

write_nginx_conf() {
    local port="$1"
    {
        nginx_conf_head tls.sh 1024
        cat <<EOF

    types { }
    default_type application/jose+json;
    keepalive_timeout 65s;
    keepalive_requests 1000000;

    server {
        listen 127.0.0.1:$port ssl;
        ssl_certificate $WORK/tls/server.pem;
        ssl_certificate_key $WORK/tls/server-key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        root $WORK/www;
        location = $GRONA_PATH { try_files /bench.json =404; }
        location / { return 404; }
    }
}
EOF
    } >"$WORK/nginx.conf"
}

# Both must send the same bytes over the same TLS: the body's digest, and the protocol and suite negotiated.
verify_servers() {
    local name url sha info
    for name in nginx grona-mock; do
        if [[ "$name" == nginx ]]; then url="$NGINX_URL"; else url="$GRONA_URL"; fi
        info="$(curl -sS --max-time 5 --cacert "$WORK/tls/ca.pem" -o "$WORK/check-$name" \
            -w '%{http_code} %{content_type}' "$url")" || die "GET $url failed"
        sha="$(sha256sum "$WORK/check-$name" | cut -d' ' -f1)"
        [[ "${info%% *}" == 200 ]] || die "$name answered ${info%% *}, not 200"
        [[ "$sha" == "$BODY_SHA" ]] || die "$name's body differs from grona-mock's document"
        local port="${url#https://localhost:}"
        port="${port%%/*}"
        local session
        session="$(openssl s_client -connect "127.0.0.1:$port" -CAfile "$WORK/tls/ca.pem" </dev/null 2>/dev/null \
            | grep -m1 -E '^New, ' || true)"
        log "== $name: HTTP ${info%% *}, '${info#* }', $(wc -c <"$WORK/check-$name") bytes, ${session:-no session line}"
    done
    log "== bodies identical"
}

# run_load KIND NAME URL ROUND: KIND keepalive or handshake; the report is $WORK/wrk-KIND-NAME-ROUND.txt.
run_load() {
    local kind="$1" name="$2" url="$3" round="$4" args=()
    local connections="$CONNECTIONS"
    if [[ "$kind" == reconnect ]]; then
        connections="$HANDSHAKE_CONNECTIONS"
        args=(-H "Connection: close")
    fi
    CONNECTIONS="$connections" wrk_warmup "$name" /dev/null "${args[@]}" "$url" || die "wrk warm-up against $name failed"
    log "== round $round: $kind, measuring $name (${DURATION}s)"
    CONNECTIONS="$connections" wrk_measure "$WORK/wrk-$kind-$name-$round.txt" "${args[@]}" "$url" \
        || die "wrk against $name failed"
    if [[ "$name" == nginx ]]; then kill -0 "$NGINX_PID"; else kill -0 "$GRONA_PID"; fi 2>/dev/null \
        || die "$name died during the run"
}

# run_full NAME URL ROUND: two `openssl s_time -new` clients for DURATION seconds; their handshakes over the wall
# time go to $WORK/full-NAME-ROUND.txt as one number.
run_full() {
    local name="$1" url="$2" round="$3" port start end i pids=()
    port="${url#https://localhost:}"
    port="${port%%/*}"
    log "== round $round: full handshakes, measuring $name (${DURATION}s)"
    start="$(date +%s.%N)"
    for i in 1 2; do
        timeout --kill-after=5 "$((DURATION + 20))" openssl s_time -connect "127.0.0.1:$port" -new \
            -time "$DURATION" >"$WORK/stime-$name-$round-$i.txt" 2>&1 &
        pids+=($!)
    done
    for i in "${pids[@]}"; do wait "$i" || die "openssl s_time against $name failed"; done
    end="$(date +%s.%N)"
    awk -v s="$start" -v e="$end" '/connections in .* real seconds/ { n += $1 } END { printf "%.2f\n", n / (e - s) }' \
        "$WORK"/stime-"$name"-"$round"-*.txt >"$WORK/full-$name-$round.txt"
}

figure() {
    if [[ "$1" == full ]]; then
        case "$4" in
            rps) cat "$WORK/full-$2-$3.txt" ;;
            p99) echo "-" ;;
        esac
        return 0
    fi
    wrk_figure "$WORK/wrk-$1-$2-$3.txt" "$4"
}

median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# report KIND UNIT: one table and its verdict.
report() {
    local kind="$1" unit="$2" round ng gm ratio ratios=() ng_all=() gm_all=() problems=""
    echo
    local how="wrk -t$THREADS -c$CONNECTIONS, keep-alive"
    [[ "$kind" == reconnect ]] && how="wrk -t$THREADS -c$HANDSHAKE_CONNECTIONS, Connection: close"
    [[ "$kind" == full ]] && how="openssl s_time -new, 2 clients"
    echo "== $kind: $how, ${DURATION}s, $ROUNDS interleaved rounds, $(nproc) cores"
    printf '%-6s %16s %10s %16s %10s %8s\n' round "nginx $unit" p99 "grona $unit" p99 ratio
    for ((round = 1; round <= ROUNDS; round++)); do
        ng="$(figure "$kind" nginx "$round" rps)"
        gm="$(figure "$kind" grona-mock "$round" rps)"
        [[ -n "$ng" && -n "$gm" ]] || die "could not read Requests/sec from wrk's output ($kind, round $round)"
        ratio="$(awk -v g="$gm" -v n="$ng" 'BEGIN { printf "%.3f", g / n }')"
        ratios+=("$ratio")
        ng_all+=("$ng")
        gm_all+=("$gm")
        printf '%-6s %16s %10s %16s %10s %8s\n' "$round" "$ng" "$(figure "$kind" nginx "$round" p99)" "$gm" \
            "$(figure "$kind" grona-mock "$round" p99)" "${ratio}x"
        if [[ -n "$(figure "$kind" grona-mock "$round" errors)" ]]; then
            echo "warning: grona-mock had errors in round $round: $(figure "$kind" grona-mock "$round" errors)"
            problems="grona-mock had errors"
        fi
        [[ -z "$(figure "$kind" nginx "$round" errors)" ]] || echo "warning: nginx had errors in round $round"
    done
    echo "median $unit: nginx $(median "${ng_all[@]}"), grona-mock $(median "${gm_all[@]}")"
    ratio="$(awk -v r="$(median "${ratios[@]}")" 'BEGIN { printf "%.2f", r }')"
    echo "ratio grona-mock/nginx (median of $ROUNDS rounds): ${ratio}x"
    echo "target: ${TARGET_RATIO}x or better"
    verdict "$ratio" "$problems"
}

main() {
    install_traps
    enter_repo_root
    check_durations
    ensure_tools
    [[ "$ROUNDS" =~ ^[1-9][0-9]?$ ]] || die "ROUNDS must be a whole number from 1 to 99"
    [[ "$LOOPS" =~ ^[1-9][0-9]?$ ]] || die "LOOPS must be a whole number from 1 to 99"
    build_grona
    make_work_dir tls
    make_certificate
    start_grona
    capture_config
    launch_nginx "https://localhost:%s$GRONA_PATH" --cacert "$WORK/tls/ca.pem"
    verify_servers
    log "== commit $(commit_id), $("$NGINX" -v 2>&1 | sed 's/^nginx version: //'), $(wrk_version), $(openssl version)"
    local round kind
    for kind in keepalive reconnect; do
        for ((round = 1; round <= ROUNDS; round++)); do
            run_load "$kind" nginx "$NGINX_URL" "$round"
            run_load "$kind" grona-mock "$GRONA_URL" "$round"
        done
    done
    for ((round = 1; round <= ROUNDS; round++)); do
        run_full nginx "$NGINX_URL" "$round"
        run_full grona-mock "$GRONA_URL" "$round"
    done
    report keepalive req/s
    report reconnect conn/s
    report full handshakes/s
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    main "$@"
fi
