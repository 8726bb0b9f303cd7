#!/bin/sh
# The layout check (tools/check-layout.py) as a `make check` test: includes
# across folders only through public headers, no call circle between the
# objects just built, no file over 900 lines. Run from the build directory.
command -v python3 >/dev/null 2>&1 || { echo "layout: SKIP: no python3"; exit 77; }
exec python3 "${top_srcdir:-..}/tools/check-layout.py" --src "${top_srcdir:-..}" --build .
