#!/bin/sh
# Starts every MCP server that is stopped (and enabled) in every session
# of the host, each with `ahptui mcp start`, which waits until the server
# is ready, has failed or needs a sign-in. --session SESSION keeps to one
# session.
#
#   examples/start-servers.sh --host ws://127.0.0.1:8080/
#   AHPTUI_HOST=work examples/start-servers.sh --session demo
set -eu
list=$(ahptui mcp list "$@" --jq '.[] | select(.state == "stopped" and .enabled) | [.session, .id] | @tsv')
tab=$(printf '\t')
printf '%s\n' "$list" | while IFS=$tab read -r session id; do
	[ -n "$session" ] || continue
	ahptui mcp start "$@" --session "$session" -- "$id" </dev/null
done
