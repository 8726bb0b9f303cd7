"""PNG plots of the experiments report (matplotlib, no display needed)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

STAGE_TITLES = {"t1": "T1 I1 -> R1 (Responder)", "t2": "T2 R1 -> I2 (Initiator)",
                "t3": "T3 I2 -> R2 (Responder)", "t4": "T4 R2 (Initiator)",
                "total": "total I1 -> R2 done"}


def _save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _nz(v):
    return [0 if x is None else x for x in v]


def stage_bars(path, labels, medians, p95s):
    """One bar chart per stage: median per configuration, p95 as a whisker."""
    fig, axes = plt.subplots(1, len(medians), figsize=(4 * len(medians), 4.2))
    for ax, (st, med) in zip(axes, medians.items()):
        up = [max(0, (p or 0) - (m or 0)) for m, p in zip(med, p95s[st])]
        ax.bar(range(len(labels)), _nz(med), yerr=[[0] * len(up), up], capsize=3,
               color="tab:blue")
        ax.set_title(STAGE_TITLES.get(st, st), fontsize=9)
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("ms (median, whisker p95)", fontsize=8)
    _save(fig, path)


def sweep(path, ks, bex_ms, cpu_ms, base_ms, hashes_per_s):
    """Measured points, and the expected CPU: base_ms + 2^K hashes at the rate."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(ks, [x if x else float("nan") for x in bex_ms], "o-", label="BEX time (median)")
    ax.plot(ks, cpu_ms, "s-", label="Initiator CPU per exchange")
    if hashes_per_s and base_ms is not None:
        dense = [k / 4 for k in range(0, 4 * max(ks) + 1)]
        ax.plot(dense, [base_ms + 2 ** k / hashes_per_s * 1e3 for k in dense], "k--",
                label="expected: K=0 CPU + 2^K SHA-384 hashes")
    ax.set_yscale("log")
    ax.set_xlabel("puzzle difficulty K")
    ax.set_ylabel("ms (log scale)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, path)


def rtt_boxes(path, labels, icmp, tcp):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    for ax, data, title in ((axes[0], icmp, "ICMP echo"), (axes[1], tcp, "TCP 1-byte echo")):
        keep = [(lab, d) for lab, d in zip(labels, data) if d]
        if keep:
            ax.boxplot([d for _, d in keep], showfliers=True)
            ax.set_xticks(range(1, len(keep) + 1))
            ax.set_xticklabels([lab for lab, _ in keep], rotation=30, ha="right", fontsize=8)
        ax.set_title("RTT, " + title)
        ax.set_ylabel("ms")
    _save(fig, path)


def throughput(path, labels, tcp, udp, plain_tcp, plain_udp):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    for ax, vals, base, title in ((axes[0], tcp, plain_tcp, "TCP"), (axes[1], udp, plain_udp,
                                                                      "UDP")):
        bars = ax.bar(range(len(labels)), _nz(vals), color="tab:green")
        for b, v, lab in zip(bars, vals, labels):
            if v and base and lab != "plain":
                ax.annotate("-%.0f%%" % ((1 - v / base) * 100), (b.get_x() + b.get_width() / 2,
                            b.get_height()), ha="center", va="bottom", fontsize=8)
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("Mbit/s received")
        ax.set_title("%s throughput (label: overhead vs plain)" % title, fontsize=10)
    _save(fig, path)


def series(path, points, moves):
    fig, ax = plt.subplots(figsize=(9, 4))
    ax.step([t for t, _ in points], [v for _, v in points], where="post")
    for m in moves:
        ax.axvline(m, color="red", linestyle="--", linewidth=1)
    ax.set_xlabel("s since iperf3 started (red: move of the mobile host)")
    ax.set_ylabel("Mbit/s per 100 ms bin")
    ax.set_ylim(bottom=0)
    ax.set_title("TCP throughput across a handover (HIT to HIT)")
    _save(fig, path)


def compare(path, rows):
    """rows: (name, handshake ms, TCP Mbit/s, RTT ms)."""
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.5))
    names = [r[0] for r in rows]
    for ax, i, title in ((axes[0], 1, "handshake, median ms"), (axes[1], 2, "TCP Mbit/s"),
                         (axes[2], 3, "ICMP RTT, median ms")):
        ax.bar(range(len(rows)), [r[i] or 0 for r in rows], color="tab:purple")
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels(names, rotation=30, ha="right", fontsize=7)
        ax.set_title(title)
    _save(fig, path)


def cost(path, arches, ir, esp=None):
    """Instructions per exchange per arch (may be empty); esp: [(label,
    sender, receiver)] instructions per MB, on a log scale (the archs differ
    by 10x and more)."""
    panels = [p for p in (arches, esp) if p]
    fig, axes = plt.subplots(1, len(panels), figsize=(6 + 5 * (len(panels) - 1), 4.2),
                             squeeze=False)
    axes = list(axes[0])
    if arches:
        ax = axes.pop(0)
        ax.bar(arches, [v / 1e6 for v in ir], color="tab:orange")
        ax.set_ylabel("million instructions per exchange")
        ax.set_title("Base exchange + CLOSE, both sides (callgrind)", fontsize=10)
    if esp:
        ax = axes.pop(0)
        x = range(len(esp))
        ax.bar([i - 0.2 for i in x], [e[1] / 1e6 for e in esp], 0.4, label="sender (seal / whole)",
               color="tab:orange")
        ax.bar([i + 0.2 for i in x], [max(e[2], 1) / 1e6 for e in esp], 0.4,
               label="receiver (open / whole)", color="tab:brown")
        ax.set_xticks(list(x))
        ax.set_xticklabels([e[0] for e in esp], rotation=20, ha="right", fontsize=7)
        ax.set_yscale("log")
        ax.set_ylim(bottom=min(max(min(e[1], e[2]), 1) for e in esp) / 1e6 / 3)
        ax.set_ylabel("million instructions per MB (log scale)")
        ax.set_title("Userspace ESP per MB (callgrind)", fontsize=10)
        ax.legend(fontsize=7)
    _save(fig, path)
