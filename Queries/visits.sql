-- Visits: one row per rebuilt visit, with its place, local arrival and departure, and how long it lasted.
--
-- Reads `visits` and `places`, written by `tripline rebuild`. `source`: `points` (rebuilt from the fixes) or `app`
-- (Google's own timeline where the fixes made nothing). Times are local (the visit's own UTC offset).
-- A visit belongs to the local day it starts on.
-- Parameters: :from, :to (local days YYYY-MM-DD, inclusive) and :device (a device name); NULL means no limit.
SELECT v.id                                                   AS visit,
       dev.name                                               AS device,
       p.name                                                 AS place,
       tripline_local_time(v.start_ms, v.start_utc_offset_s)  AS arrival,
       tripline_local_time(v.end_ms, v.end_utc_offset_s)      AS departure,
       round((v.end_ms - v.start_ms) / 3600000.0, 2)          AS hours,
       v.points                                               AS points,
       v.source                                               AS source
FROM visits v
JOIN devices dev ON dev.id = v.device_id
LEFT JOIN places p ON p.id = v.place_id
WHERE (:from IS NULL OR tripline_local_date(v.start_ms, v.start_utc_offset_s) >= :from)
  AND (:to IS NULL OR tripline_local_date(v.start_ms, v.start_utc_offset_s) <= :to)
  AND (:device IS NULL OR dev.name = :device)
ORDER BY dev.name, v.start_ms;
