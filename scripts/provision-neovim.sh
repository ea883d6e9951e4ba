#!/usr/bin/env bash
# Installs what the Neovim test needs (test/editors/neovim.test.ts): Debian's `neovim` package, so
# the documented set-up (docs/editors.md) is tested against the Neovim that Debian 12 ships (0.7.2).
# Idempotent: when `nvim` is on PATH it only prints its path.
# On success the last line of output is the path of `nvim`.
# Exit status 3 (with a message naming what is missing) when it cannot be installed here: not
# Debian, or not root. CI runs as root on Debian 12 (`npm ci && npm test`).
set -euo pipefail

say() { printf '[provision-neovim] %s\n' "$*" >&2; }
cannot() { say "CANNOT PROVISION: $*"; say "Set APL_SKIP_NEOVIM_TESTS=1 to skip the Neovim test."; exit 3; }

if ! command -v nvim >/dev/null 2>&1; then
    [ -f /etc/debian_version ] || cannot "nvim is missing, and this is not Debian (no apt-get): install Neovim by hand"
    [ "$(id -u)" = 0 ] || cannot "nvim is missing; run as root, or: sudo apt-get install -y neovim"
    # One apt-get at a time: the real-VS-Code provisioning may be installing packages too.
    exec 9>/var/lock/apl-tools-provision-neovim.lock
    flock 9
    if ! command -v nvim >/dev/null 2>&1; then
        say "apt-get install neovim"
        apt_log="$(mktemp -t apl-provision-neovim.XXXXXX.log)"
        { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends neovim >"$apt_log" 2>&1; } ||
            { apt-get update >>"$apt_log" 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends neovim >>"$apt_log" 2>&1; } ||
            cannot "apt-get install neovim failed (see $apt_log)"
    fi
fi
command -v nvim
