#!/usr/bin/env bash
# bench/load-memory.sh: the peak resident memory of `grona-mock load` against a target whose answers never end.
# Target (issue 28): under 200 MiB with 300 installs, and no more with more requests in flight. Before, the
# generator kept up to 32 MiB of every answer: 324 MB with 10 installs, 3 GB with 300.
#
# For each FRAMING and each count of INSTALLS:
#   1. a small Python server on 127.0.0.1 serves the JWKS and the configuration grona-mock signed to the run's
#      first fetches, then answers every request (configurations, events) with an answer that never ends:
#      `chunked` (16 KiB chunks for ever), `length` (a Content-Length of a terabyte, fed for ever), `head` (header
#      lines for ever) or `drip` (a chunked body of one byte a second);
#   2. `grona-mock load --installs N --rate 100 --duration 5s --drain 10s --timeout 5s` runs against it under
#      /usr/bin/time -v; its peak resident memory ("Maximum resident set size") is the figure, with the report's
#      failures (answer_too_large, or timeout for `drip`) and its elapsed time.
# A watchdog stops the generator once it passes LIMIT_MIB of resident memory (default 4096), so that a build
# without the bound cannot take the machine: its figure is then "over LIMIT_MIB".
#
# Usage:   bash bench/load-memory.sh
#          INSTALLS="10 300 1000" FRAMINGS=chunked bash bench/load-memory.sh
#          GRONA_BIN=/path/to/grona-mock bash bench/load-memory.sh      measure another build
#          EXTRA="--max-in-flight 2048" bash bench/load-memory.sh        more connections
# Needs python3 and GNU time (/usr/bin/time); installs what is missing with apt-get (as root). Traffic to
# 127.0.0.1 only; each run is bounded by its --duration and --drain, and by timeout(1).
set -euo pipefail
REQUESTED_BIN="${GRONA_BIN:-}"
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

INSTALLS="${INSTALLS:-10 300}"
FRAMINGS="${FRAMINGS:-chunked length head drip}"
LIMIT_MIB="${LIMIT_MIB:-4096}"
EXTRA="${EXTRA:-}"
readonly TARGET_MIB=200
SERVER_PID=""

cleanup_more() { stop_process "$SERVER_PID" "endless server"; }

write_server() {
    cat >"$WORK/endless.py" <<'EOF'
# Serves WORK/jwks.json and WORK/config once (the run's first configuration), then answers every request with
# an answer that never ends, in the framing given. Writes its port to PORT_FILE.
import socket, sys, threading, time

port_file, config_path, jwks_path, framing = sys.argv[1:5]
config = open(config_path, "rb").read()
jwks = open(jwks_path, "rb").read()
lock = threading.Lock()
configs_served = [0]
chunk = b"4000\r\n" + b"x" * 0x4000 + b"\r\n"
filler = b"x" * 65536
header_line = b"X-Filler: " + b"y" * 1000 + b"\r\n"


def answer(body, fields=b""):
    return b"HTTP/1.1 200 OK\r\n" + fields + b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_request(conn, buffer):
    while b"\r\n\r\n" not in buffer:
        data = conn.recv(65536)
        if not data:
            return None, buffer
        buffer += data
    end = buffer.index(b"\r\n\r\n")
    lines = buffer[:end].decode("latin-1").split("\r\n")
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    while len(buffer) < end + 4 + length:
        data = conn.recv(65536)
        if not data:
            return None, buffer
        buffer += data
    return lines[0], buffer[end + 4 + length:]


def endless(conn):
    if framing == "chunked":
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        while True:
            conn.sendall(chunk * 4)
    elif framing == "length":
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000000000\r\n\r\n")
        while True:
            conn.sendall(filler)
    elif framing == "head":
        conn.sendall(b"HTTP/1.1 200 OK\r\n")
        while True:
            conn.sendall(header_line * 16)
    else:
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        while True:
            conn.sendall(b"1\r\nx\r\n")
            time.sleep(1)


def serve(conn):
    buffer = b""
    try:
        while True:
            line, buffer = read_request(conn, buffer)
            if line is None:
                return
            path = line.split(" ")[1]
            if path.endswith("/jwks.json"):
                conn.sendall(answer(jwks))
                continue
            if path.endswith("/config"):
                with lock:
                    configs_served[0] += 1
                    first = configs_served[0] == 1
                if first:
                    conn.sendall(answer(config, b'ETag: "c1"\r\nCache-Control: max-age=60\r\n'))
                    continue
            endless(conn)
    except OSError:
        pass
    finally:
        conn.close()


listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(4096)
with open(port_file, "w") as f:
    f.write(str(listener.getsockname()[1]))
while True:
    conn, _ = listener.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
EOF
}

start_server() {
    local framing="$1" i
    rm -f "$WORK/port"
    python3 "$WORK/endless.py" "$WORK/port" "$WORK/config" "$WORK/jwks.json" "$framing" 2>"$WORK/server.err" &
    SERVER_PID=$!
    for ((i = 0; i < 50; i++)); do
        [[ -s "$WORK/port" ]] && return 0
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    cat "$WORK/server.err" >&2 || true
    die "the endless server could not be started"
}

# One run: prints "<peak MiB or over-LIMIT> <elapsed s> <failures…>".
measure() {
    local installs="$1" port rss peak_kb killed="" pid child
    port="$(cat "$WORK/port")"
    # shellcheck disable=SC2086 # EXTRA is a list of options
    timeout 120 /usr/bin/time -v -o "$WORK/time.txt" "$GRONA_BIN" load --url "http://127.0.0.1:$port" \
        --installs "$installs" --rate 100 --duration 5s --drain 10s --timeout 5s --seed 1 --run-tag mem --quiet \
        $EXTRA >"$WORK/report.txt" 2>"$WORK/load.err" &
    pid=$!
    CHILD_PID=$pid
    CHILD_NAME="grona-mock load"
    # The watchdog: the generator is the child of time, itself the child of timeout (pid).
    while kill -0 "$pid" 2>/dev/null; do
        child="$(pgrep -P "$(pgrep -P "$pid" | head -n 1)" 2>/dev/null | head -n 1 || true)"
        if [[ -n "$child" ]]; then
            rss="$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$child/status" 2>/dev/null || echo 0)"
            if ((${rss:-0} > LIMIT_MIB * 1024)); then
                killed="over-${LIMIT_MIB}MiB"
                kill -KILL "$child" 2>/dev/null || true
            fi
        fi
        sleep 0.05
    done
    wait "$pid" 2>/dev/null || true
    CHILD_PID=""
    if [[ -n "$killed" ]]; then
        printf '%s - stopped by the watchdog\n' "$killed"
        return
    fi
    if ! grep -q '^result' "$WORK/report.txt"; then
        die "the run could not be made: $(tail -n 3 "$WORK/load.err")"
    fi
    peak_kb="$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$WORK/time.txt")"
    local elapsed failures
    elapsed="$(awk '$1 == "elapsed" { sub(/s,?$/, "", $2); print $2; exit }' "$WORK/report.txt")"
    failures="$(awk '/^failures/ { on = 1; sub(/^failures */, "") } on && /^ *$/ { on = 0 } on { sub(/^ */, ""); printf "%s; ", $0 }' "$WORK/report.txt")"
    printf '%s %s %s\n' "$(awk -v k="$peak_kb" 'BEGIN { printf "%.1f", k / 1024 }')" "${elapsed:-?}" "${failures%; }"
}

main() {
    enter_repo_root
    want_command python3 python3
    [[ -x /usr/bin/time ]] || MISSING_PACKAGES+=(time)
    install_missing
    require_commands python3 /usr/bin/time timeout pgrep
    install_traps
    if [[ -n "$REQUESTED_BIN" ]]; then GRONA_BIN="$REQUESTED_BIN"; else build_grona; fi
    make_work_dir load-memory
    write_server

    # The target serves what grona-mock signs: fetch the document and the JWKS once.
    launch_grona --db :memory:
    curl -fsS --max-time 5 -o "$WORK/config" "http://127.0.0.1:$GRONA_PORT/v1/mobile/workspaces/acme-market/config"
    curl -fsS --max-time 5 -o "$WORK/jwks.json" "http://127.0.0.1:$GRONA_PORT/v1/mobile/workspaces/acme-market/jwks.json"
    stop_grona

    log "== $(commit_id): peak resident memory of grona-mock load against answers that never end (limit ${LIMIT_MIB} MiB)"
    printf '   %-8s %8s %10s %9s  %s\n' framing installs "peak MiB" elapsed failures
    local framing installs line peak worst=0 over=""
    for framing in $FRAMINGS; do
        for installs in $INSTALLS; do
            # A fresh server for each run: it serves one first configuration.
            start_server "$framing"
            line="$(measure "$installs")"
            stop_process "$SERVER_PID" "endless server"
            SERVER_PID=""
            peak="${line%% *}"
            printf '   %-8s %8s %10s %9s  %s\n' "$framing" "$installs" "$peak" "$(cut -d' ' -f2 <<<"$line")s" \
                "$(cut -d' ' -f3- <<<"$line")"
            if [[ "$peak" == over-* ]]; then over=1; elif above "$peak" "$worst"; then worst="$peak"; fi
        done
    done
    echo
    if [[ -n "$over" ]]; then
        echo "load memory: OVER (a run passed ${LIMIT_MIB} MiB and was stopped; target under ${TARGET_MIB} MiB)"
    elif above "$TARGET_MIB" "$worst"; then
        echo "load memory: PASS (the largest peak ${worst} MiB, target under ${TARGET_MIB} MiB)"
    else
        echo "load memory: OVER TARGET (the largest peak ${worst} MiB, target under ${TARGET_MIB} MiB)"
    fi
}

main "$@"
