# nginx in front of the instances of the compose profile `cluster` (docs/scaling.md), from the same Debian base as
# grona-mock's image: Debian's nginx-light, so no nginx image has to be pulled.
ARG RUN_IMAGE=docker.io/library/debian:bookworm-slim
FROM ${RUN_IMAGE}
RUN set -eu; \
    if ! command -v nginx >/dev/null 2>&1; then \
        apt-get update; \
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx-light curl; \
        apt-get clean; \
        rm -rf /var/lib/apt/lists/*; \
    fi
COPY nginx.conf /etc/nginx/nginx.conf
EXPOSE 8080
STOPSIGNAL SIGQUIT
HEALTHCHECK --interval=2s --timeout=3s --start-period=5s --retries=15 \
    CMD curl -fsS http://127.0.0.1:8080/_mock/health/ready || exit 1
ENTRYPOINT ["nginx", "-g", "daemon off;"]
