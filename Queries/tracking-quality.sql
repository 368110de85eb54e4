-- Tracking quality per day: points, flagged points, recording gaps, longest gap, share of the day covered.
--
-- A gap is more than 5 minutes between two consecutive points of a device (the same rule as the exports' line
-- breaks); it counts on the day of the point that ends it. `covered_share` is the time between consecutive points
-- that are at most 5 minutes apart, as a share of 24 hours (capped at 1). `flagged` counts points the clean pass
-- flagged (point_flags.flags != 0). After each device's days comes a row with date `total` for the whole range;
-- only it has `rejected`: the records its imports rejected, which carry no time and so cannot be put on a day (a file
-- of several devices counts its rejects for each device it gave points to, as devices-overview does).
-- Parameters: :from, :to (local days YYYY-MM-DD, inclusive) and :device (a device name); NULL means no limit.
-- Points are read from `points_hot` in key order (key = device_id << 42 | time_ms, docs/SCHEMA.md), which is device
-- and time order, so the gaps need no sort; a gap is only measured between two points of the same device.
WITH pts AS (
    SELECT p.key >> 42                                                                AS device_id,
           tripline_local_date(p.key & 4398046511103, p.utc_offset_s, p.lat, p.lon)   AS date,
           coalesce(f.flags, 0)                                                       AS flags,
           CASE WHEN (lag(p.key) OVER w) >> 42 = p.key >> 42
                THEN p.key - lag(p.key) OVER w END                                    AS dt_ms
    FROM points_hot p
    LEFT JOIN point_flags f ON f.device_id = p.key >> 42 AND f.time_ms = p.key & 4398046511103
    WHERE (:device IS NULL OR p.key BETWEEN (SELECT id FROM devices WHERE name = :device) << 42
                                        AND ((SELECT id FROM devices WHERE name = :device) << 42) | 4398046511103)
    WINDOW w AS (ORDER BY p.key)
),
daily AS (
    SELECT device_id,
           date,
           count(*)                                                        AS points,
           sum(flags != 0)                                                 AS flagged,
           sum(coalesce(dt_ms, 0) > 300000)                                AS gaps,
           max(coalesce(dt_ms, 0))                                         AS longest_ms,
           sum(CASE WHEN dt_ms <= 300000 THEN dt_ms ELSE 0 END)            AS covered_ms
    FROM pts
    WHERE (:from IS NULL OR date >= :from)
      AND (:to IS NULL OR date <= :to)
    GROUP BY device_id, date
),
report AS (
    SELECT d.date                                              AS date,
           dev.name                                            AS device,
           d.points                                            AS points,
           d.flagged                                           AS flagged,
           d.gaps                                              AS gaps,
           round(d.longest_ms / 60000.0, 1)                    AS longest_gap_min,
           round(min(1.0, d.covered_ms / 86400000.0), 3)       AS covered_share,
           NULL                                                AS rejected,
           0                                                   AS is_total
    FROM daily d JOIN devices dev ON dev.id = d.device_id
    UNION ALL
    SELECT 'total',
           dev.name,
           sum(d.points),
           sum(d.flagged),
           sum(d.gaps),
           round(max(d.longest_ms) / 60000.0, 1),
           round(min(1.0, sum(d.covered_ms) / (86400000.0 * count(*))), 3),
           (SELECT coalesce(sum(r.records), 0) FROM rejects r JOIN imports i ON i.id = r.import_id
             WHERE i.device_id = dev.id OR (i.device_id IS NULL AND EXISTS (
              SELECT 1 FROM points_hot p WHERE p.key BETWEEN dev.id << 42 AND (dev.id << 42) | 4398046511103
                AND p.import_id = i.id))),
           1
    FROM daily d JOIN devices dev ON dev.id = d.device_id
    GROUP BY dev.id
)
SELECT date, device, points, flagged, gaps, longest_gap_min, covered_share, rejected
FROM report
ORDER BY device, is_total, date;
