#!/usr/bin/env bash
# Builds the HTTP request parser fuzz target with libFuzzer and AddressSanitizer and runs it.
# Usage: Tests/Fuzz/run.sh [seconds]   (default 600)
# Crashing inputs are written to Tests/Fuzz/build/ as crash-<sha1>; see docs/fuzzing.md.
set -euo pipefail

seconds="${1:-600}"
fuzz_dir="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$fuzz_dir/../.." && pwd)"
build="$fuzz_dir/build"
http="$root/Sources/GronaMock/HTTP"

mkdir -p "$build/corpus"
cp -n "$fuzz_dir"/seeds/* "$build/corpus/"

# The parser and the types it returns, and nothing else: they use only the standard library.
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name HTTPParserFuzz \
    "$fuzz_dir/HTTPRequestParserFuzzer.swift" \
    "$http/HTTPRequestParser.swift" \
    "$http/HeadParser.swift" \
    "$http/HTTPRequestHead.swift" \
    "$http/HTTPParseError.swift" \
    "$http/HTTPHeaders.swift" \
    "$http/HTTPMethod.swift" \
    "$http/HTTPStatus.swift" \
    -use-ld=lld -o "$build/http-request-parser-fuzzer"

cd "$build"
# The Swift runtime's own crash backtracer would race AddressSanitizer and libFuzzer for the crash report.
SWIFT_BACKTRACE=enable=no ./http-request-parser-fuzzer corpus \
    -max_len=4096 -max_total_time="$seconds" -dict="$fuzz_dir/http.dict" -print_final_stats=1 \
    -artifact_prefix="$build/" 2>&1 | tee "$build/last-run.log"
