"""Published base exchange figures hipd's are compared with (section 1).

The only numbers of the report not measured in the run. Source: issue 17 of
this project's tracker ("The seed experiments, reproduced by one command"),
which cites the classic HIP measurements: "a 2009 laptop study: total about
188 ms; a 2007 Nokia 770 tablet: about 1.4 s". Base exchange total, I1 sent
to R2 processed, as the Initiator sees it."""

PUBLISHED_BEX_MS = [
    # (what, total base exchange in ms)
    ("2009 laptop study (issue 17)", 188.0),
    ("2007 Nokia 770 tablet (issue 17)", 1400.0),
]
