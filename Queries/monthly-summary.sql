-- Monthly summary: days with data, distance, moving time, trips, visits and distinct places per month and device.
--
-- Months are local (the `days` table's dates); distinct places count the places of visits that start in the month.
-- Parameters: :from, :to (local days YYYY-MM-DD, inclusive) and :device (a device name); NULL means no limit.
WITH month_days AS (
    SELECT substr(d.date, 1, 7)   AS month,
           d.device_id            AS device_id,
           count(*)               AS days,
           sum(d.distance_m)      AS distance_m,
           sum(d.moving_s)        AS moving_s,
           sum(d.trips)           AS trips,
           sum(d.visits)          AS visits
    FROM days d
    WHERE (:from IS NULL OR d.date >= :from)
      AND (:to IS NULL OR d.date <= :to)
    GROUP BY 1, 2
),
month_places AS (
    SELECT substr(tripline_local_date(v.start_ms, v.start_utc_offset_s), 1, 7) AS month,
           v.device_id                                                        AS device_id,
           count(DISTINCT v.place_id)                                         AS places
    FROM visits v
    WHERE v.place_id IS NOT NULL
      AND (:from IS NULL OR tripline_local_date(v.start_ms, v.start_utc_offset_s) >= :from)
      AND (:to IS NULL OR tripline_local_date(v.start_ms, v.start_utc_offset_s) <= :to)
    GROUP BY 1, 2
)
SELECT m.month                              AS month,
       dev.name                             AS device,
       m.days                               AS days,
       round(m.distance_m / 1000.0, 1)      AS distance_km,
       round(m.moving_s / 3600.0, 1)        AS moving_h,
       m.trips                              AS trips,
       m.visits                             AS visits,
       coalesce(p.places, 0)                AS distinct_places
FROM month_days m
JOIN devices dev ON dev.id = m.device_id
LEFT JOIN month_places p ON p.month = m.month AND p.device_id = m.device_id
WHERE (:device IS NULL OR dev.name = :device)
ORDER BY m.month, dev.name;
