#!/bin/sh
# Starts a session, sends a message whose tool call waits for approval,
# approves it with one of the options the host offers (--option 2: on the
# demo host and VS Code's, "Allow once"), waits for the turn to end and
# prints the chat.
#
#   AHPTUI=ahptui examples/approve.sh --host ws://127.0.0.1:8080/
#
# The arguments name the host as for any command (--host URL or a saved
# name; none: AHPTUI_HOST, the saved default host, else the agent host
# VS Code runs here). --demo does not fit: each command would start a
# demo host of its own; run `ahptui demo serve` and give its URL.
set -eu
ahptui=${AHPTUI:-ahptui}

session=$("$ahptui" new "$@")
code=0
"$ahptui" send "$session" "update the changelog, with options" "$@" || code=$?
case $code in
0) ;;
5)  # waiting on the user: an approval here (send printed what and how)
    "$ahptui" watch "$session" --until input "$@" >/dev/null
    "$ahptui" approve "$session" --option "${OPTION:-2}" "$@"
    "$ahptui" watch "$session" --until idle "$@" >/dev/null ;;
*) exit "$code" ;;
esac
"$ahptui" show "$session" "$@"
