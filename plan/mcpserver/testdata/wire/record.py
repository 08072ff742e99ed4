#!/usr/bin/env python3
"""Records the answers of cases.txt from Concierge's own server (the oracle).

usage: CONCIERGE_VENDOR=... python3 record.py [ORACLE_SERVER]
  ORACLE_SERVER defaults to /work/shared/oracle/server.py (see its README for
  CONCIERGE_VENDOR). Each request is sent alone, and its answer awaited (by id)
  before the next: the server answers requests concurrently. cases.txt is
  rewritten in place with each "<" line replaced by what the server wrote.
"""
import json
import os
import subprocess
import sys
import threading
import queue

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
server = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/oracle/server.py"
catalog = os.path.join(ROOT, "mockserver", "demo.json")

with open(os.path.join(HERE, "cases.txt"), encoding="utf-8") as f:
    lines = [l.rstrip("\n") for l in f if not l.startswith("< ")]

proc = subprocess.Popen([sys.executable, server, catalog], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
answers = queue.Queue()
threading.Thread(target=lambda: [answers.put(l) for l in proc.stdout], daemon=True).start()

out = []
for line in lines:
    out.append(line)
    if not line.startswith("> "):
        continue
    req = line[2:]
    proc.stdin.write(req.encode("utf-8") + b"\n")
    proc.stdin.flush()
    msg = json.loads(req)
    if "id" not in msg:
        continue
    raw = answers.get(timeout=30)
    got = json.loads(raw)
    if got.get("id") != msg["id"]:
        sys.exit("answer to %r came for another id: %r" % (msg["id"], raw))
    out.append("< " + raw.decode("utf-8").rstrip("\n"))
proc.stdin.close()
proc.wait(timeout=30)

with open(os.path.join(HERE, "cases.txt"), "w", encoding="utf-8") as f:
    f.write("\n".join(out) + "\n")
