# PostgreSQL for the compose profile `cluster` (docs/scaling.md), from the same Debian base as grona-mock's image:
# Debian's own postgresql package, so no PostgreSQL image has to be pulled. A throwaway database for a mock:
# trust authentication on the compose network, no port published to the host, data on a named volume.
ARG RUN_IMAGE=docker.io/library/debian:bookworm-slim
FROM ${RUN_IMAGE}
RUN set -eu; \
    if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then \
        apt-get update; \
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql; \
        apt-get clean; \
        rm -rf /var/lib/apt/lists/*; \
    fi; \
    mkdir -p /var/lib/postgresql/data /run/postgresql; \
    chown -R postgres:postgres /var/lib/postgresql /run/postgresql
COPY --chmod=0755 postgres-entry.sh /usr/local/bin/postgres-entry.sh
USER postgres
ENV PGDATA=/var/lib/postgresql/data
VOLUME ["/var/lib/postgresql/data"]
EXPOSE 5432
STOPSIGNAL SIGINT
HEALTHCHECK --interval=2s --timeout=3s --start-period=10s --retries=15 \
    CMD pg_isready -h 127.0.0.1 -p 5432 -U postgres || exit 1
ENTRYPOINT ["/usr/local/bin/postgres-entry.sh"]
