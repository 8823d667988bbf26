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

# Known vulnerabilities: govulncheck against the offline Go vulnerability
# database in ../shared/vulndb (AHPTUI_VULNDB overrides it), failing on any
# finding our code can reach. The version is pinned so CI on a fresh
# machine fetches the same tool from the module proxy.
vulndb="${AHPTUI_VULNDB:-../shared/vulndb}"
[ -d "$vulndb" ] || { echo "no vulnerability database at $vulndb (set AHPTUI_VULNDB)"; exit 1; }
echo "== govulncheck"
go run golang.org/x/vuln/cmd/govulncheck@v1.9.0 -db "file://$(cd "$vulndb" && pwd)" ./...

go test -race -count=1 -timeout 30m ./...

# Speed budgets: the key benchmarks state a budget in their doc comments;
# run each a few times and fail when the best run is over
# AHPTUI_BUDGET_TOLERANCE (default 2) times its budget — this is a loaded
# 2-core CI machine, so a result between 1x and the tolerance only warns.
# internal/budgets holds the budgets and prints measured against budget.
workdir="$(mktemp -d)"
trap 'rm -rf "$workdir"' EXIT
echo "== benchmark budgets"
go test -run='^$' \
  -bench='^Benchmark(DecodeActionEnvelope|ChatDelta10k|ChatDelta100k|ApplySnapshot1000Turns|TranscriptStreaming|KeyToFrame)$' \
  -benchtime="${AHPTUI_BENCHTIME:-200ms}" -count=3 ./protocol/ ./views/ ./ui/ >"$workdir/bench.txt" \
  || { cat "$workdir/bench.txt"; exit 1; }
go run ./internal/budgets -tolerance="${AHPTUI_BUDGET_TOLERANCE:-2}" "$workdir/bench.txt"

# A short fuzz run per target: the seed corpora already ran above as regular
# tests; this explores beyond them for a bounded time. One summary line per
# target (from the fuzzer's final status line) is printed at the end so the
# figures can be quoted.
fuzztime="${AHPTUI_FUZZTIME:-10s}"
summary=()
while read -r pkg target; do
  [ -n "$pkg" ] || continue
  log="$workdir/fuzz-${target}.txt"
  if ! go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" -fuzzminimizetime=3s "$pkg" >"$log" 2>&1; then
    cat "$log"
    exit 1
  fi
  # "fuzz: elapsed: 10s, execs: 123456 (12345/sec), new interesting: …"
  last="$(grep 'execs:' "$log" | tail -n 1 | sed 's/^fuzz: //' || true)"
  # "fuzz: elapsed: 2s, gathering baseline coverage: 300/300 completed, …"
  seeds="$(grep 'baseline coverage: .*completed' "$log" | tail -n 1 | sed -E 's/^fuzz: elapsed: ([^,]*), gathering baseline coverage: ([0-9]+)\/.*/\2 seeds loaded in \1/' || true)"
  summary+=("$(printf '%-20s %-20s %s; %s' "$target" "$pkg" "${last:-no execs line}" "${seeds:-seed count unknown}")")
done < <(grep -rl --include='*_test.go' '^func Fuzz' . | while read -r f; do
  pkg="./$(dirname "${f#./}")"
  grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //' | sed "s|^|$pkg |"
done | sort -u)
echo "== fuzz summary (-fuzztime=$fuzztime)"
printf '%s\n' "${summary[@]}"
