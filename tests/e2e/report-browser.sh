#!/bin/sh
# report-browser.sh RUN_DIR: loads RUN_DIR/report.html in headless Chromium
# and checks the rendered DOM against RUN_DIR/results.json: one td.cell per
# cell, with the same statuses.  Keeps a screenshot, RUN_DIR/report.png, as
# the CI artefact.  Prints one line; exits non-zero on failure.
set -eu

fail() {
	echo "report-browser: FAIL: $*"
	exit 1
}

[ $# -eq 1 ] || { echo "usage: $0 RUN_DIR" >&2; exit 2; }
run_dir=$(realpath -- "$1") || fail "no run directory '$1'"
[ -f "$run_dir/report.html" ] || fail "no report '$run_dir/report.html'"
[ -f "$run_dir/results.json" ] || fail "no results '$run_dir/results.json'"
chromium=${CHROMIUM:-chromium}
command -v "$chromium" >/dev/null || fail "no browser '$chromium'"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Its own profile, so a browser the user runs does not share (or lock) it;
# --no-sandbox because CI runs as root.
browse() {
	timeout 120 "$chromium" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$tmp/profile" "$@" "file://$run_dir/report.html" 2>>"$tmp/chromium.log"
}

browse --dump-dom >"$tmp/dom.html" || fail "chromium could not load the report (see its log: $(tail -n 3 "$tmp/chromium.log" | tr '\n' ' '))"

# The rendered DOM, not the file: what the browser made of it.
verdict=$(python3 - "$tmp/dom.html" "$run_dir/results.json" <<'PY'
import collections, html.parser, json, sys

class Cells(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.statuses = []
        self.matrix = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == "matrix":
            self.matrix = True
        if tag == "td" and "cell" in (a.get("class") or "").split():
            self.statuses.append(a.get("data-status"))

dom = Cells()
dom.feed(open(sys.argv[1], encoding="utf-8", errors="replace").read())
want = [c["status"] for c in json.load(open(sys.argv[2]))]
if not dom.matrix:
    print("no matrix table in the DOM")
elif len(dom.statuses) != len(want):
    print(f"{len(dom.statuses)} td.cell in the DOM, {len(want)} cells in results.json")
elif collections.Counter(dom.statuses) != collections.Counter(want):
    print(f"statuses differ: DOM {dict(collections.Counter(dom.statuses))}, "
          f"results.json {dict(collections.Counter(want))}")
else:
    counts = ", ".join(f"{n} {s}" for s, n in sorted(collections.Counter(want).items()))
    print(f"ok {len(want)} cells ({counts})")
PY
) || fail "cannot read the DOM or results.json"
case $verdict in
ok\ *) ;;
*) fail "$verdict" ;;
esac

rm -f "$run_dir/report.png"
browse --screenshot="$run_dir/report.png" --window-size=1400,1000 >/dev/null ||
	fail "chromium could not take the screenshot"
[ -s "$run_dir/report.png" ] || fail "no screenshot '$run_dir/report.png'"
echo "report-browser: pass: ${verdict#ok } in the DOM; screenshot $run_dir/report.png"
