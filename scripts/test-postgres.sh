#!/usr/bin/env bash
# A throwaway PostgreSQL for the team ledger's tests: Debian's server, a cluster in a temporary folder.
#
#   scripts/test-postgres.sh start   prints "URL FOLDER": the server listens on 127.0.0.1 at a free port
#   scripts/test-postgres.sh stop FOLDER   stops that server and deletes its folder
#
# The server refuses to run as root, so as root the cluster belongs to the `postgres` user that Debian's
# package creates; as anyone else it belongs to them. Trust authentication on 127.0.0.1 only: the cluster
# lives for one test file and holds nothing but test rows.
set -euo pipefail

bin_dir() {
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$found" ] || [ ! -x "$found/pg_ctl" ]; then
    echo "test-postgres: no PostgreSQL server found under /usr/lib/postgresql (apt-get install postgresql)" >&2
    exit 1
  fi
  printf '%s' "$found"
}

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  node -e 'const s = require("node:net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

start() {
  local bin folder port
  bin=$(bin_dir)
  folder=$(mktemp -d "${TMPDIR:-/tmp}/rung-postgres.XXXXXX")
  if [ "$(id -u)" -eq 0 ]; then chown postgres: "$folder"; fi
  as_owner "$bin/initdb" -D "$folder/data" -U postgres --auth=trust --no-sync >"$folder/initdb.log" 2>&1 || {
    cat "$folder/initdb.log" >&2
    exit 1
  }
  # A port can be taken between choosing it and binding it: try a few.
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    if as_owner "$bin/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w -t 60 \
      -o "-p $port -k $folder -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null 2>&1; then
      printf 'postgres://postgres@127.0.0.1:%s/postgres %s\n' "$port" "$folder"
      return 0
    fi
  done
  cat "$folder/server.log" >&2
  exit 1
}

stop() {
  local folder=$1 bin
  bin=$(bin_dir)
  case "$folder" in */rung-postgres.*) ;; *) echo "test-postgres: not a test cluster: $folder" >&2; exit 2 ;; esac
  if [ -d "$folder/data" ]; then as_owner "$bin/pg_ctl" -D "$folder/data" -m immediate -w stop >/dev/null 2>&1 || true; fi
  rm -rf "$folder"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:?stop needs the folder start printed}" ;;
  *) echo "usage: scripts/test-postgres.sh start | stop FOLDER" >&2; exit 2 ;;
esac
