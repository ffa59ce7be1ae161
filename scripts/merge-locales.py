#!/usr/bin/env python3
# git merge driver for the flat locale files (i18n/locales/*.json): the union of
# the keys; a key changed on one side takes that side; changed on both sides
# keeps ours and warns. Enable once per clone (see README, "Working on it"):
#   git config merge.jsonunion.driver "python3 scripts/merge-locales.py %O %A %B"
import json, sys
base_p, ours_p, theirs_p = sys.argv[1:4]
def load(p):
    try:
        with open(p, encoding="utf-8") as f:
            s = f.read().strip()
            return json.loads(s) if s else {}
    except Exception:
        return None
b, o, t = load(base_p) or {}, load(ours_p), load(theirs_p)
if o is None or t is None:
    sys.exit(1)
out = dict(o)
for k, v in t.items():
    if k not in o:
        if k in b and b[k] == v:
            continue  # deleted on our side
        out[k] = v
    elif o[k] != v:
        if o[k] == b.get(k):
            out[k] = v
        elif v != b.get(k):
            sys.stderr.write(f"jsonmerge: {ours_p}: both sides changed {k!r}; kept ours\n")
for k in list(out):
    if k in b and k not in t and out[k] == b[k]:
        del out[k]  # deleted on their side
with open(ours_p, "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False, indent=2, sort_keys=True)
    f.write("\n")
