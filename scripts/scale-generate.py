#!/usr/bin/env python3
"""Writes a synthetic archive of one person's year for scripts/scale-run.sh (deterministic for a seed).

Three devices see the same life:
  phone  - Overland: one file per day of JSON-lines POST bodies (500 locations each), 1 Hz while moving, a point
           every 300 s while still, every day;
  work   - OwnTracks Recorder .rec (rec/me/work/YYYY-MM.rec), 1 Hz while moving, 300 s still, weekdays only;
  watch  - GPX (one file per outing), 1 Hz, weekend outings only.
Days: home -> work (car or bike) -> sometimes a shop -> home on weekdays; a 10-40 km outing on weekends.
Usage: scale-generate.py OUT_DIR DAYS [SEED]
"""
import math, os, random, sys

out, days = sys.argv[1], int(sys.argv[2])
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
OFFSET_S = 3600  # the person lives at UTC+01:00
EPOCH_DAY0 = 19723  # 2024-01-01 (days since 1970-01-01)
HOME = (48.137, 11.575)
WORK = (48.170, 11.610)
SHOPS = [(48.120 + 0.01 * k, 11.540 + 0.013 * k) for k in range(5)]
M_PER_DEG = 111_195.0

def offset(p, dn, de):
    return (p[0] + dn / M_PER_DEG, p[1] + de / (M_PER_DEG * math.cos(math.radians(p[0]))))

def dist(a, b):
    dn = (b[0] - a[0]) * M_PER_DEG
    de = (b[1] - a[1]) * M_PER_DEG * math.cos(math.radians(a[0]))
    return math.hypot(dn, de)

def still(t0, t1, p, pts):
    t = t0
    while t < t1:
        q = offset(p, rng.gauss(0, 8), rng.gauss(0, 8))
        pts.append((t, q[0], q[1], 0.0))
        t += 300

def travel(t0, a, b, speed, pts):
    """1 Hz along a bent line a -> b at about `speed` m/s; returns the arrival time."""
    mid = offset(((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), rng.uniform(-800, 800), rng.uniform(-800, 800))
    legs = [(a, mid), (mid, b)]
    t = t0
    for (p, q) in legs:
        d = dist(p, q)
        n = max(1, int(d / speed))
        for i in range(n):
            f = i / n
            x = (p[0] + (q[0] - p[0]) * f, p[1] + (q[1] - p[1]) * f)
            x = offset(x, rng.gauss(0, 3), rng.gauss(0, 3))
            pts.append((t, x[0], x[1], speed * rng.uniform(0.8, 1.2)))
            t += 1
    return t

def day_points(day_index):
    weekday = (EPOCH_DAY0 + day_index + 3) % 7  # 0 = Monday
    base = (EPOCH_DAY0 + day_index) * 86400 - OFFSET_S  # local midnight in UTC seconds
    pts = []
    if weekday < 5:
        leave = base + 7 * 3600 + rng.randint(0, 5400)
        still(base, leave, HOME, pts)
        speed = rng.choice([12.0, 5.0])
        arrive = travel(leave, HOME, WORK, speed, pts)
        back = base + 16 * 3600 + rng.randint(0, 7200)
        still(arrive, back, WORK, pts)
        if rng.random() < 0.4:
            shop = rng.choice(SHOPS)
            t = travel(back, WORK, shop, speed, pts)
            still(t, t + 1800, shop, pts)
            t = travel(t + 1800, shop, HOME, speed, pts)
        else:
            t = travel(back, WORK, HOME, speed, pts)
        still(t, base + 86400, HOME, pts)
        return weekday, pts, None
    leave = base + 9 * 3600 + rng.randint(0, 7200)
    still(base, leave, HOME, pts)
    angle = rng.uniform(0, 2 * math.pi)
    km = rng.uniform(10, 40)
    target = offset(HOME, math.cos(angle) * km * 1000, math.sin(angle) * km * 1000)
    speed = rng.choice([15.0, 6.0])
    start = len(pts)
    t = travel(leave, HOME, target, speed, pts)
    still(t, t + 7200, target, pts)
    t = travel(t + 7200, target, HOME, speed, pts)
    outing = pts[start:]
    still(t, base + 86400, HOME, pts)
    return weekday, pts, outing

def iso(t, off):
    s = t + off
    d, r = divmod(s, 86400)
    # civil from days (Howard Hinnant)
    z = d + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    dd = doy - (153 * mp + 2) // 5 + 1
    mm = mp + 3 if mp < 10 else mp - 9
    y += mm <= 2
    zone = "Z" if off == 0 else "%s%02d:%02d" % ("+" if off > 0 else "-", abs(off) // 3600, abs(off) % 3600 // 60)
    return "%04d-%02d-%02dT%02d:%02d:%02d%s" % (y, mm, dd, r // 3600, r % 3600 // 60, r % 60, zone)

os.makedirs(f"{out}/overland", exist_ok=True)
os.makedirs(f"{out}/rec/me/work", exist_ok=True)
os.makedirs(f"{out}/gpx", exist_ok=True)
rec_files = {}
counts = {"phone": 0, "work": 0, "watch": 0}
for k in range(days):
    weekday, pts, outing = day_points(k)
    date = iso((EPOCH_DAY0 + k) * 86400, 0)[:10]
    with open(f"{out}/overland/{date}.json", "w") as f:
        for i in range(0, len(pts), 500):
            feats = ",".join(
                '{"type":"Feature","geometry":{"type":"Point","coordinates":[%.6f,%.6f]},"properties":{"timestamp":"%s",'
                '"device_id":"phone","speed":%.1f,"horizontal_accuracy":%d,"altitude":520,"motion":["%s"],"battery_level":0.8}}'
                % (lon, lat, iso(t, OFFSET_S), v, 5 if v > 0 else 20, "driving" if v > 8 else ("walking" if v > 0 else "stationary"))
                for (t, lat, lon, v) in pts[i:i + 500])
            f.write('{"locations":[' + feats + ']}\n')
    counts["phone"] += len(pts)
    if weekday < 5:
        month = date[:7]
        if month not in rec_files:
            rec_files[month] = open(f"{out}/rec/me/work/{month}.rec", "w")
        rf = rec_files[month]
        for (t, lat, lon, v) in pts:
            rf.write('%s\towntracks/me/work\t{"_type":"location","tid":"wk","tst":%d,"lat":%.6f,"lon":%.6f,"acc":%d,"vel":%d,"batt":80,"conn":"m"}\n'
                     % (iso(t, 0), t, lat + 0.00001, lon + 0.00001, 5 if v > 0 else 20, int(v * 3.6)))
        counts["work"] += len(pts)
    if outing:
        with open(f"{out}/gpx/{date}.gpx", "w") as g:
            g.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="scale-generate" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>outing</name><trkseg>\n')
            for (t, lat, lon, v) in outing:
                g.write('<trkpt lat="%.6f" lon="%.6f"><ele>520</ele><time>%s</time></trkpt>\n' % (lat - 0.00001, lon, iso(t, 0)))
            g.write('</trkseg></trk></gpx>\n')
        counts["watch"] += len(outing)
for f in rec_files.values():
    f.close()
print("generated %d days: phone %d, work %d, watch %d points (%d in all)" % (days, counts["phone"], counts["work"], counts["watch"], sum(counts.values())))
