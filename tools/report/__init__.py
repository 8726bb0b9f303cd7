"""tools/report: the experiments report of issue 17 (tools/experiments.sh).

    python3 -m tools.report RAW OUT [--check] [--title TEXT]

reads the raw benchmark outputs under RAW, writes OUT/summary.md, one or more
CSV files and a PNG per section; --check exits 1 unless every section has
data and a plot."""
