#!/bin/sh
# Approves whatever waits for approval, in every session of the host:
# waits until a tool call needs your approval (inbox --wait), then runs
# the command the inbox prints for each one (`ahptui approve --host HOST
# SESSION TOOLCALL`, quoted for sh by ahptui), and ends. FOLLOW=1 keeps
# going, approving each one as it comes, until ctrl-c or an error.
#
#   AHPTUI_HOST=work examples/approve-all.sh
#   FOLLOW=1 examples/approve-all.sh --host ws://127.0.0.1:8080/ --timeout 1h
#
# The arguments name the host as for any command (none: AHPTUI_HOST, the
# saved default host, else the agent host VS Code runs here). Without
# one, inbox --wait gives up after --timeout (30s) with exit 3.
#
# The printed commands name the host (--host NAME or its URL without the
# token) but carry none of your other flags: a host that needs a
# connection token is best saved (ahptui hosts add NAME URL --token-file
# FILE), or its token put in AHPTUI_CONNECTION_TOKEN. The one-liner:
#
#   ahptui inbox --wait --kind approval --jq '.items[].answer' | sh
set -eu
while :; do
	answers=$(ahptui inbox --wait --kind approval --jq '.items[].answer' "$@")
	printf '%s\n' "$answers" | sh -e
	[ "${FOLLOW:-}" = 1 ] || break
done
