-- Agreement with the app's own trip records: how many app trips were found again and how closely they match.
--
-- Reads the app's trip records (`app_events` of kind 'trip', and any event the rebuild compared) and the rebuild's
-- comparison in `app_trip_matches`. Per local month (of the app trip's start) and device: app trips, how many a
-- rebuilt trip matches, the share with the same mode, the mean overlap and the mean absolute differences.
-- The app's mode names (Overland: hike, bicycle, ebike, scooter, taxi, tram, metro, …) are mapped onto Tripline's
-- (walk, run, cycle, car, bus, train, plane, boat) the way the rebuild maps them, before they are compared.
-- The same class: foot (walk, run), bicycle, or motorised (car, bus, train, plane, boat, and `vehicle`, the rebuild's
-- word for a motorised leg whose fixes cannot tell car from bus or train); `unknown` is of no class.
-- Parameters: :from, :to (local days YYYY-MM-DD, inclusive) and :device (a device name); NULL means no limit.
WITH app AS (
    SELECT e.id                                                                  AS event_id,
           e.device_id                                                           AS device_id,
           tripline_local_date(coalesce(e.start_ms, e.time_ms), e.utc_offset_s, e.lat, e.lon) AS date,
           m.trip_id                                                             AS trip_id,
           m.overlap                                                             AS overlap,
           m.start_diff_s                                                        AS start_diff_s,
           m.end_diff_s                                                          AS end_diff_s,
           m.distance_diff_m                                                     AS distance_diff_m,
           CASE lower(m.app_mode)
               WHEN 'hike' THEN 'walk'
               WHEN 'bicycle' THEN 'cycle' WHEN 'ebike' THEN 'cycle' WHEN 'scooter' THEN 'cycle'
               WHEN 'taxi' THEN 'car'
               WHEN 'tram' THEN 'train' WHEN 'metro' THEN 'train' WHEN 'monorail' THEN 'train'
               WHEN 'funicular' THEN 'train'
               ELSE lower(m.app_mode)
           END                                                                   AS app_mode,
           m.trip_mode                                                           AS trip_mode,
           CASE WHEN lower(m.app_mode) IN ('walk', 'hike', 'run') THEN 'foot'
                WHEN lower(m.app_mode) IN ('cycle', 'bicycle', 'ebike', 'scooter') THEN 'bicycle'
                WHEN lower(m.app_mode) IN ('car', 'taxi', 'bus', 'train', 'tram', 'metro', 'monorail', 'funicular',
                                           'plane', 'boat', 'vehicle') THEN 'motorised'
           END                                                                   AS app_class,
           CASE WHEN lower(m.trip_mode) IN ('walk', 'run') THEN 'foot'
                WHEN lower(m.trip_mode) = 'cycle' THEN 'bicycle'
                WHEN lower(m.trip_mode) IN ('car', 'bus', 'train', 'plane', 'boat', 'vehicle') THEN 'motorised'
           END                                                                   AS trip_class
    FROM app_events e
    LEFT JOIN app_trip_matches m ON m.event_id = e.id
    WHERE e.kind = 'trip' OR m.event_id IS NOT NULL
)
SELECT substr(a.date, 1, 7)                                                             AS month,
       dev.name                                                                         AS device,
       count(*)                                                                         AS app_trips,
       count(a.trip_id)                                                                 AS matched,
       round(100.0 * count(a.trip_id) / count(*), 1)                                    AS matched_pct,
       round(100.0 * sum(a.trip_id IS NOT NULL AND a.app_mode = lower(a.trip_mode))
             / nullif(count(a.trip_id), 0), 1)                                          AS same_mode_pct,
       round(100.0 * sum(a.trip_id IS NOT NULL AND a.app_class = a.trip_class)
             / nullif(count(a.trip_id), 0), 1)                                          AS same_class_pct,
       round(avg(CASE WHEN a.trip_id IS NOT NULL THEN a.overlap END), 3)                AS mean_overlap,
       round(avg(CASE WHEN a.trip_id IS NOT NULL THEN abs(a.start_diff_s) END), 1)      AS mean_start_diff_s,
       round(avg(CASE WHEN a.trip_id IS NOT NULL THEN abs(a.end_diff_s) END), 1)        AS mean_end_diff_s,
       round(avg(CASE WHEN a.trip_id IS NOT NULL THEN abs(a.distance_diff_m) END), 1)   AS mean_distance_diff_m
FROM app a
LEFT JOIN devices dev ON dev.id = a.device_id
WHERE (:from IS NULL OR a.date >= :from)
  AND (:to IS NULL OR a.date <= :to)
  AND (:device IS NULL OR dev.name = :device)
GROUP BY 1, 2
ORDER BY 1, 2;
