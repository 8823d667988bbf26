#!/bin/sh
# Sends a message to a session (--new: a new session) and waits for the
# turn to end, then prints the agent's reply (its Markdown). A turn that
# stops on something only you can answer ends the script with exit 5,
# and stderr names the command that answers it (see approve-all.sh).
#
#   examples/send.sh demo "summarise the changelog" --host ws://127.0.0.1:8080/
#   AHPTUI_HOST=work examples/send.sh --new "hello"
#
# The arguments after the message name the host as for any command.
set -eu
if [ $# -lt 2 ]; then
	echo "usage: $0 SESSION|--new MESSAGE [ahptui flags]" >&2
	exit 2
fi
session=$1 message=$2
shift 2
if [ "$session" = --new ]; then
	session=$(ahptui new "$@")
	echo "session: $session" >&2
fi
ahptui send "$@" --jq '.turn.parts[] | select(.kind == "markdown") | .text' -- "$session" "$message"
