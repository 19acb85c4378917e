# shellcheck shell=bash
# bench/lib.sh: what bench/http.sh, bench/grants.sh and bench/events.sh share; each sources it after `set -euo
# pipefail`, so every function here runs under the same strict settings as the script itself.
#
# The scripts set THREADS and CONNECTIONS (wrk's -t and -c) before they call the wrk functions. Globals here are
# filled in as things start, so that cleanup knows what to stop; a script adds its own with cleanup_more().

# Seconds per measured run and of unmeasured load before it; check_durations validates them.
DURATION="${DURATION:-10}"
WARMUP="${WARMUP:-2}"

# Filled in as things start, so that cleanup knows what to stop.
WORK=""
GRONA_PID=""
CHILD_PID=""
CHILD_NAME=""
# Filled in by launch_grona: the port grona-mock bound on 127.0.0.1.
GRONA_PORT=""
# Filled in by build_grona.
GRONA_BIN=""
# Packages to install, filled in by want_command and by a script's own checks, installed by install_missing.
MISSING_PACKAGES=()
# Filled in by cpu_before and cpu_after (readings: machine, children, grona-mock, time), then by cpu_split.
CPU_M0="" CPU_C0="" CPU_G0="" CPU_T0="" CPU_M1="" CPU_C1="" CPU_G1="" CPU_T1=""
CPU_GRONA="" CPU_WRK="" CPU_OTHER="" CPU_THREADS=""
# Clock ticks per second of /proc/*/stat and /proc/stat.
HZ="$(getconf CLK_TCK 2>/dev/null || echo 100)"

# Prints a line of progress.
log() { printf '%s\n' "$*"; }
# Prints an error and exits 1 (the EXIT trap cleans up).
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------------------
# Cleanup: runs on every exit, normal or not, so that no server outlives the script.
# ---------------------------------------------------------------------------------------------------------

# Waits up to 5 s for PID to exit; fails if it is still running then.
wait_for_exit() {
    local pid="$1" i
    for ((i = 0; i < 50; i++)); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    ! kill -0 "$pid" 2>/dev/null
}

# Stops one process by pid: TERM, a bounded wait, then KILL. Never waits more than about 5 s.
stop_process() {
    local pid="$1" name="$2"
    [[ -n "$pid" ]] || return 0
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    kill -TERM "$pid" 2>/dev/null || true
    if ! wait_for_exit "$pid"; then
        log "warning: $name (pid $pid) ignored SIGTERM for 5 s; killing it"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

# Stops grona-mock if it runs, and forgets it.
stop_grona() {
    stop_process "$GRONA_PID" grona-mock
    GRONA_PID=""
}

# The EXIT trap: stops the running child, grona-mock and the script's own servers, removes WORK, keeps the status.
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    stop_process "$CHILD_PID" "$CHILD_NAME"
    CHILD_PID=""
    stop_grona
    # A script with servers of its own (http.sh's nginx) stops them in cleanup_more.
    if declare -F cleanup_more >/dev/null; then cleanup_more; fi
    if [[ -n "$WORK" && -d "$WORK" ]]; then
        rm -rf -- "$WORK"
    fi
    exit "$rc"
}

# Sets the traps; turning signals into exits makes the EXIT trap do the cleanup in every case.
install_traps() {
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

# Runs a long command (the build, wrk, openssl speed, plain_insert) in the background and waits for it: run_child
# NAME COMMAND... bash runs a trap only once the foreground command has finished, but it interrupts `wait` at once;
# so a signal stops the script right away, and cleanup stops the command too (a background command of a script
# also ignores SIGINT from the terminal).
run_child() {
    CHILD_NAME="$1"
    shift
    "$@" &
    CHILD_PID=$!
    local rc=0
    wait "$CHILD_PID" || rc=$?
    CHILD_PID=""
    return "$rc"
}

# ---------------------------------------------------------------------------------------------------------
# Set-up
# ---------------------------------------------------------------------------------------------------------

# Moves to the repository root, wherever the script is run from: paths in the scripts are relative to it.
enter_repo_root() { cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit; }

# Accepts DURATION and WARMUP as "10" or "10s"; the number is needed in seconds to bound runs with timeout(1).
check_durations() {
    DURATION="${DURATION%s}"
    WARMUP="${WARMUP%s}"
    [[ "$DURATION" =~ ^[1-9][0-9]*$ ]] || die "DURATION must be a whole number of seconds, got '$DURATION'"
    [[ "$WARMUP" =~ ^[0-9]+$ ]] || die "WARMUP must be a whole number of seconds, got '$WARMUP'"
}

# Adds PACKAGE to MISSING_PACKAGES unless COMMAND is on PATH: want_command COMMAND PACKAGE.
want_command() { command -v "$1" >/dev/null 2>&1 || MISSING_PACKAGES+=("$2"); }

# Installs MISSING_PACKAGES from Debian. apt-get update runs only when an install is needed, because it is slow and
# needs the network.
install_missing() {
    ((${#MISSING_PACKAGES[@]} > 0)) || return 0
    [[ "$(id -u)" -eq 0 ]] || die "missing ${MISSING_PACKAGES[*]}; install them with apt-get or run as root"
    log "== installing ${MISSING_PACKAGES[*]}"
    apt-get update -q
    # No recommends: none of the packages needs them here (nginx-light, for one, pulls nothing else it needs).
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${MISSING_PACKAGES[@]}"
}

# Dies unless every COMMAND (a name on PATH or a path) can be run now, after any install.
require_commands() {
    local tool
    for tool in "$@"; do
        command -v "$tool" >/dev/null 2>&1 || die "$tool is still missing"
    done
}

# Builds the release binary and sets GRONA_BIN.
build_grona() {
    log "== building grona-mock (release)"
    run_child "swift build" swift build -c release --product grona-mock || die "the release build failed"
    GRONA_BIN="$(swift build -c release --show-bin-path)/grona-mock"
    [[ -x "$GRONA_BIN" ]] || die "no executable at $GRONA_BIN after the build"
}

# Makes the temporary directory for this run, WORK, named after the benchmark: make_work_dir NAME.
make_work_dir() { WORK="$(mktemp -d "${TMPDIR:-/tmp}/grona-bench-$1.XXXXXX")"; }

# The short commit being measured, or "unknown" outside a git checkout.
commit_id() { git rev-parse --short HEAD 2>/dev/null || echo unknown; }

# wrk's name and version, e.g. "wrk 4.1.0".
wrk_version() { wrk --version 2>&1 | head -n 1 | cut -d' ' -f1-2; }

# Starts `grona-mock serve --port 0 ARGS...` in the background, sets GRONA_PID, and waits (at most 10 s) for the
# port it prints once bound, into GRONA_PORT. Its output goes to $WORK/grona.out and $WORK/grona.err.
launch_grona() {
    # stdbuf: should grona-mock's stdout be block-buffered when it is a file, its URL line still arrives.
    local runner=(env) name
    command -v stdbuf >/dev/null 2>&1 && runner=(stdbuf -oL env)
    # Every option also reads a GRONA_MOCK_* variable; one left set in the caller's shell (an access log, a
    # different number of event loops, a bound on stored events, another database, other workspaces or keys)
    # would change what is measured, so the command line and the defaults alone decide.
    for name in $(compgen -e); do
        if [[ "$name" == GRONA_MOCK_* ]]; then runner+=(-u "$name"); fi
    done
    # Emptied here, not by the child's redirection: the loop below may read the file before the child has
    # opened it, and would then take the previous server's port.
    : >"$WORK/grona.out"
    "${runner[@]}" "$GRONA_BIN" serve --port 0 "$@" \
        >"$WORK/grona.out" 2>"$WORK/grona.err" </dev/null &
    GRONA_PID=$!

    # Port 0 lets grona-mock pick its own port; it prints its URL once bound.
    local i port=""
    for ((i = 0; i < 100; i++)); do
        port="$(grep -oE 'http://[^ /]+:[0-9]+' "$WORK/grona.out" 2>/dev/null | head -n 1 | sed -E 's/.*:([0-9]+)$/\1/' || true)"
        [[ -n "$port" ]] && break
        if ! kill -0 "$GRONA_PID" 2>/dev/null; then
            log "grona-mock exited before printing its URL; its output:"
            cat "$WORK/grona.out" "$WORK/grona.err" >&2 || true
            die "grona-mock could not be started"
        fi
        sleep 0.1
    done
    if [[ -z "$port" ]]; then
        log "grona-mock printed no URL within 10 s; its output:"
        cat "$WORK/grona.out" "$WORK/grona.err" >&2 || true
        die "grona-mock could not be started"
    fi
    # Whatever host the line names, the load goes to 127.0.0.1 only.
    # shellcheck disable=SC2034  # read by the scripts, which build their URLs on 127.0.0.1 from it
    GRONA_PORT="$port"
}

# Runs COMMAND..., which prints an HTTP status, until it prints one (20 tries 0.5 s apart, in case the socket is
# bound but not yet accepting), into the variable named VAR: await_status VAR COMMAND... Dies if grona-mock exits.
await_status() {
    local await_var="$1" await_status="" await_try
    shift
    for ((await_try = 0; await_try < 20; await_try++)); do
        kill -0 "$GRONA_PID" 2>/dev/null || die "grona-mock exited before answering"
        await_status="$("$@" 2>/dev/null || true)"
        [[ "$await_status" =~ ^[1-9][0-9][0-9]$ ]] && break
        sleep 0.5
    done
    printf -v "$await_var" '%s' "$await_status"
}

# ---------------------------------------------------------------------------------------------------------
# Load: wrk runs, each bounded by timeout(1) in case wrk itself stalls
# ---------------------------------------------------------------------------------------------------------

# Runs wrk -tTHREADS -cCONNECTIONS for SECONDS, killed SPARE seconds later at most: wrk_run SECONDS SPARE ARGS...
wrk_run() {
    local seconds="$1" spare="$2"
    shift 2
    run_child wrk timeout --kill-after=5 "$((seconds + spare))" \
        wrk -t"$THREADS" -c"$CONNECTIONS" -d"${seconds}s" "$@"
}

# Logs and runs the warm-up, WARMUP seconds of unmeasured load (none if 0): wrk_warmup NAME REPORT-FILE ARGS...
wrk_warmup() {
    local name="$1" report="$2"
    shift 2
    ((WARMUP > 0)) || return 0
    log "== warming up $name (${WARMUP}s)"
    wrk_run "$WARMUP" 20 "$@" >"$report"
}

# Runs the measured run, DURATION seconds with latency percentiles: wrk_measure REPORT-FILE ARGS...
wrk_measure() {
    local report="$1"
    shift
    wrk_run "$DURATION" 30 --latency "$@" >"$report"
}

# wrk prints each latency in its own unit (us, ms or s); the tables use milliseconds throughout so that figures
# can be compared at a glance.
to_ms() {
    awk -v v="$1" 'BEGIN {
        n = v + 0
        if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /m$/) n *= 60000; else if (v ~ /s$/) n *= 1000
        printf "%.2fms", n
    }'
}

# Reads one figure out of a saved wrk report: wrk_figure FILE rps|requests|elapsed (seconds)|p50|p99|errors (a
# short description, empty if none).
wrk_figure() {
    local file="$1"
    case "$2" in
        rps) awk '/^Requests\/sec:/ { print $2 }' "$file" ;;
        # "  4101 requests in 5.09s, 608.74KB read"
        requests) awk '/ requests in / { print $1; exit }' "$file" ;;
        elapsed)
            awk '/ requests in / {
                v = $4; sub(/,$/, "", v); n = v + 0
                if (v ~ /ms$/) n /= 1000; else if (v ~ /m$/) n *= 60
                print n; exit
            }' "$file"
            ;;
        p50) to_ms "$(awk '$1 == "50%" { print $2 }' "$file")" ;;
        p99) to_ms "$(awk '$1 == "99%" { print $2 }' "$file")" ;;
        errors)
            {
                grep -E '^ *Non-2xx or 3xx responses:' "$file" | sed -E 's/^ *//' || true
                # Only non-zero socket error counts matter.
                grep -E '^ *Socket errors:' "$file" | sed -E 's/^ *//' | grep -E '[1-9]' || true
            } | paste -sd ';' -
            ;;
    esac
}

# ---------------------------------------------------------------------------------------------------------
# CPU accounting: who used the cores during a measured run
# ---------------------------------------------------------------------------------------------------------
# The comparisons assume an otherwise idle machine. The scripts measure where the CPU time went in each run (the
# measured program, the load generator, everything else) so that a build or test run elsewhere on the machine
# shows up in the output instead of as a quietly lower ratio. All figures are in clock ticks.

# Busy ticks of the whole machine so far (all CPUs, everything but idle and iowait), from /proc/stat.
machine_ticks() {
    awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}

# Busy ticks of one process so far (user + system, all its threads), from /proc; empty if it is gone.
process_ticks() {
    # The command name in field 2 may contain spaces; fields are counted after its closing parenthesis.
    awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || true
}

# Busy ticks of this shell's finished children so far, into the variable named $1: the second line of `times`
# ("0m1.230s 0m0.450s"), which covers a child run by run_child once it has been waited for, and what it waited
# for in turn (wrk under timeout). `times` must run in this shell, not in a $(...) subshell, whose children differ.
children_ticks() {
    times >"$WORK/times.txt"
    printf -v "$1" '%s' "$(awk -v hz="$HZ" 'NR == 2 {
        t = 0
        for (i = 1; i <= 2; i++) { split($i, p, "m"); sub(/s$/, "", p[2]); t += p[1] * 60 + p[2] }
        printf "%.0f", t * hz
    }' "$WORK/times.txt")"
}

# Busy ticks of each thread of a process so far, one "name ticks" line each: grona-mock names its event loop
# threads grona-loop-N and its one SQLite writer grona-writer, which shows where the server's time went.
thread_ticks() {
    local task
    for task in /proc/"$1"/task/*; do
        [[ -r "$task/stat" ]] || continue
        printf '%s %s\n' "$(tr ' ' '_' <"$task/comm" 2>/dev/null || echo "?")" \
            "$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "$task/stat" 2>/dev/null || echo 0)"
    done
}

# Average cores over SECONDS for a number of ticks, with 2 decimals: cores TICKS SECONDS.
cores() {
    awk -v t="$1" -v hz="$HZ" -v d="$2" 'BEGIN { v = t / hz / d; if (v < 0) v = 0; printf "%.2f", v }'
}

# Seconds from one `date +%s.%N` to another: seconds_between T0 T1.
seconds_between() { awk -v a="$1" -v b="$2" 'BEGIN { print b - a }'; }

# Takes the readings before a measured run against grona-mock: machine, children, grona-mock, its threads, time.
cpu_before() {
    CPU_M0="$(machine_ticks)"
    children_ticks CPU_C0
    CPU_G0="$(process_ticks "$GRONA_PID")"
    thread_ticks "$GRONA_PID" >"$WORK/threads-0.txt"
    CPU_T0="$(date +%s.%N)"
}

# Takes the same readings after the run; CPU_G1 is empty if grona-mock is gone.
cpu_after() {
    CPU_T1="$(date +%s.%N)"
    CPU_M1="$(machine_ticks)"
    children_ticks CPU_C1
    CPU_G1="$(process_ticks "$GRONA_PID")"
    thread_ticks "$GRONA_PID" >"$WORK/threads-1.txt"
}

# Dies unless grona-mock lived through the run: the figures would mean nothing otherwise.
check_grona_lived() {
    if ! kill -0 "$GRONA_PID" 2>/dev/null || [[ -z "$CPU_G1" ]]; then die "grona-mock died during the run"; fi
}

# Splits the run's CPU into CPU_GRONA, CPU_WRK and CPU_OTHER cores, and CPU_THREADS, grona-mock's busy threads in
# name order ("grona-loop-0 0.41, grona-loop-1 0.38, grona-writer 0.52"). Approximate: the window also holds
# wrk's start and end, and loopback softirq work is charged to whichever process was running.
cpu_split() {
    local seconds
    seconds="$(seconds_between "$CPU_T0" "$CPU_T1")"
    CPU_GRONA="$(cores "$((CPU_G1 - CPU_G0))" "$seconds")"
    CPU_WRK="$(cores "$((CPU_C1 - CPU_C0))" "$seconds")"
    CPU_OTHER="$(cores "$((CPU_M1 - CPU_M0 - (CPU_G1 - CPU_G0) - (CPU_C1 - CPU_C0)))" "$seconds")"
    CPU_THREADS="$(awk -v hz="$HZ" -v d="$seconds" '
        NR == FNR { before[$1] += $2; next }
        { after[$1] += $2 }
        END { for (n in after) { c = (after[n] - before[n]) / hz / d; if (c >= 0.01) printf "%s %.2f\n", n, c } }
    ' "$WORK/threads-0.txt" "$WORK/threads-1.txt" | sort | paste -sd ',' - | sed 's/,/, /g')"
}

# Logs where the CPU went during the wrk run, from cpu_split.
log_cpu_split() {
    log "== cpu during the wrk run: grona-mock ${CPU_GRONA} cores (${CPU_THREADS:-no busy thread}), wrk ${CPU_WRK} cores," \
        "everything else ${CPU_OTHER} cores (of $(nproc))"
}

# ---------------------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------------------

# Succeeds if the number A is at least B: at_least A B.
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }

# Succeeds if the number A is above B: above A B.
above() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > b + 0) }'; }

# Prints the verdict on RATIO against TARGET_RATIO: PASS, BELOW TARGET, or BELOW TARGET (PROBLEM) whatever the
# rate when PROBLEM is given: verdict RATIO [PROBLEM]. Pass the ratio as printed, so the two never disagree.
verdict() {
    if [[ -n "${2:-}" ]]; then
        echo "BELOW TARGET ($2)"
    elif at_least "$1" "$TARGET_RATIO"; then
        echo "PASS"
    else
        echo "BELOW TARGET"
    fi
}

# ---------------------------------------------------------------------------------------------------------
# nginx as a reference or a sink (http.sh, load-generator.sh)
# ---------------------------------------------------------------------------------------------------------

# A port that was free a moment ago. nginx cannot report a port it chose itself, so one is picked here;
# the small race with other programs is handled by the callers retrying.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# The start of a generated nginx.conf, up to and including `http {` and its settings that keep every file in
# WORK: nginx_conf_head SCRIPT-NAME WORKER-CONNECTIONS. The caller writes the rest of the http block.
# user: when we are root, nginx's workers would drop to "nobody", who cannot enter the 0700 temp dir that
# mktemp made; as anyone else, they keep our identity anyway.
nginx_conf_head() {
    local user_line=""
    if [[ "$(id -u)" -eq 0 ]]; then user_line="user root root;"; fi
    cat <<EOF
# Generated by bench/$1; everything lives in $WORK so nothing under /etc or /var is touched.
$user_line
worker_processes 1;
daemon off;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;

events {
    worker_connections $2;
}

http {
    access_log off;
    client_body_temp_path $WORK/nginx-tmp/body;
    proxy_temp_path       $WORK/nginx-tmp/proxy;
    fastcgi_temp_path     $WORK/nginx-tmp/fastcgi;
    uwsgi_temp_path       $WORK/nginx-tmp/uwsgi;
    scgi_temp_path        $WORK/nginx-tmp/scgi;
EOF
}

# Polls until a GET of URL succeeds or SECONDS pass; fails early if PID dies. Further arguments go to curl
# (--cacert for https).
wait_http() {
    local url="$1" pid="$2" seconds="$3" i
    shift 3
    for ((i = 0; i < seconds * 10; i++)); do
        kill -0 "$pid" 2>/dev/null || return 1
        curl -fsS -o /dev/null --max-time 1 "$@" "$url" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# nginx as the reference: launch_nginx URL-TEMPLATE [CURL-ARGS...] runs it on a free port with the
# configuration the script's own write_nginx_conf PORT writes, until the URL (the template with %s for the
# port) answers; three ports are tried. Sets NGINX_PID and NGINX_URL; the script needs NGINX set.
NGINX_PID=""
launch_nginx() {
    local template="$1" attempt port url
    shift
    mkdir -p "$WORK/nginx-tmp"
    for attempt in 1 2 3; do
        port="$(free_port)"
        write_nginx_conf "$port"
        # -e sends the error log to the temp dir from the first moment, before the config is read.
        "$NGINX" -p "$WORK" -e "$WORK/nginx-error.log" -c "$WORK/nginx.conf" >"$WORK/nginx.out" 2>&1 </dev/null &
        NGINX_PID=$!
        # shellcheck disable=SC2059 # the template is the caller's format, with %s for the port
        url="$(printf "$template" "$port")"
        if wait_http "$url" "$NGINX_PID" 10 "$@"; then
            # shellcheck disable=SC2034 # read by the script that called
            NGINX_URL="$url"
            log "== nginx $("$NGINX" -v 2>&1 | sed 's/^nginx version: //') listening on $url (pid $NGINX_PID)"
            return 0
        fi
        log "nginx did not come up on port $port (attempt $attempt):"
        tail -n 5 "$WORK/nginx-error.log" "$WORK/nginx.out" >&2 2>/dev/null || true
        stop_nginx
    done
    die "nginx could not be started"
}

# nginx's workers are children of its master; a KILLed master would leave them running, so they are
# collected by parent pid first and stopped after the master.
stop_nginx() {
    [[ -n "$NGINX_PID" ]] || return 0
    local workers
    workers="$(ps -o pid= --ppid "$NGINX_PID" 2>/dev/null || true)"
    stop_process "$NGINX_PID" nginx
    local w
    for w in $workers; do
        kill -KILL "$w" 2>/dev/null || true
    done
    NGINX_PID=""
}
