#!/usr/bin/env python3
"""ab.py: two planctl builds in turn on one plan (old, new, old, ...), N runs
each: median wall time, CPU time (user + system) and peak RSS of each whole
process, and new's over old's. For changes too small for pairs.sh's ratios
against Python to show.

    CGO_ENABLED=0 go build -o /tmp/planctl.new ./cmd/planctl
    python3 .ci/bench/ab.py -n 21 /tmp/planctl.old /tmp/planctl.new run --catalog catalog.json plan.json
"""
import argparse
import os
import statistics
import subprocess
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=21, help="runs of each build")
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="planctl's arguments")
    a = ap.parse_args()
    res = {k: {"wall": [], "cpu": [], "rss": []} for k in ("old", "new")}
    for _ in range(a.n):
        for k, b in (("old", a.old), ("new", a.new)):
            t0 = time.perf_counter()
            p = subprocess.Popen([b] + a.args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, _, ru = os.wait4(p.pid, 0)
            res[k]["wall"].append(time.perf_counter() - t0)
            res[k]["cpu"].append(ru.ru_utime + ru.ru_stime)
            res[k]["rss"].append(ru.ru_maxrss / 1024)  # KiB on Linux
    m = {k: {f: statistics.median(v) for f, v in r.items()} for k, r in res.items()}
    o, n = m["old"], m["new"]
    print(f"wall {o['wall']*1000:.1f} -> {n['wall']*1000:.1f} ms ({n['wall']/o['wall']:.3f}x)  "
          f"cpu {o['cpu']*1000:.1f} -> {n['cpu']*1000:.1f} ms ({n['cpu']/o['cpu']:.3f}x)  "
          f"peak {o['rss']:.1f} -> {n['rss']:.1f} MiB")


if __name__ == "__main__":
    main()
