#!/usr/bin/env python3
# Usage: python3 -m venv /tmp/tienv && /tmp/tienv/bin/pip install trackintel==1.4.2 && /tmp/tienv/bin/python scripts/trackintel-compare.py 115 078
# (GeoLife user folders under ../shared/corpus/geolife; compare with `tripline import` of the same folders, then
# `/usr/bin/time tripline rebuild --full`). Figures in docs/PERFORMANCE.md.
# Times trackintel 1.4.2's default pipeline (positionfixes -> staypoints -> triplegs -> trips, mode by speed) on the
# GeoLife users' .plt fixes, for comparison with `tripline rebuild` on the same points.
import sys, time, glob, os
import pandas as pd, geopandas as gpd
import trackintel as ti
users = sys.argv[1:]
rows = []
for u in users:
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "corpus", "geolife")
    for f in sorted(glob.glob(os.path.join(corpus, u, "Trajectory", "*.plt"))):
        with open(f) as fh:
            for line in fh.readlines()[6:]:
                p = line.strip().split(",")
                if len(p) >= 7:
                    rows.append((u, float(p[0]), float(p[1]), p[5] + " " + p[6]))
df = pd.DataFrame(rows, columns=["user_id", "lat", "lon", "t"])
df["tracked_at"] = pd.to_datetime(df["t"]).dt.tz_localize("UTC")
df["user_id"] = df["user_id"].astype(int)
gdf = gpd.GeoDataFrame(df[["user_id", "tracked_at"]], geometry=gpd.points_from_xy(df.lon, df.lat), crs="EPSG:4326")
pfs = ti.Positionfixes(gdf)
t0 = time.process_time(); w0 = time.time()
pfs, sp = pfs.generate_staypoints()
sp = sp.create_activity_flag()
pfs, tpls = pfs.generate_triplegs(sp)
tpls = tpls.predict_transport_mode()
sp, tpls, trips = ti.preprocessing.generate_trips(sp, tpls)
cpu = time.process_time() - t0; wall = time.time() - w0
print(f"trackintel {ti.__version__}: {len(pfs)} fixes, {len(sp)} staypoints, {len(tpls)} triplegs, {len(trips)} trips; "
      f"{cpu:.2f} s CPU, {wall:.2f} s wall = {len(pfs)/cpu:,.0f} fixes/s CPU")
