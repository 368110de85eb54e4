-- Gaps: spans of each device's history that no visit and no trip covers, an hour or longer.
--
-- Reads `visits` and `trips`, written by `tripline rebuild`. Nothing recorded says where the person was in a gap: the
-- phone was off or silent, or the rebuild refused to call a silence a visit (a silence of more than a day that no app
-- record covers, docs/PASSES.md "Gaps"). The same rule as the gaps in `tripline report day` and the map's timeline
-- (`DayTimeline.gaps`). `start` is the end of the record before (local, at its offset), `end` the start of the record
-- after; `before` and `after` name them (the place, or `trip` with its mode); `km` is the straight line between the
-- positions on either side, `points` the fixes stored inside the gap (fixes the rebuild made nothing of).
-- A gap belongs to the local day it starts on.
-- Parameters: :from, :to (local days YYYY-MM-DD, inclusive) and :device (a device name); NULL means no limit.
WITH records AS (
    SELECT 'v' || v.id AS rid, v.device_id, v.start_ms, v.end_ms, v.start_utc_offset_s AS start_off, v.end_utc_offset_s AS end_off,
           coalesce(p.name, 'visit') AS what, v.lat AS start_lat, v.lon AS start_lon, v.lat AS end_lat, v.lon AS end_lon
    FROM visits v LEFT JOIN places p ON p.id = v.place_id
    UNION ALL
    SELECT 't' || t.id, t.device_id, t.start_ms, t.end_ms, t.start_utc_offset_s, t.end_utc_offset_s,
           'trip (' || t.mode || ')', t.start_lat, t.start_lon, t.end_lat, t.end_lon
    FROM trips t
),
reach AS (
    -- Each record with the latest end among the records of its device before it (in start order): the edge of what
    -- was known when it began.
    SELECT r.*,
           max(end_ms) OVER (PARTITION BY device_id ORDER BY start_ms, end_ms
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach_ms
    FROM records r
),
gaps AS (
    SELECT n.device_id, n.reach_ms AS start_ms, n.start_ms AS end_ms, n.start_off AS end_off, n.what AS after,
           n.start_lat AS to_lat, n.start_lon AS to_lon,
           -- The record whose end is that edge (the first in start order when several end together).
           (SELECT b.rid FROM records b WHERE b.device_id = n.device_id AND b.end_ms = n.reach_ms
            ORDER BY b.start_ms LIMIT 1) AS before_row
    FROM reach n
    WHERE n.start_ms - n.reach_ms >= 3600000
)
SELECT dev.name                                                          AS device,
       tripline_local_time(g.start_ms, b.end_off)                        AS start,
       tripline_local_time(g.end_ms, g.end_off)                          AS "end",
       round((g.end_ms - g.start_ms) / 3600000.0, 2)                     AS hours,
       b.what                                                            AS before,
       g.after                                                           AS after,
       round(6371.0088 * 2 * asin(min(1, sqrt(
           power(sin(radians(g.to_lat - b.end_lat) / 2), 2)
           + cos(radians(b.end_lat)) * cos(radians(g.to_lat)) * power(sin(radians(g.to_lon - b.end_lon) / 2), 2)))), 1) AS km,
       (SELECT count(*) FROM points_hot p
        WHERE p.key > (g.device_id << 42) | g.start_ms AND p.key < (g.device_id << 42) | g.end_ms)  AS points
FROM gaps g
JOIN records b ON b.rid = g.before_row
JOIN devices dev ON dev.id = g.device_id
WHERE (:from IS NULL OR tripline_local_date(g.start_ms, b.end_off) >= :from)
  AND (:to IS NULL OR tripline_local_date(g.start_ms, b.end_off) <= :to)
  AND (:device IS NULL OR dev.name = :device)
ORDER BY dev.name, g.start_ms;
