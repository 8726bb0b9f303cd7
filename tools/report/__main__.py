"""python3 -m tools.report RAW OUT [--check] [--title TEXT] (see __init__.py)."""
import argparse
import sys

from .build import build


def main(argv):
    ap = argparse.ArgumentParser(prog="python3 -m tools.report")
    ap.add_argument("raw")
    ap.add_argument("out")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless every section produced data and a PNG")
    ap.add_argument("--title", default="hipd experiments")
    a = ap.parse_args(argv)
    missing = build(a.raw, a.out, a.title)
    for m in missing:
        print("report: section %s" % m, file=sys.stderr)
    return 1 if a.check and missing else 0


sys.exit(main(sys.argv[1:]))
