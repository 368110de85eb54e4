-- Tracking quality per day: points, flagged points, recording gaps, longest gap, share of the day covered.
--
-- A gap is more than 5 minutes between two consecutive points of a device (the same rule as the exports' line
-- breaks); it counts on the day of the point that ends it. `covered_share` is the time between consecutive points
-- that are at most 5 minutes apart, as a share of 24 hours (capped at 1). `flagged` counts points the clean pass
-- flagged (point_flags.flags != 0). After each device's days comes a row with date `total` for the whole range;
-- only it has `rejected`: the records its imports rejected, which carry no time and so cannot be put on a day.
-- Parameters: :from, :to (local days YYYY-MM-DD, inclusive) and :device (a device name); NULL means no limit.
WITH pts AS (
    SELECT p.device_id                                                                AS device_id,
           tripline_local_date(p.time_ms, p.utc_offset_s)                             AS date,
           coalesce(f.flags, 0)                                                       AS flags,
           p.time_ms - lag(p.time_ms) OVER (PARTITION BY p.device_id ORDER BY p.time_ms) AS dt_ms
    FROM points p
    LEFT JOIN point_flags f ON f.device_id = p.device_id AND f.time_ms = p.time_ms
    WHERE (:device IS NULL OR p.device_id = (SELECT id FROM devices WHERE name = :device))
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
           (SELECT count(*) FROM rejects r JOIN imports i ON i.id = r.import_id WHERE i.device_id = dev.id),
           1
    FROM daily d JOIN devices dev ON dev.id = d.device_id
    GROUP BY dev.id
)
SELECT date, device, points, flagged, gaps, longest_gap_min, covered_share, rejected
FROM report
ORDER BY device, is_total, date;
