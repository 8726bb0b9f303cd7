#!/bin/sh
# check-doc-refs.sh - the tree refers only to documents it contains.
#
#   (a) no tracked file outside docs/ mentions the external checklist
#       ("spec.md", "spec §", "shared/docs/");
#   (b) every requirement or decision ID cited in a tracked source file
#       (*.c *.h *.sh *.am *.ac *.md, docs/ excluded) is defined in
#       docs/decisions.md ("### ID ...") or docs/requirements.md ("| ID |").
#
# Usage: tests/check-doc-refs.sh [DIR...]   (default: the whole tree)
# Prints one line per problem, then "doc-refs: N passed, M failed" where N
# is the number of distinct cited IDs found defined and M the number of
# problems. Exits 1 if there is any problem, 2 on a usage error.
# No network; needs git, grep, sed, awk, sort.

set -u

root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel 2>/dev/null) || {
	echo "check-doc-refs: not in a git work tree" >&2
	exit 2
}
cd "$root" || exit 2

decisions=docs/decisions.md
requirements=docs/requirements.md
for f in "$decisions" "$requirements"; do
	[ -f "$f" ] || { echo "check-doc-refs: $f is missing" >&2; exit 2; }
done

# Things shaped like IDs that are not IDs (curve names and the like).
allow='P-192 P-224 P-256 P-384 P-521 SHA-1 SHA-2 SHA-3 UTF-8 X-25519 X-448'

id_re='\b(A|C|D|E|M|MH|P|R|RB|S|W|T|N|X)-[0-9]{1,2}\b'

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# Tracked files to scan: the arguments (directories or files), else all.
# Skip docs/, .notes/, build directories, and this script (it names the
# patterns it looks for).
self=tests/check-doc-refs.sh
git ls-files -z -- "$@" | tr '\0' '\n' |
	grep -Ev '^(docs/|\.notes/|build[^/]*/)' |
	grep -vxF "$self" >"$tmp/files" || true
: >"$tmp/existing"
while IFS= read -r f; do
	[ -f "$f" ] && printf '%s\n' "$f" >>"$tmp/existing"
done <"$tmp/files"

problems=0

# (a) references to the external checklist
if [ -s "$tmp/existing" ]; then
	tr '\n' '\0' <"$tmp/existing" |
		xargs -0 grep -nIE 'spec\.md|spec §|shared/docs/' -- >"$tmp/ext" 2>/dev/null || true
	while IFS= read -r hit; do
		echo "external reference: $hit"
		problems=$((problems + 1))
	done <"$tmp/ext"
fi

# IDs defined in docs/
{
	sed -nE 's/^### ([A-Z]{1,2}-[0-9]{1,2})[ :].*/\1/p' "$decisions" "$requirements"
	sed -nE 's/^\| *([A-Z]{1,2}-[0-9]{1,2}) *\|.*/\1/p' "$decisions" "$requirements"
} | sort -u >"$tmp/defined"

# (b) IDs cited in source files
grep -E '\.(c|h|sh|am|ac|md)$' "$tmp/existing" | tr '\n' '\0' |
	xargs -0 grep -noE "$id_re" -- 2>/dev/null >"$tmp/cited" || true
: >"$tmp/ok"
while IFS= read -r hit; do
	id=${hit##*:}
	where=${hit%:*}
	case " $allow " in *" $id "*) continue ;; esac
	if grep -qxF "$id" "$tmp/defined"; then
		echo "$id" >>"$tmp/ok"
	else
		echo "undefined ID: $where: $id"
		problems=$((problems + 1))
	fi
done <"$tmp/cited"

passed=$(sort -u "$tmp/ok" | wc -l | tr -d ' ')
echo "doc-refs: $passed passed, $problems failed"
[ "$problems" -eq 0 ]
