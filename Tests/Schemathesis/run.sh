#!/usr/bin/env bash
# Tests/Schemathesis/run.sh: schemathesis against a grona-mock it starts, on every /v1/mobile and /_mock
# operation of docs/openapi.yaml, with every check (issue 28). The hooks (integral_hooks.py) write every integer
# of a generated body as a float of the same value (1041 -> 1041.0): JSON Schema's integer is any number with a
# zero fractional part, and the hooks' own check, `integral_numbers_accepted`, fails any answer that refuses one
# in grona-mock's words ("must be an integer, not 1041.0"), whatever its status (a 400, or an event rejected in a
# 200). schemathesis's `positive_data_acceptance` is left out: it reports every 404 for a key the server does not
# serve and every 409 for one it does (facts of state, not of schemas), and in schemathesis 4.32 the per-operation
# `expected-statuses` of schemathesis.toml did not reach it.
#
# The server runs with an admin token, sent on every request; the grants endpoint gets the committed
# acme-market secret key instead (its own security scheme). MAX_EXAMPLES (default 25) bounds each operation.
#
# Usage:   bash Tests/Schemathesis/run.sh          MAX_EXAMPLES=100 bash Tests/Schemathesis/run.sh
# Needs python3 with pip (installs schemathesis if missing) and a built grona-mock (swift build).
set -euo pipefail
cd "$(dirname "$0")/../.."

command -v st >/dev/null 2>&1 || pip install -q 'schemathesis>=4.32,<5'
binary="$(swift build --show-bin-path)/grona-mock"
[[ -x "$binary" ]] || swift build --product grona-mock
work="$(mktemp -d "${TMPDIR:-/tmp}/grona-schemathesis.XXXXXX")"
token="schemathesis-admin-token"
"$binary" serve --port 0 --db "$work/db.sqlite" --admin-token "$token" >"$work/out" 2>"$work/err" &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do
    port="$(grep -oE 'http://[^ /]+:[0-9]+' "$work/out" 2>/dev/null | head -n 1 | sed -E 's/.*:([0-9]+)$/\1/' || true)"
    [[ -n "$port" ]] && break
    sleep 0.1
done
[[ -n "$port" ]] || { cat "$work/err" >&2; echo "grona-mock did not start" >&2; exit 1; }

cd Tests/Schemathesis
status=0
run() {
    local secret="$1" paths="$2"
    SCHEMATHESIS_HOOKS=integral_hooks st run ../../docs/openapi.yaml --url "http://127.0.0.1:$port" \
        --checks all --exclude-checks positive_data_acceptance --max-examples "${MAX_EXAMPLES:-25}" --request-timeout 130 \
        --header "Authorization: Bearer $secret" --include-path-regex "$paths" || status=$?
}
# The /_mock API (but its fault rules and the live stream, which never ends: schemathesis reads a body whole) and
# the two Grona endpoints that take no secret, with the admin token.
run "$token" '^/(_mock/(?!faults|events/live)|v1/mobile/(events|workspaces))'
# The grants endpoint, with the workspace's secret key.
run sk_test_acme_market_local '^/v1/mobile/grants'
# Fault rules last: a rule schemathesis adds (a dropped connection, a truncated body) breaks the Grona endpoints'
# answers on purpose, which would read as network errors in the runs above.
run "$token" '^/_mock/faults'
exit "$status"
