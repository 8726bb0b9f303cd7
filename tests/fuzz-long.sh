#!/bin/sh
# fuzz-long.sh - a long libFuzzer run of every target that grows the
# committed corpora (docs/requirements.md RB-04; make fuzz-long).
#
# Usage: tests/fuzz-long.sh [SECONDS]    (per target; default 600)
#
# Builds the targets as tests/fuzz.sh does (BUILD_DIR, default build-fuzz),
# then fuzzes each one for SECONDS on a copy of fuzz/corpus/NAME; after a
# crash the target is restarted for the time left, the reproducer kept.
# Then the inputs of the working corpus that add coverage are merged into
# fuzz/corpus/NAME with libFuzzer's -merge=1, so the committed corpus only
# grows by inputs that reach something new. Finally a Markdown summary
# (per target: executions, exec/s, cov and ft of libFuzzer's last status
# line, corpus files and bytes before and after, crashes with their
# reproducers; the total executions) is written and its path printed.
#
# Environment:
#   FUZZ_LONG_SECONDS     seconds per target (the argument wins)
#   FUZZ_LONG_SECONDS_X   seconds for target X (e.g. FUZZ_LONG_SECONDS_packet=900)
#   FUZZ_LONG_TARGETS     which targets (default: packet conf reg_allow priv esp xfrm icmp fw hosts)
#   FUZZ_LONG_JOBS        targets fuzzed at once (default 1; 2 fills a 2-core box)
#   FUZZ_LONG_SUMMARY     summary file (default BUILD_DIR/fuzz-long-summary.md)
#   FUZZ_LONG_MERGE=0     leave fuzz/corpus/ alone
# Exits non-zero when a target crashed (the summary names the reproducers,
# kept in BUILD_DIR/fuzz-long/) or could not be built.
set -u

secs=${1:-${FUZZ_LONG_SECONDS:-600}}
case $secs in
''|*[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-fuzz}
targets=${FUZZ_LONG_TARGETS:-packet conf reg_allow priv esp xfrm icmp fw hosts fw_state lsi route known_hosts uesp_frag}
jobs=${FUZZ_LONG_JOBS:-1}
summary=${FUZZ_LONG_SUMMARY:-$build/fuzz-long-summary.md}
merge=${FUZZ_LONG_MERGE:-1}

. "$root/tests/lib/fuzz-build.sh"
# shellcheck disable=SC2086
fuzz_build fuzz-long.sh $targets || exit 1

out=$build/fuzz-long
rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/hip-fuzz-long.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS ASAN_OPTIONS

# The corpus's file count and bytes: "N B".
corpus_size() {
	n=$(find "$1" -type f | wc -l)
	b=$(find "$1" -type f -exec cat {} + 2>/dev/null | wc -c)
	echo "$n $b"
}

# run_target NAME: fuzz it for its time (restarting after a crash) and
# write NAME.result: execs seconds cov ft crashes.
run_target() {
	name=$1
	eval "t=\${FUZZ_LONG_SECONDS_$name:-$secs}"
	dict=
	[ "$name" = packet ] && dict=$root/fuzz/packet.dict
	mkdir -p "$work/$name"
	cp "$root"/fuzz/corpus/"$name"/* "$work/$name/" 2>/dev/null
	start=$(date +%s)
	execs=0 crashes=0 round=0
	while :; do
		now=$(date +%s)
		left=$(( t - (now - start) ))
		[ "$left" -ge 1 ] || break
		round=$((round + 1))
		log=$out/$name.$round.log
		"$build/fuzz/fuzz_$name" "$work/$name" \
			-max_total_time="$left" \
			${dict:+-dict="$dict"} \
			-print_final_stats=1 \
			-rss_limit_mb=2048 \
			-timeout=10 \
			-close_fd_mask=2 \
			-artifact_prefix="$out/$name-" \
			>"$log" 2>&1
		rc=$?
		e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
		if [ -z "$e" ]; then
			# no final stats after a crash: the last status line's count
			e=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed 's/^#\([0-9]*\).*/\1/')
		fi
		execs=$((execs + ${e:-0}))
		[ "$rc" -eq 0 ] && break
		crashes=$((crashes + 1))
		# a target that fails at once would only spin
		[ "$round" -ge 50 ] && break
	done
	end=$(date +%s)
	last=$(grep -E '^#[0-9]+.*cov: ' "$out/$name".*.log | tail -n 1)
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	echo "$execs $((end - start)) ${cov:-?} ${ft:-?} $crashes" >"$out/$name.result"
	echo "fuzz_$name: $execs executions in $((end - start)) s, cov ${cov:-?} ft ${ft:-?}," \
		"$crashes crash(es)"
}

for name in $targets; do
	corpus_size "$root/fuzz/corpus/$name" >"$out/$name.before"
done

# Lanes: target k goes to lane k mod jobs; lanes run side by side.
lane=0
pids=
while [ "$lane" -lt "$jobs" ]; do
	(
		k=0
		for name in $targets; do
			[ $((k % jobs)) -eq "$lane" ] && run_target "$name"
			k=$((k + 1))
		done
	) &
	pids="$pids $!"
	lane=$((lane + 1))
done
for pid in $pids; do
	wait "$pid"
done

status=0
total=0
{
	echo "# Long fuzzing run"
	echo
	over=$(env | grep '^FUZZ_LONG_SECONDS_' | sed 's/^FUZZ_LONG_SECONDS_//' | tr '\n' ' ')
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'): $secs s per target${over:+ (but $over)}," \
		"$jobs at once on $(nproc 2>/dev/null || echo '?') cores (tests/fuzz-long.sh)."
	echo
	echo "| target | executions | exec/s | cov | ft | corpus before | corpus after | crashes |"
	echo "|---|---:|---:|---:|---:|---:|---:|---|"
} >"$summary"
for name in $targets; do
	[ -f "$out/$name.result" ] || { status=1; continue; }
	read -r execs t cov ft crashes <"$out/$name.result"
	read -r n0 b0 <"$out/$name.before"
	if [ "$merge" = 1 ]; then
		"$build/fuzz/fuzz_$name" -merge=1 -rss_limit_mb=2048 -timeout=10 -close_fd_mask=2 \
			"$root/fuzz/corpus/$name" "$work/$name" >"$out/$name.merge.log" 2>&1 ||
			echo "fuzz-long.sh: merge of $name failed (see $out/$name.merge.log)" >&2
	fi
	read -r n1 b1 <<EOF
$(corpus_size "$root/fuzz/corpus/$name")
EOF
	total=$((total + execs))
	rate=$(( t > 0 ? execs / t : 0 ))
	what=0
	if [ "$crashes" -gt 0 ]; then
		status=1
		what="$crashes: $(cd "$out" && ls "$name"-* 2>/dev/null | tr '\n' ' ')"
	fi
	echo "| fuzz_$name | $execs | $rate | $cov | $ft | $n0 files, $b0 B |" \
		"$n1 files, $b1 B | $what |" >>"$summary"
done
{
	echo
	echo "Total: $total executions."
} >>"$summary"
cat "$summary"
echo "fuzz-long.sh: summary in $summary"
exit $status
