#!/usr/bin/env python3
"""check-layout.py - hold the source tree to its layout (README.md "Module map").

Three checks, each problem one line, then "layout: N passed, M failed":

  includes  A file includes, from another folder, only that folder's public
            header: hipd/X/Y/ is seen from outside through hipd/X/Y/Y.h
            (base/base.h, engine/assoc/assoc.h, ...). A folder's own headers
            are visible to its subfolders (engine/engine_int.h to
            engine/exchange/). libcrypto-wrap includes nothing of ours but
            itself and libhipcore's headers, libhipcore only those two;
            neither includes hipd/. Internal library headers (cw_*.h) stay inside.
            tests/ are white-box and not checked.
  circles   With --build DIR: the graph of object files, an arrow where one
            calls or uses a symbol another defines (nm), has no circle.
  size      No C file over 900 lines, tests included (one concept a file).

Usage: check-layout.py [--src DIR] [--build DIR] [--max-lines N] [--show-graph]
"""
import argparse
import collections
import os
import re
import subprocess
import sys

CHECKED = ("hipd", "libhipcore", "libcrypto-wrap", "tools", "fuzz", "firewall")
LIB_PRIVATE = re.compile(r"^libcrypto-wrap/cw_.*\.h$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(src, tops=CHECKED):
    """Tracked (or, outside git, present) C sources and headers, relative paths."""
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                             cwd=src, capture_output=True, text=True, check=True).stdout
        files = out.split()
    except (OSError, subprocess.CalledProcessError):
        files = []
    if not any(f.endswith(".c") for f in files):   # no git here (a dist tarball)
        files = []
        for top in tops:
            for root, _, names in os.walk(os.path.join(src, top)):
                files += [os.path.relpath(os.path.join(root, n), src) for n in names]
    return sorted(f for f in files if f.endswith((".c", ".h")) and f.split("/")[0] in tops
                  and os.path.exists(os.path.join(src, f)))


def resolve(src, f, inc):
    """The repository file an include names, or None (system, generated)."""
    here = os.path.dirname(f)
    for base in (here, "hipd", "libhipcore", "libcrypto-wrap"):
        cand = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(os.path.join(src, cand)):
            return cand
    return None


def public_header(folder):
    return "%s/%s.h" % (folder, os.path.basename(folder))


def include_allowed(f, h):
    fd, hd = os.path.dirname(f), os.path.dirname(h)
    ftop, htop = f.split("/")[0], h.split("/")[0]
    if fd == hd:
        return True
    if htop == "libcrypto-wrap":
        return not LIB_PRIVATE.match(h)
    if htop == "libhipcore":
        return True                  # (libcrypto-wrap: its header-only constants)
    if htop == "hipd":
        if ftop in ("libhipcore", "libcrypto-wrap"):
            return False
        if (fd + "/").startswith(hd + "/"):
            return True              # a parent folder's shared headers
        return h == public_header(hd) or h == "hipd/hipd.h"
    return True                      # tools/, fuzz/ headers of their own


def check_includes(src, files, problems):
    n = 0
    for f in files:
        with open(os.path.join(src, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for inc in INCLUDE.findall(text):
            h = resolve(src, f, inc)
            if h is None:
                continue
            n += 1
            if not include_allowed(f, h):
                hd = os.path.dirname(h)
                want = public_header(hd) if hd.startswith("hipd") else "its public header"
                problems.append("include: %s includes %s (from outside %s/ only %s)"
                                % (f, h, hd, want))
    return n


def object_source(build, src, obj):
    """hipd/engine/assoc/hipd_libhipd_a-ha.o -> hipd/engine/assoc/ha.c"""
    rel = os.path.relpath(obj, build)
    d, b = os.path.split(rel)
    b = re.sub(r"^[A-Za-z0-9_]+-", "", b[:-2])
    for ext in (".c",):
        cand = os.path.join(d, b + ext)
        if os.path.isfile(os.path.join(src, cand)):
            return cand
    return None


def call_graph(src, build):
    defs, uses = {}, collections.defaultdict(set)
    for top in CHECKED:
        if top in ("tools", "fuzz"):
            continue                 # programs: nothing calls into them
        for root, _, names in os.walk(os.path.join(build, top)):
            for n in names:
                if not n.endswith(".o"):
                    continue
                obj = os.path.join(root, n)
                s = object_source(build, src, obj)
                if s is None:
                    continue         # a stale object of a removed source
                out = subprocess.run(["nm", obj], capture_output=True, text=True).stdout
                for line in out.splitlines():
                    p = line.split()
                    if len(p) == 3 and p[1] in "TDBRC":
                        defs.setdefault(p[2], s)
                    elif len(p) == 2 and p[0] == "U":
                        uses[s].add(p[1])
                uses.setdefault(s, set())
    edges = collections.defaultdict(dict)
    for s, syms in uses.items():
        for sym in syms:
            t = defs.get(sym)
            if t and t != s:
                edges[s].setdefault(t, set()).add(sym)
    return sorted(uses), edges


def circles(nodes, edges):
    """Strongly connected components with more than one file (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        work = [(v, iter(sorted(edges.get(v, {}))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, {})))))
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=os.environ.get("top_srcdir", "."))
    ap.add_argument("--build", help="build directory whose objects give the call graph")
    ap.add_argument("--max-lines", type=int, default=900)
    ap.add_argument("--show-graph", action="store_true",
                    help="print every arrow between files (with --build)")
    a = ap.parse_args()
    src = os.path.abspath(a.src)
    files = sources(src)
    problems, passed = [], 0

    passed += check_includes(src, files, problems)

    for f in sources(src, CHECKED + ("tests",)):
        with open(os.path.join(src, f), encoding="utf-8", errors="replace") as fh:
            n = sum(1 for _ in fh)
        if n > a.max_lines:
            problems.append("size: %s has %d lines (at most %d)" % (f, n, a.max_lines))
        else:
            passed += 1

    if a.build:
        nodes, edges = call_graph(src, os.path.abspath(a.build))
        if not nodes:
            problems.append("circles: no objects under %s (build first)" % a.build)
        for comp in circles(nodes, edges):
            ties = ["%s -> %s (%s)" % (x, y, ", ".join(sorted(edges[x][y])[:4]))
                    for x in comp for y in comp if y in edges.get(x, {})]
            problems.append("circle: %s: %s" % (" ".join(comp), "; ".join(ties)))
        passed += len(nodes)
        if a.show_graph:
            for x in sorted(edges):
                for y in sorted(edges[x]):
                    print("%s -> %s: %s" % (x, y, " ".join(sorted(edges[x][y]))))

    for p in problems:
        print(p)
    print("layout: %d passed, %d failed" % (passed, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
