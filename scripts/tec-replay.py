#!/usr/bin/env python3
"""Derives api/testdata/tec-replay.json from the exchanges captured from
TEC 6.17.2 (the shared reference's tec-samples folder): for each, the
request (method, path, which credentials, body) and the facts of the answer
(status, top-level keys in order, the id of a created record). No text of
TEC's answers is kept.

usage: scripts/tec-replay.py SAMPLES_DIR > api/testdata/tec-replay.json
"""
import glob, json, os, sys

def keys(path):
    try:
        with open(path) as f:
            v = json.load(f, object_pairs_hook=lambda pairs: pairs)
    except (OSError, ValueError):
        return None, None
    if not isinstance(v, list) or (v and not isinstance(v[0], tuple)):
        return None, None
    d = dict(v)
    return [k for k, _ in v], d.get("id") if isinstance(d.get("id"), int) else None

out = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.http.txt"))):
    name = os.path.basename(f)[: -len(".http.txt")]
    base, status = name.rsplit(".", 1)
    req = open(f).read().split("\n--- response", 1)[0]
    head, _, body = req.partition("\n\n")
    lines = head.splitlines()
    method, path, _ = lines[0].split(" ", 2)
    auth = ""
    for l in lines[1:]:
        if l.startswith("Authorization: Basic "):
            auth = "admin" if l.endswith("<admin:app-password>") else "wrong"
    k, created = keys(f[: -len(".http.txt")] + ".json")
    out.append({"name": base, "method": method, "path": path.replace("/wp-json/tribe/events/v1", "/cal/events/v1", 1),
                "auth": auth, "body": body.strip(), "status": int(status), "keys": k, "id": created})
json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
sys.stdout.write("\n")
