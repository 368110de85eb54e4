-- Monthly per country: per local month, device and country, the days and nights there, visits and hours.
--
-- Days and nights as in `countries-visited` (a visit covers each local day from its start to just before its end;
-- the night of a day counts for the country of the device's last visit that day when that visit lasts past local
-- midnight), counted in the month of the covered day. `visits` and `hours` are the visits starting that month.
-- Visits at sea (no country) are left out.
-- Parameters: :from, :to (local days YYYY-MM-DD, inclusive, on the covered day) and :device; NULL means no limit.
SELECT substr(d.day, 1, 7)                                        AS month,
       dev.name                                                   AS device,
       v.country_code                                             AS country_code,
       v.country                                                  AS country,
       count(DISTINCT d.day)                                      AS days,
       sum(d.night)                                               AS nights,
       sum(d.first)                                               AS visits,
       round(sum(CASE WHEN d.first THEN v.end_ms - v.start_ms END) / 3600000.0, 1) AS hours
FROM visit_days d
JOIN visits v ON v.id = d.visit_id
JOIN devices dev ON dev.id = d.device_id
WHERE v.country IS NOT NULL
  AND (:device IS NULL OR dev.name = :device)
  AND (:from IS NULL OR d.day >= :from)
  AND (:to IS NULL OR d.day <= :to)
GROUP BY 1, dev.name, v.country_code, v.country
ORDER BY 1, dev.name, days DESC, v.country;
