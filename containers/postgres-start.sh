#!/bin/sh
# The archive's PostgreSQL: made on first start (database and role `bluemoon`, password from
# POSTGRES_PASSWORD, scram-sha-256 over TCP), then run in the foreground.
set -eu
data=/var/lib/postgresql/data
bin=$(ls -d /usr/lib/postgresql/*/bin | tail -1)
if [ ! -s "$data/PG_VERSION" ]; then
    printf '%s\n' "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}" > /tmp/pwfile
    "$bin/initdb" -D "$data" -U postgres --auth-local=peer --auth-host=scram-sha-256 --pwfile=/tmp/pwfile >/dev/null
    rm /tmp/pwfile
    echo "listen_addresses = '*'" >> "$data/postgresql.conf"
    echo "host all all 0.0.0.0/0 scram-sha-256" >> "$data/pg_hba.conf"
    "$bin/pg_ctl" -D "$data" -w start >/dev/null
    psql -q -v ON_ERROR_STOP=1 -U postgres -c "CREATE ROLE bluemoon LOGIN PASSWORD '$POSTGRES_PASSWORD'" \
        -c "CREATE DATABASE bluemoon OWNER bluemoon"
    "$bin/pg_ctl" -D "$data" -w stop >/dev/null
fi
exec "$bin/postgres" -D "$data"
