"""Unit tests of tools/report (issue 17): the parsers on sample raw outputs of
bench/, and the report built from a raw directory of such samples (CSV values,
summary, one PNG per section). Run from the top of the tree:

    /usr/bin/python3 -m unittest discover -s tests/report
"""
import csv
import json
import os
import shutil
import tempfile
import unittest

from tools.report import build, parse

PING = """PING fd00::2(fd00::2) 56 data bytes
64 bytes from fd00::2: icmp_seq=1 ttl=64 time=0.045 ms
64 bytes from fd00::2: icmp_seq=2 ttl=64 time=0.031 ms
64 bytes from fd00::2: icmp_seq=3 ttl=64 time=1025 ms

--- fd00::2 ping statistics ---
3 packets transmitted, 3 received, 0% packet loss, time 303ms
rtt min/avg/max/mdev = 0.031/341.692/1025.000/483.180 ms
"""

# tshark -T fields -e frame.time_epoch -e isakmp.exchangetype -e isakmp.flag_r
IKE_WIRE = """1795734888.218661000\t37\t0
1795734888.219223000\t37\t1
1795734888.238704000\t34\t0
1795734888.239621000\t34\t1
1795734888.241000000\t35\t0
1795734888.242704000\t35\t1
1795734889.000000000\t34\t0
1795734889.001000000\t34\t1
1795734889.002000000\t35\t0
1795734889.004000000\t35\t1
"""

# tshark -T fields -e frame.time_epoch -e wg.type
WG_WIRE = """1795734897.916176000\t1
1795734897.917033000\t2
1795734897.917538000\t4
1795734897.917600000\t4
1795734898.000000000\t1
1795734898.000500000\t2
"""

HANDOVER = """handover: 5 moves of the Initiator (192.0.2.1 <-> 192.0.2.11), UDP every 500 us
handover: 5 of 5 moves measured (0 without a result)
handover: from RTM_DELADDR of the old address: median 0.17 ms, p95 0.30 ms, min 0.07 ms, max 0.30 ms
handover: from the start of ip(8) (upper bound, includes starting ip): median 6.36 ms, p95 13.98 ms
handover: fresh base exchange (median I1 -> R2, same run): 1.07 ms
handover: target median <= 5 ms: met; seeds: 100 ms (laptop), 287 ms (tablet)
"""

COST = """bex-cost-arch: instructions per base exchange, both sides, ECDSA P-256, DH 7, K=0;
  whole process under valgrind (callgrind), (Ir(N=12) - Ir(N=2)) / 10
  arch               Ir N=2           Ir N=12    Ir/exchange     time
  amd64            56950268        135458995        7850873       6s
  armhf           102959827        279643520       17668369      48s
"""

ESP_ARCH = """esp-cost-arch: instructions per MB (10^6 bytes of 1400-byte inner packets) of
  userspace ESP, suite 13, seal (sender) and open (receiver); whole process under valgrind
  (callgrind), (Ir(4 MB) - Ir(1 MB)) / 3 MB, seal only and seal + open
  amd64    suite 13  seal 4617147  open 4342143  instructions per MB  (4 s)
arch: binfmt_misc does not run riscv64 programs (qemu-riscv64 not registered)
  armhf    suite 13  seal 78168574  open 77690000  instructions per MB  (76 s) OPENSSL_armcap=0
  arm64    suite 13  seal 5210002  open 4930714  instructions per MB  (53 s)
"""

KERNEL_TP = """# this kernel takes no ESP SA: running in the ESP VM (Debian 12's kernel, qemu)
# in the ESP VM (qemu; TCG unless KVM works): compare the ratio only
round 1: plain  566.5 Mbit/s
round 1: kernel 5.7 Mbit/s (3221 packets on a's SAs)
rtt: plain and kernel datapath (421 packets on a's SAs) in /x/raw/kernel

plain              566.5 Mbit/s (mean of 1)
kernel datapath      5.7 Mbit/s (mean of 1)
kernel / plain throughput: 0.010
"""

COND = {"cpu": "Test CPU", "cores": 2, "kernel": "6.1.0-test", "load": ["0.50", "0.40", "0.30"]}


def iperf(mbps, nbytes=None):
    return json.dumps({"end": {"sum_received": {"bits_per_second": mbps * 1e6,
                                                "bytes": nbytes or int(mbps * 1e6 / 8 * 2)}}})


def bex(hi, dh, k, total, n=None, cpu_ns=0):
    s = {"total": total, "t1": [40.0] * len(total), "t2": [t / 2 for t in total],
         "t3": [t / 3 for t in total], "t4": [100.0] * len(total)}
    return json.dumps({"hi": hi, "dh": dh, "k": k, "n": n or len(total), "conditions": COND,
                       "cpu_ns_initiator": cpu_ns, "cpu_ns_responder": 0, "samples_us": s})


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def make_raw(root):
    """A raw directory as tools/experiments.sh leaves it, small and known."""
    write(root, "bex/bex-ecdsa-p256-dh7-k0.json", bex("ecdsa-p256", 7, 0, [1000.0, 2000.0, 3000.0]))
    write(root, "bex/bex-rsa-3072-dh7-k0.json", bex("rsa-3072", 7, 0, [5000.0, 6000.0, 8000.0]))
    for k, cpu in ((0, 3e6), (8, 3.3e6), (16, 60e6)):
        write(root, "sweep/bex-ecdsa-p256-dh7-k%d.json" % k,
              bex("ecdsa-p256", 7, k, [1000.0 + 2 ** k / 2] * 3, cpu_ns=cpu))
    write(root, "sweep/floor.json", json.dumps({"puzzle_hashes_per_s": 1e6}))
    d = "datapath/"
    for p, t, u in (("plain", 10000, 1000), ("hipd-s13", 2000, 250), ("strongswan", 400, 100),
                    ("wireguard-go", 2500, 200)):
        write(root, d + p + ".ping", PING.replace("1025", "0.5"))
        write(root, d + p + ".tcprtt", "100.0\n200.0\n300.0\n")
        write(root, d + p + ".tcp.json", iperf(t, nbytes=500 * 10 ** 6))
        write(root, d + p + ".udp.json", iperf(u))
    write(root, d + "hipd-s13.cpu", "1000000000 2000000000 3000000000 3000000000")
    write(root, d + "strongswan-psk.wire", IKE_WIRE)
    write(root, d + "wireguard-go.wire", WG_WIRE)
    write(root, d + "strongswan-certs.txt", "11000\n12000\n11000\n")
    write(root, d + "strongswan-certs.txt.wire", "6693.1\n6624.0\n6754.2\n")
    write(root, "handover/handover.txt", HANDOVER)
    write(root, "handover/handover-tcp.json", json.dumps({"intervals": [
        {"sum": {"end": 0.1 * i, "bits_per_second": (200e6 if i == 6 else 1000e6)}}
        for i in range(1, 11)]}))
    write(root, "handover/handover-tcp.moves", "0.5123\n")
    write(root, "cost/bex-cost-arch.txt", COST)
    write(root, "cost/esp-cost.txt",
          "esp-cost: suite 13 sender 21000000 receiver 15500000 instructions per MB\n")
    write(root, "cost/esp-cost-arch.txt", ESP_ARCH)
    write(root, "kernel/kernel-throughput.txt", KERNEL_TP)
    write(root, "kernel/plain.ping", PING.replace("1025", "0.7"))
    write(root, "kernel/plain.tcprtt", "3000.0\n3500.0\n3200.0\n")
    write(root, "kernel/kernel.ping", PING.replace("0.045", "0.9").replace("0.031", "1.1"))
    write(root, "kernel/kernel.tcprtt", "3400.0\n3300.0\n3900.0\n")
    for n in range(1, 8):
        write(root, "conditions/s%d.json" % n, json.dumps(COND) + "\n" + json.dumps(COND) + "\n")
    write(root, "notes/s3.txt", "kernel datapath: not measured: this kernel takes no ESP SA\n")
    write(root, "run.txt", "Run: test")


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


class Parsers(unittest.TestCase):
    def test_pct_nearest_rank(self):
        self.assertEqual(parse.pct([5, 1, 4, 2, 3], 50), 3)
        self.assertEqual(parse.pct(list(range(1, 101)), 95), 95)
        self.assertEqual(parse.pct([7], 95), 7)
        self.assertIsNone(parse.pct([], 50))

    def test_ping(self):
        self.assertEqual(parse.ping_ms(PING), [0.045, 0.031, 1025.0])

    def test_ike_wire_takes_init_request_to_auth_response(self):
        v = parse.ike_wire_us(IKE_WIRE)
        self.assertEqual(len(v), 2)
        self.assertAlmostEqual(v[0], 4000.0, delta=1)   # .238704 -> .242704
        self.assertAlmostEqual(v[1], 4000.0, delta=1)

    def test_wg_wire_takes_initiation_to_response(self):
        v = parse.wg_wire_us(WG_WIRE)
        self.assertEqual(len(v), 2)
        self.assertAlmostEqual(v[0], 857.0, delta=1)
        self.assertAlmostEqual(v[1], 500.0, delta=1)

    def test_handover(self):
        h = parse.handover(HANDOVER)
        self.assertEqual((h["measured"], h["moves"]), (5, 5))
        self.assertEqual((h["median_ms"], h["p95_ms"], h["bex_ms"]), (0.17, 0.30, 1.07))
        self.assertEqual(parse.handover("handover: 0 of 5 moves measured"), {})

    def test_bex_cost_arch(self):
        self.assertEqual(parse.bex_cost_arch(COST), {"amd64": 7850873, "armhf": 17668369})

    def test_esp_cost_arch(self):
        r = parse.esp_cost_arch(ESP_ARCH)
        self.assertEqual(sorted(r), ["amd64", "arm64", "armhf"])
        self.assertEqual(r["armhf"], {"suite": 13, "seal": 78168574, "open": 77690000,
                                      "armcap": "0"})
        self.assertEqual(r["arm64"]["armcap"], None)
        self.assertEqual(parse.esp_cost_arch("esp-cost-arch: valgrind run (armhf) failed:\n"),
                         {})

    def test_esp_cost(self):
        self.assertEqual(parse.esp_cost("esp-cost: suite 13 sender 5 receiver 7 instructions "
                                        "per MB\n"), {"suite": 13, "sender": 5, "receiver": 7})
        self.assertEqual(parse.esp_cost("esp-cost: transfer of 2 MB failed"), {})

    def test_iperf(self):
        self.assertAlmostEqual(parse.iperf_mbps(iperf(432.5)), 432.5)
        self.assertIsNone(parse.iperf_mbps('{"error": "unable to connect"}'))
        self.assertIsNone(parse.iperf_mbps("iperf3: error - no route"))

    def test_cpu_ns(self):
        self.assertEqual(parse.cpu_ns("10 20 40 70"), (30, 50))
        self.assertIsNone(parse.cpu_ns("10 20"))


class Report(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="report-test-")
        cls.raw, cls.out = os.path.join(cls.dir, "raw"), os.path.join(cls.dir, "out")
        make_raw(cls.raw)
        cls.missing = build.build(cls.raw, cls.out)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def test_every_section_has_data_and_a_png(self):
        self.assertEqual(self.missing, [])
        for png in ("s1_stages", "s2_sweep", "s3_rtt", "s4_throughput", "s5_handover_tcp",
                    "s6_compare", "s7_cost"):
            with open(os.path.join(self.out, png + ".png"), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", png)

    def test_stage_csv(self):
        r = rows(os.path.join(self.out, "s1_stages.csv"))
        self.assertEqual([x["hi"] for x in r], ["rsa-3072", "ecdsa-p256"])
        p256 = r[1]
        self.assertEqual((p256["total_median_us"], p256["total_p95_us"]), ("2000.0", "3000.0"))
        self.assertEqual(p256["t2_median_us"], "1000.0")
        pub = rows(os.path.join(self.out, "s1_published.csv"))
        first = pub[0]
        self.assertEqual((first["published_ms"], first["hipd_ms"], first["speedup"]),
                         ("188", "2.000", "94x"))

    def test_sweep_csv_and_expected(self):
        r = rows(os.path.join(self.out, "s2_sweep.csv"))
        self.assertEqual([x["k"] for x in r], ["0", "8", "16"])
        self.assertEqual(r[2]["initiator_cpu_ms"], "20.000")           # 60 ms / 3
        self.assertEqual(r[2]["expected_cpu_ms"], "%.3f" % (1.0 + 65.536))

    def test_rtt_throughput_handover_cost(self):
        rtt = {(x["path"], x["kind"]): x for x in rows(os.path.join(self.out, "s3_rtt.csv"))}
        self.assertEqual(rtt[("plain", "icmp")]["median_ms"], "0.045")
        self.assertEqual(rtt[("hipd-s13", "tcp")]["median_ms"], "0.200")
        tp = {x["path"]: x for x in rows(os.path.join(self.out, "s4_throughput.csv"))}
        self.assertEqual((tp["hipd-s13"]["tcp_mbps"], tp["hipd-s13"]["tcp_overhead_pct"]),
                         ("2000", "80.0"))
        self.assertEqual(tp["hipd-s13"]["udp_overhead_pct"], "75.0")
        ho = rows(os.path.join(self.out, "s5_handover.csv"))[0]
        self.assertEqual((ho["median_ms"], ho["p95_ms"]), ("0.17", "0.30"))
        cost = {x["arch"]: x for x in rows(os.path.join(self.out, "s7_cost.csv"))}
        self.assertEqual(cost["armhf"]["vs_amd64"], "2.25")
        esp = rows(os.path.join(self.out, "s7_esp_cost.csv"))
        self.assertEqual([(x["arch"], x["openssl_armcap"]) for x in esp],
                         [("amd64", ""), ("arm64", ""), ("armhf", "0"), ("amd64", "")])
        self.assertEqual((esp[2]["sender_instructions_per_mb"],
                          esp[2]["receiver_instructions_per_mb"]), ("78168574", "77690000"))
        self.assertIn("netns", esp[3]["method"])
        self.assertEqual((esp[3]["sender_instructions_per_mb"],
                          esp[3]["receiver_instructions_per_mb"]), ("21000000", "15500000"))
        mb = rows(os.path.join(self.out, "s7_cost_per_mb.csv"))[0]
        self.assertEqual((mb["sender_engine_us_per_mb"], mb["receiver_engine_us_per_mb"]),
                         ("4000", "2000"))

    def test_kernel_rtt_in_section_3(self):
        rtt = {(x["path"], x["kind"]): x for x in rows(os.path.join(self.out, "s3_rtt.csv"))}
        self.assertEqual(rtt[("kernel-plain", "icmp")]["median_ms"], "0.045")
        self.assertEqual(rtt[("hipd-kernel", "icmp")]["median_ms"], "1.100")
        self.assertEqual(rtt[("hipd-kernel", "tcp")]["median_ms"], "3.400")
        samples = rows(os.path.join(self.out, "s3_rtt_samples.csv"))
        self.assertEqual(len([x for x in samples if x["path"] == "hipd-kernel"]), 6)
        with open(os.path.join(self.out, "summary.md")) as f:
            md = f.read()
        self.assertIn("| 3 | ICMP RTT median, plain (ESP VM) / hipd kernel datapath (ESP VM) | "
                      "0.045 / 1.100 ms |", md)

    def test_compare_rows(self):
        r = {x["protocol"]: x for x in rows(os.path.join(self.out, "s6_compare.csv"))}
        self.assertEqual(len(r), 4)
        hip = r["HIP (hipd, ECDSA P-256, DH 7)"]
        self.assertEqual((hip["handshake_median_ms"], hip["tcp_mbps"]), ("2.000", "2000"))
        self.assertEqual(r["IKEv2 strongSwan, PSK"]["handshakes"], "2")
        self.assertEqual(r["IKEv2 strongSwan, certificates (ECDSA P-256)"]
                         ["handshake_median_ms"], "6.693")

    def test_summary(self):
        with open(os.path.join(self.out, "summary.md")) as f:
            md = f.read()
        for n in range(1, 8):
            self.assertIn("\n## %d. " % n, md)
        self.assertIn("Test CPU, 2 cores, kernel 6.1.0-test, load average", md)
        self.assertIn("Note: kernel datapath: not measured: this kernel takes no ESP SA", md)
        self.assertIn("| 5 | Handover median / p95 | 0.17 / 0.30 ms |", md)
        self.assertIn("![Puzzle difficulty sweep](s2_sweep.png)", md)

    def test_missing_section_is_reported(self):
        raw = os.path.join(self.dir, "raw2")
        shutil.copytree(self.raw, raw)
        os.remove(os.path.join(raw, "cost", "bex-cost-arch.txt"))
        shutil.rmtree(os.path.join(raw, "handover"))
        missing = build.build(raw, os.path.join(self.dir, "out2"))
        self.assertEqual(missing, ["5 (Handover): no data", "5 (Handover): no plot"])
        for f in ("esp-cost-arch.txt", "esp-cost.txt"):
            os.remove(os.path.join(raw, "cost", f))
        missing = build.build(raw, os.path.join(self.dir, "out3"))
        self.assertIn("7 (Cost per exchange and per megabyte): no plot", missing)


if __name__ == "__main__":
    unittest.main()
