"""Assembles summary.md from the sections (tools/report/sections.py)."""
import os

from . import sections


def build(raw, out, title="hipd experiments"):
    """Writes the report into out; returns what is missing ("N: no data",
    "N: no plot"), empty when every section has both."""
    os.makedirs(out, exist_ok=True)
    done, missing = [], []
    for fn in sections.ALL:
        sec = fn(raw, out)
        done.append(sec)
        if sec.rows == 0:
            missing.append("%d (%s): no data" % (sec.num, sec.title))
        if not sec.pngs:
            missing.append("%d (%s): no plot" % (sec.num, sec.title))
    meta = ""
    try:
        with open(os.path.join(raw, "run.txt")) as f:
            meta = f.read().strip()
    except OSError:
        pass
    md = ["# %s" % title, ""]
    if meta:
        md += [meta, ""]
    md += ["## Summary", "", "| section | figure | measured |", "|---|---|---|"]
    for sec in done:
        for what, value in sec.headline:
            md.append("| %d | %s | %s |" % (sec.num, what, value))
        if not sec.headline:
            md.append("| %d | %s | not measured |" % (sec.num, sec.title))
    md.append("")
    for sec in done:
        md += ["## %d. %s" % (sec.num, sec.title), ""]
        md += sec.md if sec.md else ["No data.", ""]
        for png in sec.pngs:
            md += ["![%s](%s)" % (sec.title, png), ""]
        files = ", ".join("`%s`" % c for c in sec.csvs)
        md += ["Data: %s." % files, "",
               "Conditions: %s." % sections.conditions(raw, sec.num), ""]
        for n in sections.notes(raw, sec.num):
            md += ["Note: %s" % n, ""]
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(md))
    return missing
