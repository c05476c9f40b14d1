#!/usr/bin/env python3
"""test_export_html.py — `fusionbench export --format html` in a real browser.

Exports tests/results/export/small.json (every status, escaping) and the
published H100 softmax run to HTML, opens each in headless Chromium as
PAGE#selftest (the page's script then switches through every view and sorts
every table by every column, checking each), and reads the DOM Chromium dumps:
  - the script finished (#fb-ready) and its self-test passed (#fb-selftest
    data-ok), and no script error was caught (no data-fb-error on <body>, an
    empty #fb-errors);
  - every grid is there: one figure per case x dtype x variant measured in the
    file, no more, no fewer; one table of cells per case x dtype;
  - names from the file stay text (the variant 'toy.<i>odd</i>&"name"' makes no
    <i> element);
  - the page fetches nothing: no src=, <link>, @import or http(s) URL in it.

Skipped (exit 77, meson's SKIP) with the reason when Chromium is not installed
(Debian: apt-get install chromium). FB_CHROMIUM names another binary.
FB_SCREENSHOT=PATH.png also saves a screenshot of the softmax page.

usage: test_export_html.py PATH/TO/fusionbench   (run from anywhere)
"""
import html.parser
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = [os.path.join(HERE, "results", "export", "small.json"),
         os.path.join(HERE, "results", "export", "fixed.json"),
         os.path.join(HERE, "..", "results", "h100", "softmax-f5148a1.json")]


def find_chromium():
    for name in filter(None, [os.environ.get("FB_CHROMIUM"), "chromium", "chromium-browser", "google-chrome",
                              "google-chrome-stable"]):
        path = shutil.which(name)
        if path:
            return path
    return None


def expected_grids(path):
    """case|dtype|variant of every variant that some cell of that dtype holds."""
    doc = json.load(open(path))
    want = []
    for case in doc["cases"]:
        for dt in case["dtypes"]:
            # a case with fixed symbols: one figure per combination of their values
            # (the first slowest), its data-grid ending "|K=1024"
            fixed = case.get("fixed") or {}
            labels = [" ".join(f"{k}={v}" for k, v in zip(fixed, combo))
                      for combo in itertools.product(*fixed.values())] if fixed else [None]
            for v in case["variants"]:
                if any(v in cell["variants"] for cell in dt["cells"]):
                    for label in labels:
                        want.append(f"{case['name']}|{dt['dtype']}|{v}" + (f"|{label}" if label else ""))
    tables = sum(len(case["dtypes"]) for case in doc["cases"])
    return want, tables


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.grids, self.tables, self.tags = [], 0, set()
        self.body, self.ready, self.selftest = {}, None, None
        self.errors_text, self._in_errors = "", False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        cls = (a.get("class") or "").split()
        if tag == "body":
            self.body = a
        elif tag == "figure" and "heat" in cls:
            self.grids.append(a.get("data-grid"))
        elif tag == "table" and "cells" in cls:
            self.tables += 1
        elif a.get("id") == "fb-ready":
            self.ready = a
        elif a.get("id") == "fb-selftest":
            self.selftest = a
        elif a.get("id") == "fb-errors":
            self._in_errors = True

    def handle_endtag(self, tag):
        if tag == "pre":
            self._in_errors = False

    def handle_data(self, data):
        if self._in_errors:
            self.errors_text += data


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    fb = os.path.abspath(sys.argv[1])
    chromium = find_chromium()
    if not chromium:
        print("SKIP: no Chromium (install Debian's 'chromium' package, or set FB_CHROMIUM): "
              "the HTML export is not tested in a browser", file=sys.stderr)
        return 77
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        for src in FILES:
            name = os.path.splitext(os.path.basename(src))[0]
            page = os.path.join(tmp, name + ".html")
            r = subprocess.run([fb, "export", src, "--format", "html", "-o", page], capture_output=True, text=True)
            if r.returncode != 0:
                fails.append(f"{name}: export failed ({r.returncode}): {r.stderr.strip()}")
                continue
            text = open(page, encoding="utf-8").read()
            for bad in ("src=", "<link", "@import", "http://", "https://"):
                if bad in text:
                    fails.append(f"{name}.html holds {bad!r}: it must be self-contained")
            cmd = [chromium, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
                   "--user-data-dir=" + os.path.join(tmp, "profile-" + name), "--dump-dom",
                   "file://" + page + "#selftest"]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
            except subprocess.TimeoutExpired:
                fails.append(f"{name}: chromium did not finish in 180 s")
                continue
            if r.returncode != 0 or "<body" not in r.stdout:
                fails.append(f"{name}: chromium exited {r.returncode}: {r.stderr.strip()[-500:]}")
                continue
            dom = Dom()
            dom.feed(r.stdout)
            if "data-fb-error" in dom.body or dom.errors_text.strip():
                fails.append(f"{name}: a script error: {dom.errors_text.strip()}")
            if dom.ready is None:
                fails.append(f"{name}: the script did not finish (no #fb-ready)")
            if not dom.selftest or dom.selftest.get("data-ok") != "1" or int(dom.selftest.get("data-checks", 0)) <= 0:
                fails.append(f"{name}: the page's self-test did not pass: {dom.selftest}")
            want, tables = expected_grids(src)
            if sorted(dom.grids) != sorted(want):
                fails.append(f"{name}: grids {sorted(dom.grids)}, want {sorted(want)}")
            if dom.tables != tables:
                fails.append(f"{name}: {dom.tables} tables of cells, want {tables}")
            if "i" in dom.tags:
                fails.append(f"{name}: a name from the file became an <i> element (not escaped)")
            print(f"{name}: {len(dom.grids)} grids, {dom.tables} tables, "
                  f"self-test {dom.selftest.get('data-checks') if dom.selftest else '-'} checks")
            shot = os.environ.get("FB_SCREENSHOT")
            if shot and name.startswith("softmax"):
                subprocess.run([chromium, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
                                "--user-data-dir=" + os.path.join(tmp, "profile-shot"), "--window-size=1000,1500",
                                "--screenshot=" + os.path.abspath(shot), "file://" + page],
                               capture_output=True, timeout=180)
    for f in fails:
        print("FAIL:", f, file=sys.stderr)
    print(f"export-html: {'failed' if fails else 'ok'}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
