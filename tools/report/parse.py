"""Parsers of the raw outputs of bench/ (issue 17): each takes the text (or
the JSON text) one benchmark wrote and returns plain numbers, or None / []
where the output holds no measurement. No I/O here: the callers read files."""
import json
import re


def pct(values, p):
    """The p-th percentile by the nearest-rank method (as bench/*.sh print)."""
    v = sorted(values)
    if not v:
        return None
    rank = max(1, -(-len(v) * p // 100))
    return v[int(rank) - 1]


def median(values):
    return pct(values, 50)


def bex_run(text):
    """bench/bex-matrix.sh's bex-HI-dhG-kK.json: the dict as written."""
    d = json.loads(text)
    for key in ("hi", "dh", "k", "n", "samples_us"):
        if key not in d:
            raise ValueError("bex run: no %r" % key)
    return d


def ping_ms(text):
    """RTTs in ms of ping(8)'s "time=X ms" lines."""
    return [float(m) for m in re.findall(r" time=([0-9.]+) ms", text)]


def numbers(text):
    """One number a line (bench/datapath-matrix.sh's .tcprtt, swan.sh's .txt)."""
    out = []
    for line in text.split():
        try:
            out.append(float(line))
        except ValueError:
            pass
    return out


def iperf_mbps(text):
    """Received Mbit/s of an iperf3 -J run (TCP or UDP), None if it failed."""
    try:
        d = json.loads(text)
        return d["end"]["sum_received"]["bits_per_second"] / 1e6
    except (ValueError, KeyError, TypeError):
        return None


def iperf_bytes(text):
    try:
        return json.loads(text)["end"]["sum_received"]["bytes"]
    except (ValueError, KeyError, TypeError):
        return None


def iperf_intervals(text):
    """[(end of bin in s, Mbit/s)] of an iperf3 -J -i run."""
    try:
        d = json.loads(text)
        return [(i["sum"]["end"], i["sum"]["bits_per_second"] / 1e6) for i in d["intervals"]]
    except (ValueError, KeyError, TypeError):
        return []


def _pairs(text, start, end):
    """Times in us from each frame matching start to the next matching end;
    text: tshark -T fields lines "epoch field...", start/end: predicates."""
    out, t0 = [], None
    for line in text.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        try:
            t = float(f[0])
        except ValueError:
            continue
        if start(f[1:]):
            t0 = t
        elif end(f[1:]) and t0 is not None:
            out.append((t - t0) * 1e6)
            t0 = None
    return out


def ike_wire_us(text):
    """IKEv2 handshakes on the wire: IKE_SA_INIT request (exchange type 34)
    -> IKE_AUTH response (35) (RFC 7296 §3.1), us."""
    def resp(f):
        return len(f) > 1 and f[1] in ("1", "True")
    return _pairs(text, lambda f: f[0] == "34" and not resp(f),
                  lambda f: f[0] == "35" and resp(f))


def wg_wire_us(text):
    """WireGuard handshakes on the wire: initiation (type 1) -> response (2), us."""
    return _pairs(text, lambda f: f[0] == "1", lambda f: f[0] == "2")


def handover(text):
    """bench/handover.sh's summary lines -> dict (ms), {} without a result."""
    out = {}
    m = re.search(r"handover: (\d+) of (\d+) moves measured", text)
    if m:
        out["measured"], out["moves"] = int(m.group(1)), int(m.group(2))
    m = re.search(r"from RTM_DELADDR of the old address: median ([0-9.]+) ms, p95 ([0-9.]+) ms, "
                  r"min ([0-9.]+) ms, max ([0-9.]+) ms", text)
    if m:
        out.update(zip(("median_ms", "p95_ms", "min_ms", "max_ms"), map(float, m.groups())))
    m = re.search(r"fresh base exchange \(median I1 -> R2, same run\): ([0-9.]+) ms", text)
    if m:
        out["bex_ms"] = float(m.group(1))
    return out if "median_ms" in out else {}


def bex_cost_arch(text):
    """bench/bex-cost-arch.sh's table -> {arch: instructions per exchange}."""
    out = {}
    for m in re.finditer(r"^\s+(amd64|armhf|arm64|i386|riscv64)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+s$",
                         text, re.M):
        out[m.group(1)] = int(m.group(4))
    return out


def cpu_ns(text):
    """datapath-matrix's P.cpu "a0 b0 a1 b1" -> (ns of a's engine, of b's)."""
    v = [int(x) for x in text.split()]
    if len(v) != 4:
        return None
    return v[2] - v[0], v[3] - v[1]


def floor_hash_rate(text):
    """tools/bench-floor --json: the puzzle hashes per second it measured."""
    try:
        return float(json.loads(text)["puzzle_hashes_per_s"])
    except (ValueError, KeyError, TypeError):
        return None


def esp_cost(text):
    """bench/esp-cost.sh -> {"suite", "sender", "receiver"} (instructions
    per MB), {} without a result."""
    m = re.search(r"esp-cost: suite (\d+) sender (\d+) receiver (\d+) instructions per MB", text)
    if not m:
        return {}
    return dict(zip(("suite", "sender", "receiver"), map(int, m.groups())))


def esp_cost_arch(text):
    """bench/esp-cost-arch.sh's lines -> {arch: {"suite", "seal", "open",
    "armcap"}}: instructions per MB sealed (sender) and opened (receiver),
    armcap the OPENSSL_armcap the run had (None: OpenSSL's own choice)."""
    out = {}
    for m in re.finditer(r"^\s+([a-z][a-z0-9]*)\s+suite (\d+)\s+seal (\d+)\s+open (-?\d+)\s+"
                         r"instructions per MB\s+\(\d+ s\)(?: OPENSSL_armcap=(\S+))?\s*$",
                         text, re.M):
        out[m.group(1)] = {"suite": int(m.group(2)), "seal": int(m.group(3)),
                           "open": int(m.group(4)), "armcap": m.group(5)}
    return out
