#!/bin/bash
# bench/bex-cost.sh [N=20] - instructions per base exchange on each side,
# counted by callgrind (valgrind): a noise-free figure, the same from run to
# run and comparable across machines and architectures (a benchmark, not a
# test; no root, no namespaces).
#
#   tools/bench-bex-cost runs N base exchanges (ECDSA P-256, DH group 7,
#   puzzle K fixed) between two hipd engines in one process (the unit tests'
#   BEX harness) after two warm-up ones; callgrind counts the instructions
#   (Ir) executed inside each side's work only: the Initiator's trigger (I1),
#   R1 -> I2, R2 and its spare DH key (made in idle time); the Responder's
#   I1 -> R1, I2 -> R2 and its R2-SENT -> ESTABLISHED timer. Sockets,
#   syscalls and the kernel are not counted (they are not user-space
#   instructions); identity generation, the R1 cache and CLOSE are outside.
#
# Printed: Ir per exchange for each side at K=0 and at K (default 10), the
# cost of one puzzle trial (SHA-384) and the Initiator's expected cost at K
# (K=0 figure + (2^K - 1) trials: the measured K figure varies with the
# random number of trials the puzzle took); the CPU floor of
# tools/bench-floor in instructions (its primitives counted the same way)
# and the exchange's ratio to it, noise-free; each side's top functions,
# exclusive (where the instructions are) and inclusive for hipd's own code
# (which step they belong to).
#
# Environment:
#   BUILD     build directory holding tools/bench-bex-cost (default build);
#             build it with `make -C $BUILD tools/bench-bex-cost`
#   BIN       the tool itself, instead of $BUILD/tools/bench-bex-cost (e.g. a
#             cross-built one on the target)
#   K         puzzle difficulty of the second run (default 10)
#   TOP       functions listed per side (default 15)
#   OUT       where the callgrind files are kept (default: a temporary
#             directory, removed at exit)
#   VALGRIND  the valgrind command (default valgrind)
set -u
N=${1:-20}
K=${K:-10}
TOP=${TOP:-15}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD="$(cd "$(dirname "$0")/.." && pwd)/$BUILD" ;; esac
BIN=${BIN:-$BUILD/tools/bench-bex-cost}
VALGRIND=${VALGRIND:-valgrind}

if [ ! -x "$BIN" ]; then
	echo "bex-cost: $BIN not found; build it: make -C $BUILD tools/bench-bex-cost" >&2
	exit 1
fi
if ! command -v "$VALGRIND" >/dev/null || ! command -v callgrind_annotate >/dev/null; then
	echo "bex-cost: valgrind (callgrind, callgrind_annotate) not found;" \
		"tools/install-deps.sh --bench installs it" >&2
	exit 1
fi
if [ -n "${OUT:-}" ]; then
	mkdir -p "$OUT" || exit 1
else
	OUT=$(mktemp -d /tmp/bex-cost.XXXXXX) || exit 1
	trap 'rm -rf "$OUT"' EXIT
fi

# A flat list of functions (no call tree, no annotated source).
annotate() {
	callgrind_annotate --tree=none --auto=no --threshold=100 "$@" 2>/dev/null
}

# callgrind SIDE K: N exchanges, counting only SIDE's functions.
callgrind() {
	local side=$1 k=$2 file="$OUT/$1-k$2.out"
	local toggles=(--toggle-collect="cost_${side}_*")
	# The Initiator's spare DH key is made from the event loop (keys.c).
	[ "$side" = initiator ] && toggles+=(--toggle-collect=dh_spare_fill)
	"$VALGRIND" --tool=callgrind --callgrind-out-file="$file" --collect-atstart=no \
		"${toggles[@]}" "$BIN" -k "$k" -n "$N" >"$file.log" 2>&1 || {
		echo "bex-cost: callgrind run ($side, K=$k) failed:" >&2
		tail -20 "$file.log" >&2
		return 1
	}
	annotate "$file" >"$file.excl" &&
		annotate --inclusive=yes "$file" >"$file.incl"
}

echo "bex-cost: $N base exchanges per run under callgrind, ECDSA P-256, DH 7," \
	"K=0 and K=$K (SHA-384 puzzle)"
for k in 0 "$K"; do
	for side in initiator responder; do
		callgrind "$side" "$k" || exit 1
	done
done
TRIALS=4096
"$VALGRIND" --tool=callgrind --callgrind-out-file="$OUT/puzzle.out" --collect-atstart=no \
	--toggle-collect=cost_puzzle_trials "$BIN" --puzzle-trials "$TRIALS" \
	>"$OUT/puzzle.out.log" 2>&1 || { echo "bex-cost: puzzle run failed" >&2; exit 1; }
annotate "$OUT/puzzle.out" >"$OUT/puzzle.out.excl" || exit 1
"$VALGRIND" --tool=callgrind --callgrind-out-file="$OUT/prim.out" --collect-atstart=no \
	--toggle-collect='cost_prim_*' "$BIN" --primitives "$N" \
	>"$OUT/prim.out.log" 2>&1 || { echo "bex-cost: primitives run failed" >&2; exit 1; }
annotate --inclusive=yes "$OUT/prim.out" >"$OUT/prim.out.incl" || exit 1

python3 - "$OUT" "$N" "$K" "$TOP" "$TRIALS" "$(uname -m)" <<'PY'
import re, sys
out, n, K, top, trials, arch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
LINE = re.compile(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$")

def parse(path):
    """(total Ir, [(Ir, function)]) of a callgrind_annotate listing."""
    total, funcs = 0, []
    for line in open(path):
        m = LINE.match(line)
        if not m:
            continue
        ir, what = int(m.group(1).replace(",", "")), m.group(2)
        if what.startswith("PROGRAM TOTALS"):
            total = ir
        else:
            funcs.append((ir, what))
    return total, funcs

def short(what):
    """file:function [object] -> function (file or object)."""
    m = re.match(r"(.*?):(\S+)(?: \[(.*)\])?$", what)
    if not m:
        return what
    f, fn, obj = m.group(1), m.group(2), m.group(3) or ""
    where = f.split("/")[-1] if f != "???" else obj.split("/")[-1]
    return "%s (%s)" % (fn, where)

ir = {}
for k in (0, K):
    for side in ("initiator", "responder"):
        ir[side, k] = parse("%s/%s-k%d.out.excl" % (out, side, k))
ptotal, _ = parse(out + "/puzzle.out.excl")
trial = ptotal / trials
prim = {}
for v, w in parse(out + "/prim.out.incl")[1]:
    m = re.search(r":cost_prim_(\w+)", w)
    if m:
        prim[m.group(1)] = max(prim.get(m.group(1), 0), v / n)
floor0 = prim["keygen"] + 2 * prim["derive"] + 2 * prim["sign"] + 3 * prim["verify"]

print()
print("Instructions (Ir) per base exchange, %s, callgrind, %d exchanges per figure" % (arch, n))
print("  %-34s %14s %14s" % ("", "K=0", "K=%d" % K))
for side in ("initiator", "responder"):
    print("  %-34s %14.0f %14.0f" % (side.capitalize(), ir[side, 0][0] / n, ir[side, K][0] / n))
both0 = (ir["initiator", 0][0] + ir["responder", 0][0]) / n
bothk = (ir["initiator", K][0] + ir["responder", K][0]) / n
print("  %-34s %14.0f %14.0f" % ("both", both0, bothk))
exp_i = ir["initiator", 0][0] / n + (2 ** K - 1) * trial
print("  one puzzle trial (SHA-384, solver): %.0f Ir; Initiator expected at K=%d"
      " (2^K trials): %.0f, both %.0f" % (trial, K, exp_i, exp_i + ir["responder", K][0] / n))
print("  (the K=%d column varies with the trials the puzzle happened to take)" % K)
print()
print("CPU floor in instructions (tools/bench-floor's primitives, %d runs each):" % n)
print("  keygen %.0f + 2 x derive %.0f + 2 x sign %.0f + 3 x verify %.0f = %.0f Ir;"
      % (prim["keygen"], prim["derive"], prim["sign"], prim["verify"], floor0))
print("  + 2^K puzzle trials: K=0 %.0f, K=%d %.0f Ir"
      % (floor0 + trial, K, floor0 + 2 ** K * trial))
print("  base exchange (both sides) / floor: K=0 %.3f, K=%d %.3f (expected trials)"
      % (both0 / (floor0 + trial), K,
         (exp_i + ir["responder", K][0] / n) / (floor0 + 2 ** K * trial)))
print("  beyond the floor per exchange: K=0 %.0f Ir (Initiator %.0f, Responder %.0f)"
      % (both0 - floor0 - trial,
         ir["initiator", 0][0] / n - prim["keygen"] - prim["derive"] - prim["sign"]
         - 2 * prim["verify"] - trial,
         ir["responder", 0][0] / n - prim["derive"] - prim["sign"] - prim["verify"]))

ours = ("/hipd/", "/libcrypto-wrap/", "/libhipcore/")
for side in ("initiator", "responder"):
    total, funcs = ir[side, K]
    print()
    print("%s, K=%d: top %d functions, exclusive Ir per exchange" % (side.capitalize(), K, top))
    for v, what in sorted(funcs, reverse=True)[:top]:
        print("  %12.0f %5.1f%%  %s" % (v / n, 100.0 * v / total, short(what)))
    _, incl = parse("%s/%s-k%d.out.incl" % (out, side, K))
    best = {}
    for v, w in incl:
        if any(o in w for o in ours):
            name = short(w)     # one function may be listed under two paths
            best[name] = max(best.get(name, 0), v)
    print("%s, K=%d: hipd's own functions, inclusive Ir per exchange" % (side.capitalize(), K))
    for name, v in sorted(best.items(), key=lambda x: -x[1])[:top]:
        print("  %12.0f %5.1f%%  %s" % (v / n, 100.0 * v / total, name))
PY
