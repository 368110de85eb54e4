-- Trips: one row per rebuilt trip, with local start and end, distance, moving time, mode and legs.
--
-- Reads `trips` and `places`, written by `tripline rebuild`. `source`: `points` (rebuilt from the fixes) or `app`
-- (Google's own timeline where the fixes made nothing). Times are local (the trip's own UTC offset).
-- A trip belongs to the local day it starts on.
-- Parameters: :from, :to (local days YYYY-MM-DD, inclusive) and :device (a device name); NULL means no limit.
SELECT t.id                                                   AS trip,
       dev.name                                               AS device,
       tripline_local_time(t.start_ms, t.start_utc_offset_s)  AS start,
       tripline_local_time(t.end_ms, t.end_utc_offset_s)      AS end,
       round(t.distance_m / 1000.0, 2)                        AS distance_km,
       round(t.moving_s / 60.0, 1)                            AS moving_min,
       t.mode                                                 AS mode,
       (SELECT group_concat(l.mode, '→') FROM (SELECT mode FROM legs WHERE trip_id = t.id ORDER BY leg) l) AS legs,
       pf.name                                                AS from_place,
       pt.name                                                AS to_place,
       t.source                                               AS source
FROM trips t
JOIN devices dev ON dev.id = t.device_id
LEFT JOIN places pf ON pf.id = t.from_place_id
LEFT JOIN places pt ON pt.id = t.to_place_id
WHERE (:from IS NULL OR tripline_local_date(t.start_ms, t.start_utc_offset_s) >= :from)
  AND (:to IS NULL OR tripline_local_date(t.start_ms, t.start_utc_offset_s) <= :to)
  AND (:device IS NULL OR dev.name = :device)
ORDER BY dev.name, t.start_ms;
