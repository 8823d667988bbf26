#!/bin/sh
# Exports the transcript of every session of the host to Markdown, one
# file per session: DIR/ID.md (the id after ahp-session:/, any character
# other than letters, digits, '.', '_' and '-' made '_'). Prints each
# file's path.
#
#   examples/export-markdown.sh transcripts --host ws://127.0.0.1:8080/
#   AHPTUI_HOST=work examples/export-markdown.sh transcripts
set -eu
if [ $# -lt 1 ]; then
	echo "usage: $0 DIR [ahptui flags]" >&2
	exit 2
fi
dir=$1
shift
mkdir -p -- "$dir"
sessions=$(ahptui sessions "$@" --jq '.[].session')
printf '%s\n' "$sessions" | while IFS= read -r session; do
	[ -n "$session" ] || continue
	name=$(printf '%s' "${session#*:/}" | tr -c 'A-Za-z0-9._-' '_')
	ahptui show --markdown "$@" -- "$session" >"$dir/$name.md"
	printf '%s\n' "$dir/$name.md"
done
