-- Top places by dwell time: visits, total and average time spent, first and last visit day, longest first.
--
-- Counts the visits that start on a local day in the range (all visits without :from/:to), 25 places at most.
-- Parameters: :from, :to (local days YYYY-MM-DD, inclusive) and :device (a device name); NULL means no limit.
SELECT p.id                                                         AS place_id,
       p.name                                                       AS place,
       dev.name                                                     AS device,
       count(*)                                                     AS visits,
       round(sum(v.end_ms - v.start_ms) / 3600000.0, 2)             AS dwell_h,
       round(avg(v.end_ms - v.start_ms) / 60000.0, 1)               AS avg_visit_min,
       min(tripline_local_date(v.start_ms, v.start_utc_offset_s))   AS first_visit,
       max(tripline_local_date(v.start_ms, v.start_utc_offset_s))   AS last_visit
FROM visits v
JOIN places p ON p.id = v.place_id
JOIN devices dev ON dev.id = v.device_id
WHERE (:from IS NULL OR tripline_local_date(v.start_ms, v.start_utc_offset_s) >= :from)
  AND (:to IS NULL OR tripline_local_date(v.start_ms, v.start_utc_offset_s) <= :to)
  AND (:device IS NULL OR dev.name = :device)
GROUP BY p.id
ORDER BY sum(v.end_ms - v.start_ms) DESC, p.id
LIMIT 25;
