#!/usr/bin/env bash
# Builds ory/hydra (the real OAuth 2.1 / OIDC server the authpkce integration
# tests run against) from its Go module, into a cache directory outside the
# repository, so a fresh machine needs only Go, gcc and the module proxy.
#
# Usage: .ci/build-hydra.sh            prints the binary path on stdout
# Output: $AHPTUI_HYDRA if set, else
#         ${XDG_CACHE_HOME:-$HOME/.cache}/ahptui/hydra-v2.3.0/hydra
# Skips the build when that file already exists (it takes minutes).
set -euo pipefail

HYDRA_VERSION=v2.3.0
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}"
out="${AHPTUI_HYDRA:-$cache_root/ahptui/hydra-$HYDRA_VERSION/hydra}"

if [ -x "$out" ]; then
	echo "$out"
	exit 0
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/ahptui-hydra-build.XXXXXX")"
cleanup() { chmod -R u+w "$work" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# A module-less download: it must not touch the caller's go.mod.
cd "$work"
src_dir="$(GOFLAGS=-mod=mod go mod download -json "github.com/ory/hydra/v2@$HYDRA_VERSION" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
if [ -z "$src_dir" ] || [ ! -d "$src_dir" ]; then
	echo "build-hydra: could not download github.com/ory/hydra/v2@$HYDRA_VERSION (is the Go module proxy reachable?)" >&2
	exit 1
fi

# The module cache copy is read-only; build from a writable copy so go.mod
# and go.sum can be adjusted.
cp -R "$src_dir" "$work/src"
chmod -R u+w "$work/src"
cd "$work/src"

# Hydra's go.mod replaces its generated client with ./internal/httpclient,
# which is a nested module and therefore absent from the module zip; the
# published hydra-client-go at the required version is the same code.
go mod edit -dropreplace github.com/ory/hydra-client-go/v2

mkdir -p "$(dirname "$out")"
tmp_out="$(dirname "$out")/.hydra.$$"
echo "build-hydra: building hydra $HYDRA_VERSION into $out (takes several minutes)" >&2
# sqlite gives hydra its in-memory store (dsn: memory); the tag
# sqlite_omit_load_extension avoids needing libdl extension loading.
GOTOOLCHAIN=local CGO_ENABLED=1 GOFLAGS="-mod=mod -buildvcs=false" \
	go build -tags sqlite,sqlite_omit_load_extension -trimpath -o "$tmp_out" .
mv -f "$tmp_out" "$out"
echo "$out"
