# grona-mock as a service: built with the official Swift image, run on slim Debian with only the runtime
# libraries, as a non-root user, with the database on a volume at /data.
#
#   docker build -t grona-mock .
#   docker run --rm -p 8080:8080 grona-mock
#
# The committed workspaces/ and keys/ are baked in; mount your own over /app/workspaces and /app/keys.

FROM swift:6.1-bookworm AS build
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libssl-dev libsqlite3-dev zlib1g-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /build
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product grona-mock --static-swift-stdlib \
    && cp "$(swift build -c release --show-bin-path)/grona-mock" /build/grona-mock-bin

FROM debian:bookworm-slim
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libssl3 libsqlite3-0 zlib1g ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin grona \
    && mkdir -p /app /data && chown grona:grona /data
WORKDIR /app
COPY --from=build /build/grona-mock-bin /usr/local/bin/grona-mock
COPY --chown=grona:grona workspaces ./workspaces
COPY --chown=grona:grona keys ./keys
USER grona
ENV GRONA_MOCK_HOST=0.0.0.0 \
    GRONA_MOCK_PORT=8080 \
    GRONA_MOCK_WORKSPACES=/app/workspaces \
    GRONA_MOCK_KEYS=/app/keys \
    GRONA_MOCK_DB=/data/grona-mock.sqlite \
    GRONA_MOCK_LOG_FORMAT=json
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=5s --timeout=2s --start-period=5s --retries=5 \
    CMD curl -fsS "http://127.0.0.1:${GRONA_MOCK_PORT}/_mock/health/ready" || exit 1
ENTRYPOINT ["grona-mock", "serve"]
