#!/usr/bin/env bash
# The one test command a newcomer runs (README.md) and CI runs (.ci/run).
#
# It builds the real OAuth authorization server the auth tests need (ory/hydra,
# cached after the first build), then runs every test with the race detector —
# the official AHP conformance fixtures, the fuzz seed corpora, the real
# WebSocket, OAuth and tmux end-to-end tests — and finally a short
# coverage-guided fuzz run of each fuzz target.
set -euo pipefail
cd "$(dirname "$0")/.."

bash .ci/build-hydra.sh

go vet ./...
go test -race -count=1 -timeout 30m ./...

# A short fuzz run per target: the seed corpora already ran above as regular
# tests; this explores beyond them for a bounded time.
fuzztime="${AHPTUI_FUZZTIME:-10s}"
while read -r pkg target; do
  [ -n "$pkg" ] || continue
  go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" -fuzzminimizetime=3s "$pkg"
done < <(grep -rl --include='*_test.go' '^func Fuzz' . | while read -r f; do
  pkg="./$(dirname "${f#./}")"
  grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //' | sed "s|^|$pkg |"
done | sort -u)
