#!/usr/bin/env bash
# Examples/testcontainers/run.sh: runs test_grona_mock.py, the Testcontainers example, as CI does: against
# podman's Docker-compatible API, with no Docker engine and no registry. See docs/testcontainers.md.
#
#   1. podman, the cached Debian base and a runtime that works here (.ci/lib/containers.sh, as .ci/container-test);
#   2. the grona-mock image: the repository's Dockerfile, `--target prebuilt`, with the release binary
#      (release/make.sh --binary: an up-to-date check when CI built it before);
#   3. `podman system service` on a unix socket in a scratch directory, and a venv (cached) with requirements.txt;
#   4. pytest, with DOCKER_HOST=unix://<that socket>, TESTCONTAINERS_RYUK_DISABLED=true (Ryuk is an image to pull
#      and a privileged container; the fixture's `with` block removes its container, and this script removes any
#      container of the image it built), TESTCONTAINERS_CONNECTION_MODE=docker_host (below) and GRONA_MOCK_IMAGE
#      naming the image.
# Exit 0 when the tests passed; 1 when one failed, or when containers cannot run here unless
# GRONA_MOCK_CI_ALLOW_NO_CONTAINERS=1 (a developer without podman; never in CI). Removes the image, its
# containers and the API service it started (trap on EXIT); every wait is bounded.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
EXAMPLE="$REPO/Examples/testcontainers"
SERVICE_TIMEOUT=30    # seconds for the API socket to answer
TEST_TIMEOUT=300      # seconds for the whole pytest run

RUN_ID="gmtc$$${RANDOM}"
WORK=$(mktemp -d "/tmp/grona-mock-testcontainers.${RUN_ID}.XXXXXX")
# shellcheck source=.ci/lib/containers.sh
source "$REPO/.ci/lib/containers.sh"
IMAGE="localhost/grona-mock-ci/grona-mock:${RUN_ID}"
IMAGE_BUILT=""
SERVICE_PID=""

cleanup() {
    local status=$?
    set +e
    end_step
    if [[ -n $SERVICE_PID ]] && kill -0 "$SERVICE_PID" 2>/dev/null; then
        kill -TERM "$SERVICE_PID"
        timeout 10 tail --pid="$SERVICE_PID" -f /dev/null || kill -KILL "$SERVICE_PID"
    fi
    if [[ -n ${CONTAINERS_CONF:-} ]] && command -v podman >/dev/null 2>&1; then
        local ids=()
        if [[ -n $IMAGE_BUILT ]]; then
            mapfile -t ids < <(pm ps -aq --filter "ancestor=$IMAGE" 2>/dev/null)
            ((${#ids[@]})) && pm rm -f -t 2 "${ids[@]}" >>"$WORK/cleanup.log" 2>&1
            pm rmi -f "$IMAGE" >>"$WORK/cleanup.log" 2>&1
            if pm image exists "$IMAGE" 2>/dev/null; then
                printf '\ncleanup left the image %s behind (see %s/cleanup.log)\n' "$IMAGE" "$WORK" >&2
                ((status == 0)) && status=1
            fi
        fi
    fi
    print_timings
    if [[ $status == 0 && $SKIPPED == 0 ]]; then
        printf '\nthe Testcontainers example passed (runtime %s)\n' "$CONTAINER_RUNTIME"
    fi
    if [[ $status == 0 ]]; then
        rm -rf "$WORK"
    else
        printf 'logs kept in %s\n' "$WORK" >&2
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

step "1/4 podman, the cached Debian base, a runtime that works here"
containers_tools
debian_base
choose_runtime
note "runtime $CONTAINER_RUNTIME; build isolation $BUILD_ISOLATION"

step "2/4 the grona-mock image from the release binary"
release_binary
mkdir -p "$WORK/bin"
cp "$RELEASE_BINARY" "$WORK/bin/grona-mock"
IMAGE_BUILT=1
build_image "$IMAGE" "$WORK/bin" || fail "podman build failed"
echo "built $IMAGE"

step "3/4 podman's Docker-compatible API on a unix socket; the Python packages"
socket="$WORK/podman.sock"
podman system service --time=0 "unix://$socket" >"$WORK/podman-service.log" 2>&1 &
SERVICE_PID=$!
deadline=$((SECONDS + SERVICE_TIMEOUT))
until [[ $(curl -s --max-time 2 --unix-socket "$socket" http://podman/_ping 2>/dev/null) == OK ]]; do
    kill -0 "$SERVICE_PID" 2>/dev/null || { cat "$WORK/podman-service.log" >&2; fail "podman system service exited"; }
    ((SECONDS < deadline)) || fail "podman's API did not answer on $socket within ${SERVICE_TIMEOUT}s"
    sleep 0.2
done
echo "podman system service: unix://$socket ($(curl -s --max-time 5 --unix-socket "$socket" http://podman/version \
    | python3 -c 'import json, sys; v = json.load(sys.stdin); print("Docker API", v["ApiVersion"], "from", v["Components"][0]["Name"], v["Version"])'))"

requirements_key=$( (python3 --version; cat "$EXAMPLE/requirements.txt") | sha256sum | cut -c1-12)
venv="$CACHE/testcontainers-$requirements_key"
if ! "$venv/bin/python" -c 'import testcontainers, pytest' >/dev/null 2>&1; then
    echo "installing requirements.txt from PyPI into $venv"
    rm -rf "$venv"
    logged venv python3 -m venv "$venv" || { rm -rf "$venv"; cannot_run "cannot make a Python venv (python3-venv?)"; }
    logged pip timeout 300 "$venv/bin/pip" install -q -r "$EXAMPLE/requirements.txt" \
        || { rm -rf "$venv"; cannot_run "pip install -r requirements.txt failed (PyPI unreachable?)"; }
fi
"$venv/bin/pip" list 2>/dev/null | grep -iE '^(testcontainers|pytest|docker) ' | tr -s ' ' | paste -sd ',' - || true

step "4/4 pytest test_grona_mock.py against the image, through podman's API"
# Testcontainers takes a /.dockerenv file for "these tests run in a container, beside the engine's" and then looks
# for the containers at a gateway address. A CI machine may itself be a container with that file (this one is),
# while podman runs here and publishes on this machine's own ports: docker_host mode uses the socket's host
# (localhost) and the mapped port, which is right wherever podman runs on the machine that runs the tests.
# -p no:cacheprovider and no bytecode: nothing written into the checkout.
if ! timeout "$TEST_TIMEOUT" env DOCKER_HOST="unix://$socket" TESTCONTAINERS_RYUK_DISABLED=true \
    TESTCONTAINERS_CONNECTION_MODE=docker_host GRONA_MOCK_IMAGE="$IMAGE" \
    PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" -m pytest -v -p no:cacheprovider "$EXAMPLE/test_grona_mock.py" \
    2>&1 | tee "$WORK/pytest.log"; then
    fail "the Testcontainers example failed (pytest's output is above)"
fi
passed=$(grep -Eo '[0-9]+ passed' "$WORK/pytest.log" | tail -n 1)
ok "pytest through podman's Docker API: ${passed:-?}"
