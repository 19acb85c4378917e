# grona-mock as a service: one static-stdlib binary on Debian bookworm with only the runtime libraries, run as a
# non-root user, with the database on a volume at /data. See docs/containers.md.
#
# From source, with the official images (the default target, the last stage):
#
#   docker build -t grona-mock .
#   docker run --rm -p 127.0.0.1:8080:8080 grona-mock
#
# Both base images are build arguments, so a mirror or a local base works with the same file:
#
#   podman build --format docker --build-arg RUN_IMAGE=localhost/debian:bookworm -t grona-mock .
#
# With a binary built elsewhere (`swift build -c release --product grona-mock --static-swift-stdlib` on a Debian
# bookworm or older glibc), put it alone in a directory and hand that directory in as the named build context
# `grona-mock-bin`; the Swift image is then never pulled:
#
#   podman build --format docker --target prebuilt --build-context grona-mock-bin=/tmp/bin -t grona-mock .
#   docker buildx build --target prebuilt --build-context grona-mock-bin=/tmp/bin -t grona-mock .
#
# Why a --target and not `ARG BINARY_SOURCE` + `COPY --from=${BINARY_SOURCE}` (or `FROM ${BINARY_SOURCE} AS
# binary`): buildah (podman 4.3) expands the argument in --from but decides which stages to skip before expanding
# it, so it either skips the stage it then needs or, with --skip-unused-stages=false, builds (and pulls) both. A
# target names a stage literally, which BuildKit and buildah both resolve, and each skips the stages the target
# does not use. `--format docker` matters on podman: the OCI format has no HEALTHCHECK and podman drops it.
#
# The committed workspaces/ and keys/ (test keys only, see keys/README.md) are baked in, owned by root and
# world-readable; mount your own read-only over /app/workspaces and /app/keys, readable by uid 10001.

ARG BUILD_IMAGE=docker.io/library/swift:6.1-bookworm
ARG RUN_IMAGE=docker.io/library/debian:bookworm-slim

FROM ${BUILD_IMAGE} AS build
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libssl-dev libsqlite3-dev zlib1g-dev libpq-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /build
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product grona-mock --static-swift-stdlib \
    && cp "$(swift build -c release --product grona-mock --static-swift-stdlib --show-bin-path)/grona-mock" \
        /build/grona-mock

# Everything but the binary: the runtime libraries (exactly what `ldd grona-mock` lists beyond libc), the user,
# the files, the environment, the health check.
FROM ${RUN_IMAGE} AS runtime
# apt runs only when a library is missing: debian:bookworm-slim lacks them, a base made with
# `debootstrap --include=...` (what .ci/container-test does) has them all and builds without the network.
RUN set -eu; \
    missing=""; \
    for package in libssl3 libsqlite3-0 libpq5 zlib1g libstdc++6 ca-certificates curl; do \
        dpkg-query -W -f '${db:Status-Abbrev}' "$package" 2>/dev/null | grep -q '^ii' || missing="$missing $package"; \
    done; \
    if [ -n "$missing" ]; then \
        apt-get update; \
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing; \
        apt-get clean; \
        rm -rf /var/lib/apt/lists/*; \
    fi; \
    groupadd --system --gid 10001 grona; \
    useradd --system --uid 10001 --gid 10001 --home-dir /app --no-create-home --shell /usr/sbin/nologin grona; \
    mkdir -p /app /data; \
    chown grona:grona /data
WORKDIR /app
# Root-owned and read-only for the server (it never writes them: run-time changes live in memory and the
# database). The modes are set here so that a checkout made under a strict umask still gives uid 10001 read access.
COPY workspaces ./workspaces
COPY keys ./keys
RUN chmod -R u=rwX,go=rX /app/workspaces /app/keys
ENV GRONA_MOCK_HOST=0.0.0.0 \
    GRONA_MOCK_PORT=8080 \
    GRONA_MOCK_WORKSPACES=/app/workspaces \
    GRONA_MOCK_KEYS=/app/keys \
    GRONA_MOCK_DB=/data/grona-mock.sqlite \
    GRONA_MOCK_LOG_FORMAT=json
USER grona
VOLUME ["/data"]
EXPOSE 8080
# grona-mock is PID 1 and handles SIGTERM itself: stops accepting, answers what is in flight, commits, exits 0.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=5s --timeout=3s --start-period=5s --retries=5 \
    CMD curl -fsS "http://127.0.0.1:${GRONA_MOCK_PORT}/_mock/health/ready" || exit 1
ENTRYPOINT ["grona-mock", "serve"]

# A binary built outside (see the top): `--target prebuilt --build-context grona-mock-bin=DIR`.
FROM runtime AS prebuilt
COPY --from=grona-mock-bin grona-mock /usr/local/bin/grona-mock

# The default: built from source in the Swift image above. Keep this stage last.
FROM runtime AS from-source
COPY --from=build /build/grona-mock /usr/local/bin/grona-mock
