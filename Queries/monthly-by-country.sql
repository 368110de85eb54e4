-- Monthly per country: per local month, device and country, the days and nights there, visits and hours.
--
-- Days and nights as in `countries-visited` (a visit covers each local day from its start to just before its end;
-- the night of a day counts for the country of the device's last visit that day when that visit lasts past local
-- midnight), counted in the month of the covered day. `visits` and `hours` are the visits starting that month.
-- Visits at sea (no country) are left out.
-- Parameters: :from, :to (local days YYYY-MM-DD, inclusive, on the covered day) and :device; NULL means no limit.
WITH RECURSIVE
vis AS (
  SELECT v.id, dev.name AS device, v.start_ms, v.end_ms, v.country_code, v.country,
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
         c.day = vis.first_day AS starts, vis.end_ms - vis.start_ms AS duration_ms,
         row_number() OVER (PARTITION BY vis.device, c.day ORDER BY vis.start_ms DESC, vis.id DESC) AS latest
  FROM covered c
  JOIN vis ON vis.id = c.id
)
SELECT substr(day, 1, 7)                                          AS month,
       device                                                     AS device,
       country_code                                               AS country_code,
       country                                                    AS country,
       count(DISTINCT day)                                        AS days,
       sum(latest = 1 AND past_midnight)                          AS nights,
       sum(starts)                                                AS visits,
       round(sum(CASE WHEN starts THEN duration_ms END) / 3600000.0, 1) AS hours
FROM ranked
WHERE country IS NOT NULL
  AND (:from IS NULL OR day >= :from)
  AND (:to IS NULL OR day <= :to)
GROUP BY 1, device, country_code, country
ORDER BY 1, device, days DESC, country;
