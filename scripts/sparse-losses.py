#!/usr/bin/env python3
"""Where the sparse profile's trips and visits are lost (issue 23; docs/PASSES.md, "Sparse phones, second round").

For each seed S, DIR/S/db.sqlite is `tripline evaluate --profile sparse-owntracks --seed S --days 4 --db DIR/S/db.sqlite`
and DIR/S/truth.json the truth of `tripline simulate --out T --seed S --days 4 --profile sparse-owntracks`. Run only on
tuning seeds (1-20, 31-50), never on report seeds. Usage: scripts/sparse-losses.py DIR SEED...

Matches as `evaluate` does (one to one, greedy by temporal IoU >= 0.5) and classifies every unmatched true trip
(no record inside it, with the silence around it; records but no rebuilt trip; found too short or too long; inside a
rebuilt trip that overlaps another true trip), every unmatched true visit (spanning two true stays, with or without a
record at the stay; too short; too long; nothing rebuilt), and every unmatched rebuilt trip and visit. Prints the
pooled counts and writes every case to DIR/examples.txt.
"""
import json, sqlite3, sys, math, collections

def iou(a, b):
    ov = min(a[1], b[1]) - max(a[0], b[0])
    if ov <= 0: return 0.0
    return ov / (max(a[1], b[1]) - min(a[0], b[0]))

def match(truth, found):
    c = []
    for t, a in enumerate(truth):
        for f, b in enumerate(found):
            v = iou(a, b)
            if v >= 0.5: c.append((-v, t, f))
    c.sort()
    ut, uf, pairs = set(), set(), {}
    for _, t, f in c:
        if t in ut or f in uf: continue
        ut.add(t); uf.add(f); pairs[t] = f
    return pairs

def dist(a, b, c, d):
    r = 6371008.8
    p1, p2 = math.radians(a), math.radians(c)
    dp, dl = p2 - p1, math.radians(d - b)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(h))

def ov(a, b): return max(0, min(a[1], b[1]) - max(a[0], b[0]))

causes = {"trip": collections.Counter(), "extra_trip": collections.Counter(), "visit": collections.Counter(), "extra_visit": collections.Counter()}
examples = collections.defaultdict(list)
tot = collections.Counter()

def note(kind, cause, text):
    causes[kind][cause] += 1
    examples[kind + ":" + cause].append(text)

d0 = sys.argv[1]
for seed in sys.argv[2:]:
    truth = json.load(open(f"{d0}/{seed}/truth.json"))
    db = sqlite3.connect(f"{d0}/{seed}/db.sqlite")
    places = {p["id"]: p for p in truth["places"]}
    for dev, did in db.execute("SELECT name, id FROM devices"):
        flagged = dict(db.execute("SELECT time_ms, flags FROM point_flags WHERE device_id=?", (did,)).fetchall())
        pts = [r for r in db.execute("SELECT time_ms, lat, lon, accuracy_m, speed_mps, trigger FROM points WHERE device_id=? ORDER BY time_ms", (did,)) if flagged.get(r[0], 0) == 0]
        import bisect
        ptimes = [p[0] for p in pts]
        def fixes(a, b):
            return pts[bisect.bisect_left(ptimes, a):bisect.bisect_right(ptimes, b)]
        evs = sorted(r[0] for r in db.execute("SELECT time_ms FROM app_events WHERE device_id=? AND kind='transition'", (did,)))
        allrec = sorted(set(ptimes) | set(evs))
        regime = {d["date"]: d.get("regime", "?") for d in truth["days"] if d["device"] == dev}
        import datetime
        def reg(ms):
            d = datetime.datetime.fromtimestamp(ms / 1000 + 3600 - 3 * 3600, datetime.timezone.utc).strftime("%Y-%m-%d")
            return regime.get(d, "?")[9:13]
        def silence(a, b):
            # records strictly inside [a, b] and the silence (last record before a → first after b) in minutes
            i, j = bisect.bisect_left(allrec, a), bisect.bisect_right(allrec, b)
            prev = allrec[i - 1] if i > 0 else a; nxt = allrec[j] if j < len(allrec) else b
            return j - i, (nxt - prev) / 60000
        tt = [t for t in truth["trips"] if t["device"] == dev]
        ts = [s for s in truth["stays"] if s["device"] == dev and s["end_ms"] - s["start_ms"] >= 300000]
        ft = db.execute("SELECT start_ms, end_ms, distance_m, points FROM trips WHERE device_id=? ORDER BY start_ms", (did,)).fetchall()
        fv = db.execute("SELECT start_ms, end_ms, lat, lon, points FROM visits WHERE device_id=? ORDER BY start_ms", (did,)).fetchall()
        tiv = [(t["start_ms"], t["end_ms"]) for t in tt]
        siv = [(s["start_ms"], s["end_ms"]) for s in ts]
        tp = match(tiv, [(f[0], f[1]) for f in ft])
        vp = match(siv, [(f[0], f[1]) for f in fv])
        tot["trips"] += len(tt); tot["found_trips"] += len(ft); tot["matched_trips"] += len(tp)
        tot["visits"] += len(ts); tot["found_visits"] += len(fv); tot["matched_visits"] += len(vp)
        tag = lambda ms: f"s{seed} {dev} {ms/1000:.0f}"
        for k, t in enumerate(tt):
            if k in tp: continue
            a = (t["start_ms"], t["end_ms"]); dur = (a[1] - a[0]) / 60000
            modes = "+".join(l["mode"] for l in t["legs"])
            n = len(fixes(*a))
            over = [(f, ov(a, (f[0], f[1]))) for f in ft if ov(a, (f[0], f[1])) > 0]
            nr, sil = silence(*a)
            desc = f"{tag(a[0])} [{reg(a[0])}] {modes} {dur:.1f}min {t['distance_m']:.0f}m fixes={n} records={nr} silence={sil:.0f}min"
            if not over:
                note("trip", ("no record in trip (silence " + ("> 90 min" if sil > 90 else "≤ 90 min") + "), no rebuilt trip") if nr == 0 else "records but no rebuilt trip", desc)
                continue
            f, o = max(over, key=lambda x: x[1])
            fiv = (f[0], f[1])
            others = [u for u in tt if u is not t and ov((u["start_ms"], u["end_ms"]), fiv) > 0]
            ds, de = (f[0] - a[0]) / 60000, (f[1] - a[1]) / 60000
            desc += f" rebuilt {(f[1]-f[0])/60000:.1f}min start{ds:+.1f} end{de:+.1f} iou={iou(a, fiv):.2f}"
            if others: note("trip", "inside a longer rebuilt trip (joined with another)", desc)
            elif f[1] - f[0] < (a[1] - a[0]): note("trip", "found too short (edges)", desc)
            elif len(over) > 1: note("trip", "split into pieces", desc)
            else: note("trip", "found too long (edges into a stay)", desc)
        matched_f = set(tp.values())
        for j, f in enumerate(ft):
            if j in matched_f: continue
            fiv = (f[0], f[1])
            inside = fixes(*fiv)
            far = any(p[3] is not None and p[3] >= 500 for p in inside)
            otr = [t for t in tt if ov((t["start_ms"], t["end_ms"]), fiv) > 0]
            desc = f"{tag(f[0])} {(f[1]-f[0])/60000:.1f}min {f[2]:.0f}m pts={f[3]}"
            if far: note("extra_trip", "cell fix (≥500 m accuracy) inside", desc)
            elif not otr: note("extra_trip", "inside a true stay (drift / false stop split)", desc)
            elif any(k in tp and ov((tt[k]["start_ms"], tt[k]["end_ms"]), fiv) > 0 for k in range(len(tt)) if tt[k] in otr): note("extra_trip", "fragment of a matched trip", desc)
            else: note("extra_trip", "over unmatched true trip(s)", desc)
        for k, s in enumerate(ts):
            if k in vp: continue
            a = (s["start_ms"], s["end_ms"]); dur = (a[1] - a[0]) / 60000
            n = len(fixes(*a))
            pl = places[s["place"]]
            over = [(f, ov(a, (f[0], f[1]))) for f in fv if ov(a, (f[0], f[1])) > 0]
            nr, sil = silence(*a)
            desc = f"{tag(a[0])} [{reg(a[0])}] {pl['kind']} {dur:.1f}min fixes={n} records={nr} silence={sil:.0f}min"
            if not over:
                note("visit", "no fix, no visit" if n == 0 else "fixes but no visit", desc); continue
            f, o = max(over, key=lambda x: x[1])
            fiv = (f[0], f[1])
            others = [u for u in ts if u is not s and ov((u["start_ms"], u["end_ms"]), fiv) > 60000]
            d = dist(pl["lat"], pl["lon"], f[2], f[3])
            desc += f" rebuilt {(f[1]-f[0])/60000:.1f}min start{(f[0]-a[0])/60000:+.1f} end{(f[1]-a[1])/60000:+.1f} {d:.0f}m off pts={f[4]}"
            if others:
                op = [places[u["place"]] for u in others]
                same = all(u["place"] == s["place"] for u in others)
                fx = []
                for p in fixes(f[0], f[1]):
                    st = [u for u in truth["stays"] if u["device"] == dev and u["start_ms"] <= p[0] <= u["end_ms"]]
                    w = (places[st[0]["place"]]["kind"] + f"@{dist(places[st[0]['place']]['lat'], places[st[0]['place']]['lon'], p[1], p[2]):.0f}m") if st else "trip"
                    fx.append(f"{(p[0]-f[0])/60000:.0f}:{w}/a{p[3] or 0:.0f}")
                note("visit", "spanning two true stays" + (" (same place)" if same else " (other place)") + (": no record at the stay" if nr == 0 else ": records at the stay"), desc + " with " + ",".join(p["kind"] for p in op) + " fixes " + " ".join(fx))
            elif f[1] - f[0] < a[1] - a[0]: note("visit", "found too short", desc)
            else: note("visit", "found too long", desc)
        mv = set(vp.values())
        for j, f in enumerate(fv):
            if j in mv: continue
            fiv = (f[0], f[1])
            inside = fixes(*fiv)
            far = all(p[3] is not None and p[3] >= 500 for p in inside) if inside else False
            ots = [s for s in ts if ov((s["start_ms"], s["end_ms"]), fiv) > 0]
            desc = f"{tag(f[0])} {(f[1]-f[0])/60000:.1f}min pts={f[4]}"
            if far: note("extra_visit", "cell fixes only", desc)
            elif not ots: note("extra_visit", "in a trip (no true stay ≥5 min)", desc)
            else: note("extra_visit", "over a true stay matched or split elsewhere", desc)

def f1(m, t, f): return 2 * m / (t + f) if t + f else 0
print(f"trips {tot['matched_trips']}/{tot['trips']} found {tot['found_trips']} F1 {f1(tot['matched_trips'], tot['trips'], tot['found_trips']):.3f}")
print(f"visits {tot['matched_visits']}/{tot['visits']} found {tot['found_visits']} F1 {f1(tot['matched_visits'], tot['visits'], tot['found_visits']):.3f}")
for kind in causes:
    print(f"== {kind}: {sum(causes[kind].values())}")
    for c, n in causes[kind].most_common(): print(f"  {n:4d} {c}")
if True:  # every case, for reading
    with open(f"{d0}/examples.txt", "w") as o:
        for k, v in sorted(examples.items()):
            o.write(f"## {k} ({len(v)})\n")
            for e in v: o.write("  " + e + "\n")
