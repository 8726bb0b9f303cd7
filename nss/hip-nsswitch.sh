#!/bin/sh
# hip-nsswitch - turn the "hip" NSS hosts source (libnss_hip.so.2) on or off
# in nsswitch.conf; nothing changes it without this command (D-19).
#
#   hip-nsswitch enable|disable|status [FILE]     (FILE: /etc/nsswitch.conf)
#
# enable puts "hip [NOTFOUND=return]" before "dns" on the hosts line (at its
# end if it has no dns): names of the HIP hosts file resolve to HITs and
# LSIs, NAME.hip stops at hip and never reaches DNS, other names go on.
set -eu

usage() {
	echo "usage: hip-nsswitch enable|disable|status [FILE]" >&2
	exit 2
}

[ $# -ge 1 ] && [ $# -le 2 ] || usage
cmd=$1
conf=${2:-/etc/nsswitch.conf}
[ -f "$conf" ] || { echo "hip-nsswitch: $conf: no such file" >&2; exit 1; }

# hosts line of FILE holds the hip source?
enabled() { grep -Eq '^[[:space:]]*hosts:.*[[:space:]]hip([[:space:]]|$)' "$1"; }

# Rewrite conf through sed script $1, keeping its owner and mode.
rewrite() {
	tmp=$(mktemp "$conf.XXXXXX")
	trap 'rm -f "$tmp"' EXIT
	sed -E "$1" "$conf" >"$tmp"
	chmod --reference="$conf" "$tmp" 2>/dev/null || chmod 644 "$tmp"
	chown --reference="$conf" "$tmp" 2>/dev/null || :
	mv "$tmp" "$conf"
	trap - EXIT
}

case $cmd in
status)
	if enabled "$conf"; then echo "hip: enabled in $conf"; else echo "hip: not in $conf"; fi
	;;
enable)
	if enabled "$conf"; then echo "hip: already enabled in $conf"; exit 0; fi
	grep -Eq '^[[:space:]]*hosts:' "$conf" ||
		{ echo "hip-nsswitch: $conf has no hosts: line" >&2; exit 1; }
	if grep -Eq '^[[:space:]]*hosts:.*[[:space:]]dns([[:space:]]|$)' "$conf"; then
		rewrite '/^[[:space:]]*hosts:/ s/([[:space:]])dns([[:space:]]|$)/\1hip [NOTFOUND=return] dns\2/'
	else
		rewrite '/^[[:space:]]*hosts:/ s/[[:space:]]*$/ hip [NOTFOUND=return]/'
	fi
	echo "hip: enabled in $conf"
	;;
disable)
	if ! enabled "$conf"; then echo "hip: not in $conf"; exit 0; fi
	rewrite '/^[[:space:]]*hosts:/ { s/[[:space:]]hip[[:space:]]+\[NOTFOUND=return\]([[:space:]]|$)/\1/; s/[[:space:]]hip([[:space:]]|$)/\1/; s/[[:space:]]+$// }'
	echo "hip: disabled in $conf"
	;;
*)
	usage
	;;
esac
