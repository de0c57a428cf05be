#!/usr/bin/python3
"""The cell checks of the LAVA end-to-end tests (tests/e2e/lava.sh, lava-server.sh).

lava-cells.py same REF RUN: cell by cell, (variant, setup, test) -> status and crash, the
    same in both results directories' latest runs, and every cell of RUN met.
lava-cells.py linked RUN LAB: some cells ran on "lab LAB" and some under libvirt, all on
    one or the other, each lab cell names its job, linked in report.html, and no libvirt
    cell names one.  A server's job URL is KCIDB's log_url too; a lava-run job's is its
    log's path in the run directory, a file anyone may read, and no log_url.
"""
import glob
import json
import os
import stat
import sys


def run_dir(results):
    return sorted(glob.glob(results + "/2*/"))[-1]


def cells(results):
    return {(c["kernel"], c["cpu"], c["cmdline"], c["test"]): c
            for c in json.load(open(run_dir(results) + "results.json"))}


def same(ref, run):
    a, b = cells(ref), cells(run)
    bad = [k for k in a.keys() | b.keys()
           if k not in a or k not in b
           or (a[k]["status"], a[k]["crash"]) != (b[k]["status"], b[k]["crash"])]
    for k in bad[:10]:
        print("# differs:", k, a.get(k, {}).get("status"), b.get(k, {}).get("status"))
    unmet = [k for k, c in b.items() if not c["met"]]
    print("# %d cells, %d differ, %d unmet" % (len(b), len(bad), len(unmet)))
    return not bad and not unmet and b


def linked(results, lab):
    run = run_dir(results)
    all_cells = json.load(open(run + "results.json"))
    on_lab = [c for c in all_cells if c["host"] == "lab " + lab]
    virt = [c for c in all_cells if c["host"].startswith("qemu:///")]
    html = open(run + "report.html").read()
    logs = {t.get("log_url") for t in json.load(open(run + "kcidb.json"))["tests"]}
    ok = bool(on_lab and virt and len(on_lab) + len(virt) == len(all_cells))
    for c in on_lab:
        url = c["job_url"]
        ok = ok and bool(c["job_id"] and url) and ('href="%s"' % url) in html
        if ok and "://" in url:
            ok = url in logs
        elif ok:
            ok = url not in logs and os.stat(run + url).st_mode & stat.S_IROTH != 0
    ok = ok and all(c["job_url"] is None for c in virt)
    print("# %d cells on lab %s, %d under libvirt" % (len(on_lab), lab, len(virt)))
    return ok


if __name__ == "__main__":
    check = {"same": same, "linked": linked}[sys.argv[1]]
    sys.exit(0 if check(*sys.argv[2:]) else 1)
