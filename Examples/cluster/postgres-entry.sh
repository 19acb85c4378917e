#!/bin/sh
# Starts PostgreSQL in the foreground (PID 1, SIGINT: fast shutdown), after initdb on first start.
set -eu
bin=""
for candidate in /usr/lib/postgresql/*/bin; do bin="$candidate"; done
export PATH="$bin:$PATH"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    initdb -D "$PGDATA" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
    {
        echo "listen_addresses = '*'"
        echo "max_connections = 200"
    } >>"$PGDATA/postgresql.conf"
    echo "host all all 0.0.0.0/0 trust" >>"$PGDATA/pg_hba.conf"
    echo "host all all ::/0 trust" >>"$PGDATA/pg_hba.conf"
fi
exec postgres -D "$PGDATA"
