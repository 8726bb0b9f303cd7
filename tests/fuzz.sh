#!/bin/sh
# fuzz.sh - build and run the libFuzzer targets briefly (docs/requirements.md RB-04).
#
# Usage: tests/fuzz.sh [SECONDS]      (default 60)
#
# Configures build-fuzz/ with clang and --enable-fuzz (ASAN + UBSAN), builds
# the targets, copies each seed corpus to a temporary working corpus and
# fuzzes fuzz_packet for SECONDS, fuzz_conf for half of it, fuzz_reg_allow
# for a quarter and fuzz_priv, fuzz_esp, fuzz_xfrm, fuzz_icmp, fuzz_fw,
# fuzz_hosts, fuzz_fw_state, fuzz_lsi, fuzz_route, fuzz_known_hosts and
# fuzz_uesp_frag for a ninth each.
# Prints the number of executions; exits non-zero on any crash, leak,
# sanitizer report or timeout (the reproducer is written to fuzz/crash-*
# and friends). BUILD_DIR overrides build-fuzz. Longer runs that grow the
# corpora: tests/fuzz-long.sh (make fuzz-long).
#
# The seeds in fuzz/corpus/packet/ are the valid packets of check_packet.c:
#   HIP_SEED_DIR=$PWD/fuzz/corpus/packet top_srcdir=$PWD build/tests/unit/check_packet
# rewrites them. fuzz/packet.dict lists the parameter types (hip_wire.h).
# fuzz_priv, fuzz_esp and fuzz_xfrm (sources in tests/fuzz/) write their own
# seeds: HIP_SEED_DIR=$PWD/fuzz/corpus/esp build-fuzz/fuzz/fuzz_esp -runs=0
set -eu

secs=${1:-60}
case $secs in
''|*[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-fuzz}

. "$root/tests/lib/fuzz-build.sh"
fuzz_build fuzz.sh packet conf reg_allow priv esp xfrm icmp fw hosts fw_state lsi route known_hosts \
	uesp_frag || exit 1

work=$(mktemp -d "${TMPDIR:-/tmp}/hip-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# UBSAN stops at the first report too, so libFuzzer saves the reproducer.
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS ASAN_OPTIONS

# fuzz_target NAME SECONDS [DICT [FLAGS]]: run fuzz/fuzz_NAME on a copy of
# fuzz/corpus/NAME; fail on any crash or sanitizer report.
fuzz_target() {
	name=$1; t=$2; dict=${3:-}; flags=${4:-}
	mkdir -p "$work/$name"
	cp "$root"/fuzz/corpus/"$name"/* "$work/$name/"
	log="$work/$name.log"
	rc=0
	"$build/fuzz/fuzz_$name" "$work/$name" \
		-max_total_time="$t" \
		${dict:+-dict="$dict"} $flags \
		-print_final_stats=1 \
		-rss_limit_mb=2048 \
		-timeout=10 \
		-artifact_prefix="$root/fuzz/" \
		>"$log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	corpus=$(ls "$work/$name" | wc -l)
	echo "fuzz_$name: ${execs:-?} executions (limit ${t} s), working corpus ${corpus} inputs"
	if [ "$rc" -ne 0 ] || grep -q -e '^==[0-9]*==ERROR' -e 'runtime error:' "$log"; then
		grep -A 30 -e '^==[0-9]*==ERROR' -e 'runtime error:' -e 'deadly signal' "$log" \
			| head -n 60 >&2
		echo "fuzz.sh: fuzz_$name FAILED (libFuzzer exit $rc); reproducer in $root/fuzz/" >&2
		return 1
	fi
	return 0
}

status=0
fuzz_target packet "$secs" "$root/fuzz/packet.dict" || status=1
# The configuration, hosts and control-request parsers: half the time.
fuzz_target conf $(( (secs + 1) / 2 )) || status=1
# The registrar's allow-list file (hipd/engine/reg/reg_allow.c): a quarter.
fuzz_target reg_allow $(( (secs + 3) / 4 )) || status=1
# privsep both ways, userspace ESP input with keys, XFRM netlink answers
# (tests/fuzz/): a ninth each. The datapaths log each refusal: stderr
# closed (libFuzzer's and the sanitizers' reports still reach the log).
for name in priv esp xfrm; do
	fuzz_target "$name" $(( (secs + 8) / 9 )) "" -close_fd_mask=2 || status=1
done
# ICMP Parameter Problems about our packets (hipd/net/icmp.c): a ninth.
fuzz_target icmp $(( (secs + 8) / 9 )) || status=1
# hipfw's rules file and packet checks (firewall/): a ninth.
fuzz_target fw $(( (secs + 8) / 9 )) || status=1
# the hosts file with names and LSIs, hipd's map and the NSS module (D-19): a ninth.
fuzz_target hosts $(( (secs + 8) / 9 )) || status=1
# hipfw's state file (firewall/fw_state.c, D-21): a ninth.
fuzz_target fw_state $(( (secs + 8) / 9 )) || status=1
# LSIs: rtnetlink dump replies, lsi_range values (D-20): a ninth.
fuzz_target lsi $(( (secs + 8) / 9 )) || status=1
# default routes from rtnetlink (hipd/net/defroute.c): a ninth.
fuzz_target route $(( (secs + 8) / 9 )) || status=1
# the opportunistic pins, known_hosts (hipd/net/known_hosts.c): a ninth.
fuzz_target known_hosts $(( (secs + 8) / 9 )) || status=1
# IPv4 reassembly before BEET (hipd/datapath/uesp/uesp_frag.c): a ninth.
fuzz_target uesp_frag $(( (secs + 8) / 9 )) || status=1
exit $status
