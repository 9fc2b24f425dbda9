#!/bin/sh
# Entrypoint of the community image. With no arguments (or `serve ...`) it starts the instance;
# anything else is a blume command: `docker compose run --rm blume create-admin -u ... -e ... -p ...`.
#
# Install, migrate and seed run at every start, but inside `blume serve` rather than as separate
# commands here: serve opens the database once and, in this order, prepares the data directory,
# applies pending migrations (BLUME_AUTO_MIGRATE=True, the default) or refuses to start when
# migrations are pending and BLUME_AUTO_MIGRATE=False, then seeds plan features and the community
# instance. Every step is idempotent and migrations serialize on a database lock, so restarts and
# several replicas starting together are safe. See docs/decisions/*-container-start.md.
set -eu

# The CLI to run; tests point it at the sources (`node --import tsx src/main.ts`).
BLUME_CLI="${BLUME_CLI:-blume}"

if [ "$#" -eq 0 ]; then
  set -- serve --single
fi

if [ "$1" = "serve" ]; then
  # The spec requires a database URL for the image; an embedded database in a container volume
  # would silently lose the multi-node and backup story the operator guide describes.
  if [ -z "${DATABASE_URL:-}" ]; then
    echo "blume-entrypoint: DATABASE_URL is required (postgres://user:password@host:5432/blume)." >&2
    exit 1
  fi
  echo "blume-entrypoint: starting; install, migrations (BLUME_AUTO_MIGRATE=${BLUME_AUTO_MIGRATE:-True}) and seed run before the server listens." >&2
fi

# exec: the server replaces this shell, so it is PID 1 and gets `docker stop`'s SIGTERM itself.
# shellcheck disable=SC2086 # BLUME_CLI is a command line, split on purpose.
exec $BLUME_CLI "$@"
