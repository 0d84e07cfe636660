#!/usr/bin/env bash
# A throwaway PostgreSQL for the team ledger's tests: Debian's server, a cluster in a temporary folder.
#
#   scripts/test-postgres.sh start   prints "URL FOLDER": the server listens on 127.0.0.1 at a free port
#   scripts/test-postgres.sh stop FOLDER   stops that server and deletes its folder
#   scripts/test-postgres.sh down FOLDER   stops that server and keeps its folder: a team server that is down
#   scripts/test-postgres.sh up FOLDER     starts it again, on the port it had
#   scripts/test-postgres.sh password-role FOLDER ROLE   makes ROLE a login role whose password is
#                                          $ROLE_PASSWORD, checked with scram-sha-256 over TCP (give it a
#                                          database of its own: CREATE DATABASE … OWNER ROLE)
#
# The server refuses to run as root, so as root the cluster belongs to the `postgres` user that Debian's
# package creates; as anyone else it belongs to them. Trust authentication on 127.0.0.1 only: the cluster
# lives for one test file and holds nothing but test rows. A password role's host line goes above the
# trust lines, so that role, and only it, must give its password.
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

check_folder() {
  case "$1" in */rung-postgres.*) ;; *) echo "test-postgres: not a test cluster: $1" >&2; exit 2 ;; esac
}

down() {
  local folder=$1
  check_folder "$folder"
  as_owner "$(bin_dir)/pg_ctl" -D "$folder/data" -m fast -w stop >/dev/null
}

up() {
  local folder=$1
  check_folder "$folder"
  # restart on a stopped server starts it with the options it last ran with (postmaster.opts): same port.
  as_owner "$(bin_dir)/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w -t 60 restart >/dev/null 2>&1 || {
    cat "$folder/server.log" >&2
    exit 1
  }
}

password_role() {
  local folder=$1 role=$2 port hba
  check_folder "$folder"
  case "$role" in *[!a-z0-9_]* | '') echo "test-postgres: a role is lower-case letters, digits and _: $role" >&2; exit 2 ;; esac
  : "${ROLE_PASSWORD:?password-role reads the password from ROLE_PASSWORD}"
  port=$(sed -n 's/.*"-p" "\([0-9]*\)".*/\1/p' "$folder/data/postmaster.opts")
  # The password goes in on standard input, never on a command line another user could read.
  printf "SET password_encryption = 'scram-sha-256';\nCREATE ROLE %s LOGIN PASSWORD '%s';\n" "$role" "${ROLE_PASSWORD//\'/\'\'}" |
    as_owner "$(bin_dir)/psql" -q -v ON_ERROR_STOP=1 -h "$folder" -p "$port" -U postgres -d postgres >/dev/null
  hba="$folder/data/pg_hba.conf"
  as_owner sh -c "{ printf 'host all %s 127.0.0.1/32 scram-sha-256\n' '$role'; cat '$hba'; } > '$hba.new' && mv '$hba.new' '$hba'"
  as_owner "$(bin_dir)/pg_ctl" -D "$folder/data" reload >/dev/null
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:?stop needs the folder start printed}" ;;
  down) down "${2:?down needs the folder start printed}" ;;
  up) up "${2:?up needs the folder start printed}" ;;
  password-role) password_role "${2:?password-role needs the folder start printed}" "${3:?password-role needs a role name}" ;;
  *) echo "usage: scripts/test-postgres.sh start | stop FOLDER | down FOLDER | up FOLDER | password-role FOLDER ROLE" >&2; exit 2 ;;
esac
