#!/bin/bash
# Base exchange input rules against a running hipd (b), from a's namespace:
#  - a datagram shorter than a HIP header is counted as bad_length, not as
#    oversize (IPv4 and IPv6);
#  - an I1 storm (the same I1 from one source, many times within 100 ms) is
#    discarded before any R1 work and counted as i1_storm (RFC 7401 §5.3.1,
#    docs/requirements.md P-11), visible in `hipconf show stats`;
#  - afterwards a base exchange completes.
. "$(dirname "$0")/lib.sh"

netns_host a b
netns_link a b 0
hipd_launch a
hipd_launch b
hipd_wait a b || exit 1
HB=$(hit b)

# short FAMILY DST: one 10-byte datagram of protocol 139 from a to DST.
short() {
	nsx a python3 -c 'import socket, sys
fam = socket.AF_INET if sys.argv[1] == "4" else socket.AF_INET6
s = socket.socket(fam, socket.SOCK_RAW, 139)
s.sendto(b"\x3b\x00\x01\x02" + bytes(6), (sys.argv[2], 0))' "$1" "$2"
}

echo "# short datagrams"
short_before=$(stat_of b drops.bad_length)
over_before=$(stat_of b drops.oversize)
check "a 10-byte datagram over IPv4 is sent" short 4 "$(addr4 b)"
check "a 10-byte datagram over IPv6 is sent" short 6 "$(addr6 b)"
short_counted() { [ $(($(stat_of b drops.bad_length) - short_before)) -ge 2 ]; }
check "both are counted as bad_length" wait_for "bad_length +2" 3 short_counted
check "none as oversize" eq "$(stat_of b drops.oversize)" "$over_before"
check "hipd still runs" hipd_alive b

echo "# an I1 storm: one I1, 300 times, as fast as the injector goes"
r1_before=$(stat_of b r1_sent); storm_before=$(stat_of b drops.i1_storm)
nsx a "$HIP_INJECT" --mode i1flood --sources 1 --count 300 --rate 0 --src "$(addr4 a)" \
	--dst "$(addr4 b)" --dst-hit "$HB" >"$NETNS_TMP/storm.out" 2>&1
check "300 identical I1s sent" eval "grep -q '^i1flood: 300 I1s' '$NETNS_TMP/storm.out' ||
	{ cat '$NETNS_TMP/storm.out'; false; }"
check "hipd still runs" hipd_alive b
storm=$(($(stat_of b drops.i1_storm) - storm_before))
r1s=$(($(stat_of b r1_sent) - r1_before))
echo "       i1_storm +$storm, R1s sent +$r1s"
# (generous: on a loaded machine the burst may straddle a few 100 ms windows)
check "most of the storm was discarded as i1_storm" ge "$storm" 200
check "few R1s were sent for it" eval "[ $r1s -le 20 ] || { echo 'R1s: $r1s'; false; }"
check "hipconf show stats names the counter" eval "hc b show stats | grep -q i1_storm"

echo "# afterwards"
map a b
check "a BEX right after completes" eval 'hc a trigger "$HB" >/dev/null && wait_up a b 10'
check "SPIs pair up" spis_match a b

netns_done
