-- Monthly per country: per local month, device and country, the days and nights there, visits and hours.
--
-- Days and nights as in `countries-visited` (a visit covers each local day from its start to just before its end;
-- the night of a day counts for the country of the device's last visit that day when that visit lasts past local
-- midnight, or, when none covers that midnight, of the visit reached after it before 03:00 that lasts past 05:00,
-- counted on that visit's first day), counted in the month of the covered day. `visits` and `hours` are the visits starting that month.
-- Visits at sea (no country) are left out.
-- Parameters: :from, :to (local days YYYY-MM-DD, inclusive, on the covered day) and :device; NULL means no limit.
SELECT substr(day, 1, 7)                                          AS month,
       device                                                     AS device,
       country_code                                               AS country_code,
       country                                                    AS country,
       count(DISTINCT day)                                        AS days,
       sum(night)                                                 AS nights,
       sum(first)                                                 AS visits,
       round(sum(CASE WHEN first THEN duration_ms END) / 3600000.0, 1) AS hours
FROM visit_days
WHERE country IS NOT NULL
  AND (:device IS NULL OR device = :device)
  AND (:from IS NULL OR day >= :from)
  AND (:to IS NULL OR day <= :to)
GROUP BY 1, device, country_code, country
ORDER BY 1, device, days DESC, country;
