#!/bin/bash
# Runs Scripts/smoke.py against the reference service once per mutation and prints what each mutant fails.
# Needs grona-mock on MOCK (default http://127.0.0.1:18080) and a built service (swift build in Examples/ReferenceSDK).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$here/.build/debug/grona-reference-service"
mock=${MOCK:-http://127.0.0.1:18080}
port=${PORT:-18201}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for mutation in $("$bin" --list-mutations); do
  "$bin" --port "$port" --mutation "$mutation" > "$log" 2>&1 &
  pid=$!
  for _ in $(seq 50); do grep -q listening "$log" && break; sleep 0.1; done
  failed=$(timeout 300 python3 "$here/Scripts/smoke.py" "$port" "$mock" | grep '^FAIL' | cut -c6-60 | paste -sd'|' -)
  echo "$mutation: ${failed:-(none caught)}"
  kill "$pid"
  wait "$pid" 2>/dev/null
done
