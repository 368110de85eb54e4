-- Countries visited: per device and country, the first and last local day there, days, nights and visits.
--
-- From `visits` and their `country_code`/`country` (the places pass names them from the offline geography; visits
-- at sea have none and are left out). A visit covers every local day from its start to just before its end; `days`
-- counts the distinct days a visit in the country covers. The night of a day belongs to the last visit covering
-- that day (the device's latest-starting one), and counts when that visit lasts past local midnight: where the
-- device slept. A night on a train or plane is nobody's night.
-- Parameters: :from, :to (local days YYYY-MM-DD, inclusive, on the covered day) and :device; NULL means no limit.
WITH RECURSIVE
vis AS (
  SELECT v.id, dev.name AS device, v.start_ms, v.country_code, v.country,
         tripline_local_date(v.start_ms, v.start_utc_offset_s) AS first_day,
         tripline_local_date(max(v.start_ms, v.end_ms - 1), v.end_utc_offset_s) AS last_day
  FROM visits v
  JOIN devices dev ON dev.id = v.device_id
  WHERE (:device IS NULL OR dev.name = :device)
),
covered(id, day, last_day) AS (
  SELECT id, first_day, last_day FROM vis
  UNION ALL
  SELECT id, date(day, '+1 day'), last_day FROM covered WHERE day < last_day
),
ranked AS (
  SELECT vis.id, vis.device, vis.country_code, vis.country, c.day, c.day < c.last_day AS past_midnight,
         row_number() OVER (PARTITION BY vis.device, c.day ORDER BY vis.start_ms DESC, vis.id DESC) AS latest
  FROM covered c
  JOIN vis ON vis.id = c.id
)
SELECT device                                           AS device,
       country_code                                     AS country_code,
       country                                          AS country,
       min(day)                                         AS first_day,
       max(day)                                         AS last_day,
       count(DISTINCT day)                              AS days,
       sum(latest = 1 AND past_midnight)                AS nights,
       count(DISTINCT id)                               AS visits
FROM ranked
WHERE country IS NOT NULL
  AND (:from IS NULL OR day >= :from)
  AND (:to IS NULL OR day <= :to)
GROUP BY device, country_code, country
ORDER BY device, days DESC, min(day), country;
