-- Countries visited: per device and country, the first and last local day there, days, nights and visits.
--
-- From `visits` and their `country_code`/`country` (the places pass names them from the offline geography; visits
-- at sea have none and are left out). A visit covers every local day from its start to just before its end; `days`
-- counts the distinct days a visit in the country covers. The night of a day belongs to the last visit covering
-- that day (the device's latest-starting one), and counts when that visit lasts past local midnight: where the
-- device slept; when no visit covers that midnight (home by the last tram at 00:10), the night is the visit's
-- reached by a trip after it, before 03:00, that lasts past 05:00 (counted on that visit's first day). A night on a
-- train or plane is nobody's night. Days and nights come from the `visit_days` view
-- (docs/EXPORTS.md), shared with `cities-visited`, `countries-visited` and `monthly-by-country`.
-- Parameters: :from, :to (local days YYYY-MM-DD, inclusive, on the covered day) and :device; NULL means no limit.
SELECT device                                           AS device,
       country_code                                     AS country_code,
       country                                          AS country,
       min(day)                                         AS first_day,
       max(day)                                         AS last_day,
       count(DISTINCT day)                              AS days,
       sum(night)                                       AS nights,
       count(DISTINCT visit_id)                         AS visits
FROM visit_days
WHERE country IS NOT NULL
  AND (:device IS NULL OR device = :device)
  AND (:from IS NULL OR day >= :from)
  AND (:to IS NULL OR day <= :to)
GROUP BY device, country_code, country
ORDER BY device, days DESC, min(day), country;
