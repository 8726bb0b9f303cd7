"""The seven sections of the experiments report (issue 17): each reads the raw
outputs tools/experiments.sh left under RAW, writes its CSV and PNG files into
OUT and returns a Section (Markdown, the files, the headline figures).

Raw layout (tools/experiments.sh):
  bex/bex-*.json              bench/bex-matrix.sh, section 1
  sweep/bex-*.json, floor.json  bench/bex-matrix.sh with KS, tools/bench-floor
  datapath/                   bench/datapath-matrix.sh, sections 3, 4, 6
  handover/handover.txt       bench/handover.sh; handover-tcp.* bench/handover-tcp.sh
  kernel/                     bench/kernel-throughput.sh (EXP_KERNEL=1): its text, and its
                              RTT files plain.* and kernel.* (ping, tcprtt) for section 3
  cost/bex-cost-arch.txt      bench/bex-cost-arch.sh
  cost/esp-cost-arch.txt      bench/esp-cost-arch.sh; cost/esp-cost.txt bench/esp-cost.sh
  conditions/sN.json          bench_conditions at the start and the end of section N
  notes/sN.txt                what was not measured and why (one line each)
"""
import csv
import glob
import json
import os

from . import parse
from . import plots
from .published import PUBLISHED_BEX_MS

STAGES = ("t1", "t2", "t3", "t4", "total")
HI_ORDER = {"rsa-3072": 0, "ecdsa-p256": 1, "ecdsa-p384": 2}
# hipd's default orders (conf/hipd.conf.5): DH groups 7 8 4 3, ESP suites 13 8 9 (then 12, 1)
DH_ORDER = {7: 0, 8: 1, 4: 2, 3: 3}
SUITE_ORDER = {13: 0, 8: 1, 9: 2, 12: 3, 1: 4}
ARCHES = ("amd64", "arm64", "armhf")     # section 7's order


class Section:
    def __init__(self, num, title):
        self.num, self.title = num, title
        self.md, self.csvs, self.pngs, self.rows, self.headline = [], [], [], 0, []

    def table(self, header, rows):
        self.md.append("| " + " | ".join(header) + " |")
        self.md.append("|" + "---|" * len(header))
        for r in rows:
            self.md.append("| " + " | ".join(str(x) for x in r) + " |")
        self.md.append("")


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def _write_csv(sec, out, name, header, rows):
    path = os.path.join(out, name)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    sec.csvs.append(name)
    sec.rows += len(rows)


def _f(v, fmt="%.2f"):
    return "-" if v is None else fmt % v


def _ms(us):
    return None if us is None else us / 1000.0


def conditions(raw, num):
    """'CPU, cores, kernel, load at start -> end' of section num."""
    text = _read(os.path.join(raw, "conditions", "s%d.json" % num))
    if not text:
        return "not recorded"
    c = [json.loads(line) for line in text.splitlines() if line.strip()]
    load = " -> ".join("/".join(x["load"]) for x in c)
    return "%s, %d cores, kernel %s, load average (1/5/15 min) %s" % (
        c[0]["cpu"], c[0]["cores"], c[0]["kernel"], load)


def notes(raw, num):
    text = _read(os.path.join(raw, "notes", "s%d.txt" % num)) or ""
    return [line.strip() for line in text.splitlines() if line.strip()]


def _bex_runs(d):
    runs = []
    for p in sorted(glob.glob(os.path.join(d, "bex-*.json"))):
        try:
            runs.append(parse.bex_run(_read(p)))
        except ValueError:
            continue
    runs.sort(key=lambda r: (HI_ORDER.get(r["hi"], 9), r["hi"], DH_ORDER.get(r["dh"], 9), r["dh"],
                             r["k"]))
    return runs


def _label(r):
    return "%s DH%d" % (r["hi"].upper(), r["dh"])


def s1_stages(raw, out):
    sec = Section(1, "Base exchange stage times T1-T4 and total")
    runs = _bex_runs(os.path.join(raw, "bex"))
    rows, md = [], []
    for r in runs:
        s = r["samples_us"]
        row = [r["hi"], r["dh"], r["k"], len(s["total"])]
        for st in STAGES:
            row += [_f(parse.median(s[st]), "%.1f"), _f(parse.pct(s[st], 95), "%.1f")]
        rows.append(row)
        md.append([r["hi"], r["dh"], len(s["total"])] +
                  ["%s / %s" % (_f(_ms(parse.median(s[st])), "%.3f"),
                                _f(_ms(parse.pct(s[st], 95)), "%.3f")) for st in STAGES])
    header = ["hi", "dh_group", "k", "n"]
    for st in STAGES:
        header += [st + "_median_us", st + "_p95_us"]
    _write_csv(sec, out, "s1_stages.csv", header, rows)
    if not runs:
        return sec
    sec.md.append("Median / p95 in ms; T1, T3 measured by the Responder's hipd, T2, T4 and "
                  "the total by the Initiator's (`hipconf --json show stats`, `bex_stages`); "
                  "puzzle K=%d." % runs[0]["k"])
    sec.md.append("")
    sec.table(["HI", "DH group", "n", "T1", "T2", "T3", "T4", "total"], md)
    plots.stage_bars(os.path.join(out, "s1_stages.png"), [_label(r) for r in runs],
                     {st: [_ms(parse.median(r["samples_us"][st])) for r in runs] for st in STAGES},
                     {st: [_ms(parse.pct(r["samples_us"][st], 95)) for r in runs] for st in STAGES})
    sec.pngs.append("s1_stages.png")
    # beside the published figures: hipd's default identity and RSA
    mine = []
    for hi in ("ecdsa-p256", "rsa-3072"):
        r = next((x for x in runs if x["hi"] == hi), None)
        if r:
            mine.append(("hipd %s DH%d (this run)" % (hi.upper(), r["dh"]),
                         _ms(parse.median(r["samples_us"]["total"]))))
    prow = []
    for what, pub in PUBLISHED_BEX_MS:
        for name, m in mine:
            prow.append([what, "%.0f" % pub, name, _f(m, "%.3f"),
                         "%.0fx" % (pub / m) if m else "-"])
    _write_csv(sec, out, "s1_published.csv", ["published", "published_ms", "hipd", "hipd_ms",
                                               "speedup"], prow)
    sec.md.append("Beside the published totals (constants cited from issue 17, "
                  "tools/report/published.py; everything else measured in this run):")
    sec.md.append("")
    sec.table(["published", "total ms", "hipd", "median total ms", "speed-up"], prow)
    if mine:
        sec.headline.append(("BEX total, %s" % mine[0][0].replace(" (this run)", ""),
                             "%s ms median" % _f(mine[0][1], "%.2f")))
    return sec


def s2_sweep(raw, out):
    sec = Section(2, "Puzzle difficulty sweep")
    runs = [r for r in _bex_runs(os.path.join(raw, "sweep"))]
    runs.sort(key=lambda r: r["k"])
    rate = parse.floor_hash_rate(_read(os.path.join(raw, "sweep", "floor.json")) or "")
    base = None
    rows = []
    for r in runs:
        n = max(1, r["n"])
        cpu = r["cpu_ns_initiator"] / n / 1e6
        if r["k"] == 0 or base is None:
            base = base if base is not None else cpu
        exp = base + (2 ** r["k"]) / rate * 1e3 if rate else None
        t = r["samples_us"]["total"]
        rows.append([r["k"], len(t), _f(_ms(parse.median(t)), "%.3f"),
                     _f(_ms(parse.pct(t, 95)), "%.3f"), "%.3f" % cpu, _f(exp, "%.3f")])
    _write_csv(sec, out, "s2_sweep.csv", ["k", "n", "bex_median_ms", "bex_p95_ms",
                                          "initiator_cpu_ms", "expected_cpu_ms"], rows)
    if not runs:
        return sec
    sec.md.append("ECDSA P-256, DH group 7; the Responder's K set with `hipconf set puzzle K`. "
                  "Initiator CPU: all threads of its engine over the exchanges, per exchange. "
                  "Expected: the K=0 CPU + 2^K SHA-384 hashes at the rate tools/bench-floor "
                  "measured in this run (%s hashes/s). The Initiator searches on two threads, "
                  "so the exchange's time can fall below its CPU time." % _f(rate, "%.0f"))
    sec.md.append("")
    sec.table(["K", "n", "BEX median ms", "BEX p95 ms", "Initiator CPU ms", "expected ms"], rows)
    plots.sweep(os.path.join(out, "s2_sweep.png"), [r[0] for r in rows],
                [float(r[2]) if r[2] != "-" else None for r in rows],
                [float(r[4]) for r in rows], base, rate)
    sec.pngs.append("s2_sweep.png")
    last = rows[-1]
    sec.headline.append(("Puzzle K=%d: BEX median / Initiator CPU" % last[0],
                         "%s ms / %s ms" % (last[2], last[4])))
    return sec


def _peers(d):
    """Peers of datapath-matrix in display order: plain, hipd-sSUITE (hipd's
    default suite first), strongswan, wireguard-go."""
    names = {os.path.basename(p)[:-len(".ping")] for p in glob.glob(os.path.join(d, "*.ping"))}
    order = {"plain": 0, "strongswan": 2, "wireguard-go": 3}

    def suite(n):
        try:
            return SUITE_ORDER.get(int(n[len("hipd-s"):]), 9)
        except ValueError:
            return 9
    return sorted(names, key=lambda n: (order.get(n, 1), suite(n) if n.startswith("hipd-s")
                                        else 0, n))


def _peer_label(p):
    if p.startswith("hipd-s"):
        return "hipd ESP suite " + p[len("hipd-s"):]
    return {"strongswan": "strongSwan (libipsec)", "wireguard-go": "wireguard-go"}.get(p, p)


def _kernel_rtt(raw):
    """bench/kernel-throughput.sh's RTT files: where it ran ("ESP VM" or "same
    kernel") and {path: (label, directory, file stem)} of the plain and kernel
    datapath paths it measured."""
    d = os.path.join(raw, "kernel")
    text = _read(os.path.join(d, "kernel-throughput.txt")) or ""
    where = "ESP VM" if "in the ESP VM" in text else "same kernel"
    out = {}
    for path, stem, label in (("kernel-plain", "plain", "plain (%s)"),
                              ("hipd-kernel", "kernel", "hipd kernel datapath (%s)")):
        if os.path.exists(os.path.join(d, stem + ".ping")):
            out[path] = (label % where, d, stem)
    return where, out


def s3_rtt(raw, out):
    sec = Section(3, "RTT with and without HIP")
    d = os.path.join(raw, "datapath")
    where = {p: (_peer_label(p), d, p) for p in _peers(d)}
    kern_where, kern = _kernel_rtt(raw)
    where.update(kern)
    peers = list(where)
    icmp = {p: parse.ping_ms(_read(os.path.join(where[p][1], where[p][2] + ".ping")) or "")
            for p in peers}
    tcp = {p: [x / 1000 for x in parse.numbers(
        _read(os.path.join(where[p][1], where[p][2] + ".tcprtt")) or "")] for p in peers}
    rows, samples = [], []
    for p in peers:
        for kind, v in (("icmp", icmp[p]), ("tcp", tcp[p])):
            if v:
                rows.append([p, kind, len(v), "%.3f" % parse.median(v),
                             "%.3f" % parse.pct(v, 95)])
                samples += [[p, kind, "%.4f" % x] for x in v]
    _write_csv(sec, out, "s3_rtt.csv", ["path", "kind", "n", "median_ms", "p95_ms"], rows)
    _write_csv(sec, out, "s3_rtt_samples.csv", ["path", "kind", "rtt_ms"], samples)
    sec.rows -= len(samples)
    if not rows:
        return sec
    sec.md.append("ICMP: ping, 10 ms apart. TCP: 1-byte request and answer on one connection "
                  "(TCP_NODELAY), 10 ms apart. a -> b over one veth; plain is locator to "
                  "locator, hipd HIT to HIT over its userspace ESP datapath.")
    if kern:
        sec.md.append("The kernel datapath (hipd-kernel: XFRM, ESP BEET, suite 13) and a plain "
                      "path (kernel-plain) beside it, by the same method, in "
                      "bench/kernel-throughput.sh (EXP_KERNEL=1), %s." % (
                          "in the ESP VM, whose CPU is emulated (TCG): compare these two with "
                          "each other, not with the rows above" if kern_where == "ESP VM" else
                          "in this machine's kernel"))
    sec.md.append("")
    sec.table(["path", "kind", "n", "median ms", "p95 ms"], rows)
    plots.rtt_boxes(os.path.join(out, "s3_rtt.png"), [where[p][0] for p in peers],
                    [icmp[p] for p in peers], [tcp[p] for p in peers])
    sec.pngs.append("s3_rtt.png")
    plain = parse.median(icmp.get("plain", []))
    hip = next((p for p in peers if p.startswith("hipd-s")), None)
    if hip and icmp[hip]:
        sec.headline.append(("ICMP RTT median, plain / %s" % _peer_label(hip),
                             "%s / %.3f ms" % (_f(plain, "%.3f"), parse.median(icmp[hip]))))
    if icmp.get("hipd-kernel") and icmp.get("kernel-plain"):
        sec.headline.append(("ICMP RTT median, %s / %s" % (where["kernel-plain"][0],
                                                            where["hipd-kernel"][0]),
                             "%.3f / %.3f ms" % (parse.median(icmp["kernel-plain"]),
                                                 parse.median(icmp["hipd-kernel"]))))
    return sec


def _tput(d, peers):
    tp = {}
    for p in peers:
        tp[p] = (parse.iperf_mbps(_read(os.path.join(d, p + ".tcp.json")) or ""),
                 parse.iperf_mbps(_read(os.path.join(d, p + ".udp.json")) or ""))
    return tp


def s4_throughput(raw, out):
    sec = Section(4, "Throughput with and without HIP")
    d = os.path.join(raw, "datapath")
    peers = _peers(d)
    tp = _tput(d, peers)
    plain = tp.get("plain", (None, None))
    rows = []
    for p in peers:
        r = [p]
        for i in (0, 1):
            v, base = tp[p][i], plain[i]
            ovh = (1 - v / base) * 100 if v and base and p != "plain" else None
            r += [_f(v, "%.0f"), _f(ovh, "%.1f")]
        rows.append(r)
    kt = _read(os.path.join(raw, "kernel", "kernel-throughput.txt"))
    if kt and "kernel / plain throughput:" in kt:
        ratio = kt.split("kernel / plain throughput:")[1].split()[0]
        rows.append(["hipd kernel datapath (ESP VM, ratio only)", "-",
                     _f((1 - float(ratio)) * 100, "%.1f") if ratio != "n/a" else "-", "-", "-"])
    _write_csv(sec, out, "s4_throughput.csv", ["path", "tcp_mbps", "tcp_overhead_pct",
                                               "udp_mbps", "udp_overhead_pct"], rows)
    if not any(tp[p][0] for p in peers):
        return sec
    sec.md.append("iperf3 a -> b, received Mbit/s (the first second not counted); UDP: "
                  "`-u -b 0 -l 1200`, what arrived (the sender offers as fast as it can). "
                  "Overhead: 1 - path / plain, in percent.")
    sec.md.append("")
    sec.table(["path", "TCP Mbit/s", "TCP overhead %", "UDP Mbit/s", "UDP overhead %"], rows)
    plots.throughput(os.path.join(out, "s4_throughput.png"), [_peer_label(p) for p in peers],
                     [tp[p][0] for p in peers], [tp[p][1] for p in peers],
                     plain[0], plain[1])
    sec.pngs.append("s4_throughput.png")
    hip = next((p for p in peers if p.startswith("hipd-s")), None)
    if hip:
        sec.headline.append(("TCP Mbit/s, plain / %s" % _peer_label(hip),
                             "%s / %s" % (_f(plain[0], "%.0f"), _f(tp[hip][0], "%.0f"))))
    return sec


def s5_handover(raw, out):
    sec = Section(5, "Handover")
    d = os.path.join(raw, "handover")
    h = parse.handover(_read(os.path.join(d, "handover.txt")) or "")
    rows = []
    if h:
        rows.append([h.get("measured"), h.get("moves"), "%.2f" % h["median_ms"],
                     "%.2f" % h["p95_ms"], "%.2f" % h["min_ms"], "%.2f" % h["max_ms"],
                     _f(h.get("bex_ms"), "%.2f")])
    _write_csv(sec, out, "s5_handover.csv", ["measured", "moves", "median_ms", "p95_ms",
                                             "min_ms", "max_ms", "fresh_bex_median_ms"], rows)
    series = parse.iperf_intervals(_read(os.path.join(d, "handover-tcp.json")) or "")
    moves = parse.numbers(_read(os.path.join(d, "handover-tcp.moves")) or "")
    _write_csv(sec, out, "s5_handover_tcp.csv", ["bin_end_s", "mbps"],
               [["%.3f" % t, "%.1f" % v] for t, v in series])
    sec.rows -= len(series)
    sec.rows += 1 if series else 0
    if h:
        sec.md.append("bench/handover.sh: from the deletion of the old address (RTM_DELADDR) to "
                      "the first ESP packet of a UDP stream (one datagram every 500 us) from the "
                      "new address at the peer, hipd's RFC 8046 readdress started by itself.")
        sec.md.append("")
        sec.table(["moves measured", "of", "median ms", "p95 ms", "min ms", "max ms",
                   "fresh BEX median ms"], rows)
        sec.headline.append(("Handover median / p95", "%.2f / %.2f ms"
                             % (h["median_ms"], h["p95_ms"])))
    if series:
        sec.md.append("TCP a -> b (iperf3, HIT to HIT) in 100 ms bins across %d move(s) of a "
                      "(dashed lines; bench/handover-tcp.sh). Lowest bin within 0.5 s after a "
                      "move: %s Mbit/s; median of all bins: %.0f Mbit/s." % (
                          len(moves), _f(min((v for t, v in series
                                              if any(0 <= t - m <= 0.6 for m in moves)),
                                             default=None), "%.0f"),
                          parse.median([v for _, v in series])))
        sec.md.append("")
        plots.series(os.path.join(out, "s5_handover_tcp.png"), series, moves)
        sec.pngs.append("s5_handover_tcp.png")
    return sec


def s6_compare(raw, out):
    sec = Section(6, "HIP vs IKEv2 vs WireGuard")
    d = os.path.join(raw, "datapath")
    peers = _peers(d)
    tp = _tput(d, peers)
    hip_runs = [r for r in _bex_runs(os.path.join(raw, "bex"))
                if r["hi"] == "ecdsa-p256" and r["dh"] == 7]
    hs = {}
    if hip_runs:
        hs["hipd"] = (hip_runs[0]["samples_us"]["total"], "hipd: I1 sent -> R2 processed")
    certs = parse.numbers(_read(os.path.join(d, "strongswan-certs.txt.wire")) or "")
    certs_how = "on the wire, IKE_SA_INIT -> IKE_AUTH response (childless IKE_SA)"
    if not certs:
        certs = parse.numbers(_read(os.path.join(d, "strongswan-certs.txt")) or "")
        certs_how = "charon's log (1 ms steps)"
    if certs:
        hs["strongswan-certs"] = (certs, certs_how)
    psk = parse.ike_wire_us(_read(os.path.join(d, "strongswan-psk.wire")) or "")
    if psk:
        hs["strongswan"] = (psk, "on the wire, IKE_SA_INIT -> IKE_AUTH response (with a CHILD_SA)")
    wg = parse.wg_wire_us(_read(os.path.join(d, "wireguard-go.wire")) or "")
    if wg:
        hs["wireguard-go"] = (wg, "on the wire, initiation -> response")
    hip = next((p for p in peers if p.startswith("hipd-s")), None)
    cand = [("HIP (hipd, ECDSA P-256, DH 7)", "hipd", hip),
            ("IKEv2 strongSwan, certificates (ECDSA P-256)", "strongswan-certs", "strongswan"),
            ("IKEv2 strongSwan, PSK", "strongswan", "strongswan"),
            ("WireGuard (wireguard-go)", "wireguard-go", "wireguard-go")]
    rows, chart = [], []
    for name, hkey, dkey in cand:
        v, how = hs.get(hkey, ([], "not measured"))
        t = tp.get(dkey, (None, None))[0] if dkey else None
        rtt = parse.median(parse.ping_ms(_read(os.path.join(d, "%s.ping" % dkey)) or "")) \
            if dkey else None
        if not v and t is None:
            continue
        rows.append([name, len(v), _f(_ms(parse.median(v)), "%.3f"),
                     _f(_ms(parse.pct(v, 95)), "%.3f"), how, _f(t, "%.0f"), _f(rtt, "%.3f")])
        chart.append((name, _ms(parse.median(v)), t, rtt))
    _write_csv(sec, out, "s6_compare.csv", ["protocol", "handshakes", "handshake_median_ms",
                                            "handshake_p95_ms", "handshake_measured",
                                            "tcp_mbps", "icmp_rtt_median_ms"], rows)
    if not rows:
        return sec
    sec.md.append("Same two namespaces and veth. Throughput and RTT are of each one's userspace "
                  "datapath (hipd ESP suite of the first hipd row of section 4; strongSwan "
                  "charon + kernel-libipsec, AES-GCM-128, for both of its rows; wireguard-go).")
    sec.md.append("")
    sec.table(["protocol", "n", "handshake median ms", "p95 ms", "measured", "TCP Mbit/s",
               "ICMP RTT ms"], rows)
    plots.compare(os.path.join(out, "s6_compare.png"), chart)
    sec.pngs.append("s6_compare.png")
    for name, m, t, _ in chart:
        sec.headline.append(("Handshake median, %s" % name, "%s ms" % _f(m, "%.3f")))
    return sec


def _arch_key(a):
    return ARCHES.index(a) if a in ARCHES else 9


def _esp_rows(raw):
    """Section 7's per-MB rows: bench/esp-cost-arch.sh's per arch, then
    bench/esp-cost.sh's amd64 netns figure."""
    rows = []
    arch = parse.esp_cost_arch(_read(os.path.join(raw, "cost", "esp-cost-arch.txt")) or "")
    for a, v in sorted(arch.items(), key=lambda x: _arch_key(x[0])):
        rows.append([a, v["suite"], "ESP seal / open in one process (esp-cost-arch.sh)",
                     v["seal"], v["open"], v["armcap"] or ""])
    esp = parse.esp_cost(_read(os.path.join(raw, "cost", "esp-cost.txt")) or "")
    if esp:
        rows.append(["amd64", esp["suite"], "whole datapath, TCP in netns (esp-cost.sh)",
                     esp["sender"], esp["receiver"], ""])
    return rows


def s7_cost(raw, out):
    sec = Section(7, "Cost per exchange and per megabyte")
    ir = parse.bex_cost_arch(_read(os.path.join(raw, "cost", "bex-cost-arch.txt")) or "")
    base = ir.get("amd64")
    rows = [[a, v, "%.2f" % (v / base) if base else "-"]
            for a, v in sorted(ir.items(), key=lambda x: _arch_key(x[0]))]
    _write_csv(sec, out, "s7_cost.csv", ["arch", "instructions_per_exchange", "vs_amd64"], rows)
    d = os.path.join(raw, "datapath")
    mb_rows = []
    for p in _peers(d):
        c = parse.cpu_ns(_read(os.path.join(d, p + ".cpu")) or "")
        b = parse.iperf_bytes(_read(os.path.join(d, p + ".tcp.json")) or "")
        if c and b:
            mb = b / 1e6
            mb_rows.append([p, "%.0f" % (c[0] / mb / 1e3), "%.0f" % (c[1] / mb / 1e3)])
    _write_csv(sec, out, "s7_cost_per_mb.csv", ["path", "sender_engine_us_per_mb",
                                                "receiver_engine_us_per_mb"], mb_rows)
    esp_rows = _esp_rows(raw)
    _write_csv(sec, out, "s7_esp_cost.csv", ["arch", "esp_suite", "method",
                                             "sender_instructions_per_mb",
                                             "receiver_instructions_per_mb", "openssl_armcap"],
               esp_rows)
    if not rows and not esp_rows:
        return sec
    if rows:
        sec.md.append("Instructions of one more base exchange, both sides and its CLOSE, ECDSA "
                      "P-256, DH 7, K=0, counted by callgrind over the whole process "
                      "(bench/bex-cost-arch.sh; ARM under qemu-user). Instruction counts, not "
                      "times.")
        sec.md.append("")
        sec.table(["arch", "instructions per exchange", "vs amd64"], rows)
    if esp_rows:
        sec.md.append("Per megabyte of userspace ESP, callgrind, user-space instructions only. "
                      "*In one process* (bench/esp-cost-arch.sh, the same on every arch, ARM "
                      "under qemu-user): 1400-byte inner packets sealed (esp_encap, the sender) "
                      "and opened (esp_decap, the receiver) with a hand-made SA pair; no system "
                      "calls, TUN, segmentation or coalescing; per MB of inner packets. *Whole "
                      "datapath* (bench/esp-cost.sh, amd64): tools/uesp-pair at both ends of a "
                      "veth, a TCP transfer through TUN and raw sockets; per MB of TCP payload. "
                      "OPENSSL_armcap=0: OpenSSL without NEON (valgrind cannot run its "
                      "bit-sliced NEON AES on armhf).")
        sec.md.append("")
        sec.table(["arch", "ESP suite", "how", "sender instructions/MB",
                   "receiver instructions/MB", "OPENSSL_armcap"],
                  [[a, s_, m, "{:,}".format(x), "{:,}".format(y), c or "-"]
                   for a, s_, m, x, y, c in esp_rows])
    if mb_rows:
        sec.md.append("Per megabyte (amd64, native): CPU time of each hipd engine per MB "
                      "received over TCP in section 4 (/proc schedstat), in us; not an "
                      "instruction count (no hardware counters here).")
        sec.md.append("")
        sec.table(["path", "sender engine us/MB", "receiver engine us/MB"], mb_rows)
    plots.cost(os.path.join(out, "s7_cost.png"), [r[0] for r in rows], [r[1] for r in rows],
               [("%s %s" % (r[0], "netns" if "netns" in r[2] else "in process"), r[3], r[4])
                for r in esp_rows])
    sec.pngs.append("s7_cost.png")
    if rows:
        sec.headline.append(("Instructions per exchange, %s" % ", ".join(r[0] for r in rows),
                             ", ".join("{:,}".format(r[1]) for r in rows)))
    inproc = [r for r in esp_rows if "netns" not in r[2]]
    if inproc:
        sec.headline.append(("ESP instructions per MB, seal / open, %s"
                             % ", ".join(r[0] for r in inproc),
                             ", ".join("{:,} / {:,}".format(r[3], r[4]) for r in inproc)))
    for r in esp_rows:
        if "netns" in r[2]:
            sec.headline.append(("ESP instructions per MB, whole datapath, sender / receiver "
                                 "(amd64)", "{:,} / {:,}".format(r[3], r[4])))
    return sec


ALL = (s1_stages, s2_sweep, s3_rtt, s4_throughput, s5_handover, s6_compare, s7_cost)
