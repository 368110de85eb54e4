-- Travel by mode: legs, trips, distance, time and average speed per mode, month and device.
--
-- From the trips' legs (each leg has one mode); the month is the local month the trip starts in. `trips` counts
-- the trips with at least one leg of that mode, so one trip can count under several modes.
-- Parameters: :from, :to (local days YYYY-MM-DD, inclusive, on the trip's start) and :device; NULL means no limit.
SELECT substr(tripline_local_date(t.start_ms, t.start_utc_offset_s), 1, 7)        AS month,
       dev.name                                                                  AS device,
       l.mode                                                                    AS mode,
       count(*)                                                                  AS legs,
       count(DISTINCT l.trip_id)                                                 AS trips,
       round(sum(l.distance_m) / 1000.0, 2)                                      AS distance_km,
       round(sum(l.duration_s) / 3600.0, 2)                                      AS hours,
       round(sum(l.distance_m) / nullif(sum(l.duration_s), 0) * 3.6, 1)          AS avg_kmh
FROM legs l
JOIN trips t ON t.id = l.trip_id
JOIN devices dev ON dev.id = t.device_id
WHERE (:from IS NULL OR tripline_local_date(t.start_ms, t.start_utc_offset_s) >= :from)
  AND (:to IS NULL OR tripline_local_date(t.start_ms, t.start_utc_offset_s) <= :to)
  AND (:device IS NULL OR dev.name = :device)
GROUP BY 1, 2, 3
ORDER BY 1, 2, sum(l.distance_m) DESC, 3;
