#!/usr/bin/env bash
# The dashboard's browser tests: headless Chromium from Debian's packages, driven by Selenium, against the built
# grona-mock (.build/debug/grona-mock; GRONA_MOCK_BINARY to use another). Installs what is missing (as root).
# Screenshots go to Tests/Browser/output/ (ignored by git).
set -euo pipefail
cd "$(dirname "$0")"

missing=()
for package in chromium chromium-driver; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
python3 -c 'import selenium' 2>/dev/null || pip install -q selenium
python3 -c 'import cryptography' 2>/dev/null || pip install -q cryptography

binary="${GRONA_MOCK_BINARY:-../../.build/debug/grona-mock}"
[[ -x "$binary" ]] || { echo "no grona-mock binary at $binary: run swift build first" >&2; exit 1; }
rm -rf output
python3 test_dashboard.py
