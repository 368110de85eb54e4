-- A year in review: per local year and device, distance by mode, days tracked and away from home, new places,
-- countries and cities, and the longest trip.
--
-- Distance by mode sums the legs of the trips starting in the year (`cycle_km` takes `cycle` and `bike`;
-- `vehicle_km` is motorised travel the fixes could not tell car from bus or train; modes without a column go to
-- `other_km`). A day is tracked when a visit covers it (as in `countries-visited`) or a
-- trip starts on it. Home is the device's place named `Home` (the places pass's, the app's or the user's name), else
-- the one with the most time spent (`places.total_dwell_s`); a tracked day
-- is away from home when no visit to it covers the day (NULL when the device has no places). A place is new in the
-- year of its first visit. The longest trip is the one with the greatest distance, with its local start day and
-- its from and to places.
-- Parameters: :from, :to (local days YYYY-MM-DD, inclusive: covered days, trips' start days, first visits) and
-- :device; NULL means no limit.
WITH RECURSIVE
dev AS (
  SELECT d.id, d.name,
         (SELECT p.id FROM places p WHERE p.device_id = d.id ORDER BY p.name = 'Home' DESC, p.total_dwell_s DESC, p.id LIMIT 1) AS home_id
  FROM devices d
  WHERE (:device IS NULL OR d.name = :device)
),
covered(device_id, place_id, country, locality, day, last_day) AS (
  SELECT v.device_id, v.place_id, v.country, v.locality, tripline_local_date(v.start_ms, v.start_utc_offset_s),
         tripline_local_date(max(v.start_ms, v.end_ms - 1), v.end_utc_offset_s)
  FROM visits v JOIN dev ON dev.id = v.device_id
  UNION ALL
  SELECT device_id, place_id, country, locality, date(day, '+1 day'), last_day FROM covered WHERE day < last_day
),
trip AS (
  SELECT t.*, tripline_local_date(t.start_ms, t.start_utc_offset_s) AS day
  FROM trips t JOIN dev ON dev.id = t.device_id
),
days AS (
  SELECT c.device_id, c.day, max(c.place_id IS NOT NULL AND c.place_id = dev.home_id) AS at_home
  FROM (SELECT device_id, place_id, day FROM covered UNION ALL SELECT device_id, NULL, day FROM trip) c
  JOIN dev ON dev.id = c.device_id
  WHERE (:from IS NULL OR c.day >= :from) AND (:to IS NULL OR c.day <= :to)
  GROUP BY c.device_id, c.day
),
years AS (
  SELECT device_id, substr(day, 1, 4) AS year, count(*) AS tracked, sum(at_home = 0) AS away FROM days GROUP BY 1, 2
),
modes AS (
  SELECT t.device_id, substr(t.day, 1, 4) AS year,
         sum(CASE WHEN l.mode = 'walk' THEN l.distance_m END) AS walk,
         sum(CASE WHEN l.mode = 'run' THEN l.distance_m END) AS run,
         sum(CASE WHEN l.mode IN ('cycle', 'bike') THEN l.distance_m END) AS cycle,
         sum(CASE WHEN l.mode = 'car' THEN l.distance_m END) AS car,
         sum(CASE WHEN l.mode = 'bus' THEN l.distance_m END) AS bus,
         sum(CASE WHEN l.mode = 'train' THEN l.distance_m END) AS train,
         sum(CASE WHEN l.mode = 'vehicle' THEN l.distance_m END) AS vehicle,
         sum(CASE WHEN l.mode = 'plane' THEN l.distance_m END) AS plane,
         sum(CASE WHEN l.mode NOT IN ('walk', 'run', 'cycle', 'bike', 'car', 'bus', 'train', 'vehicle', 'plane') THEN l.distance_m END) AS other
  FROM trip t JOIN legs l ON l.trip_id = t.id
  WHERE (:from IS NULL OR t.day >= :from) AND (:to IS NULL OR t.day <= :to)
  GROUP BY 1, 2
),
totals AS (
  SELECT device_id, substr(day, 1, 4) AS year, sum(distance_m) AS distance, count(*) AS trips
  FROM trip WHERE (:from IS NULL OR day >= :from) AND (:to IS NULL OR day <= :to) GROUP BY 1, 2
),
longest AS (
  SELECT device_id, substr(day, 1, 4) AS year, distance_m, day, from_place_id, to_place_id,
         row_number() OVER (PARTITION BY device_id, substr(day, 1, 4) ORDER BY distance_m DESC, start_ms, id) AS k
  FROM trip WHERE (:from IS NULL OR day >= :from) AND (:to IS NULL OR day <= :to)
),
firsts AS (
  SELECT v.device_id, v.place_id, min(tripline_local_date(v.start_ms, v.start_utc_offset_s)) AS day
  FROM visits v JOIN dev ON dev.id = v.device_id WHERE v.place_id IS NOT NULL GROUP BY 1, 2
),
fresh AS (
  SELECT device_id, substr(day, 1, 4) AS year, count(*) AS places FROM firsts
  WHERE (:from IS NULL OR day >= :from) AND (:to IS NULL OR day <= :to) GROUP BY 1, 2
),
wheres AS (
  SELECT device_id, substr(day, 1, 4) AS year, count(DISTINCT country) AS countries,
         count(DISTINCT country || '/' || locality) AS cities
  FROM covered WHERE (:from IS NULL OR day >= :from) AND (:to IS NULL OR day <= :to) GROUP BY 1, 2
)
SELECT y.year                                                         AS year,
       dev.name                                                       AS device,
       round(coalesce(tt.distance, 0) / 1000.0, 1)                    AS distance_km,
       round(coalesce(m.walk, 0) / 1000.0, 1)                         AS walk_km,
       round(coalesce(m.run, 0) / 1000.0, 1)                          AS run_km,
       round(coalesce(m.cycle, 0) / 1000.0, 1)                        AS cycle_km,
       round(coalesce(m.car, 0) / 1000.0, 1)                          AS car_km,
       round(coalesce(m.bus, 0) / 1000.0, 1)                          AS bus_km,
       round(coalesce(m.train, 0) / 1000.0, 1)                        AS train_km,
       round(coalesce(m.vehicle, 0) / 1000.0, 1)                      AS vehicle_km,
       round(coalesce(m.plane, 0) / 1000.0, 1)                        AS plane_km,
       round(coalesce(m.other, 0) / 1000.0, 1)                        AS other_km,
       coalesce(tt.trips, 0)                                          AS trips,
       y.tracked                                                      AS days_tracked,
       CASE WHEN dev.home_id IS NULL THEN NULL ELSE y.away END        AS days_away,
       (SELECT name FROM places WHERE id = dev.home_id)               AS home,
       coalesce(f.places, 0)                                          AS new_places,
       coalesce(w.countries, 0)                                       AS countries,
       coalesce(w.cities, 0)                                          AS cities,
       round(lt.distance_m / 1000.0, 1)                               AS longest_trip_km,
       lt.day                                                         AS longest_trip_day,
       (SELECT name FROM places WHERE id = lt.from_place_id)          AS longest_trip_from,
       (SELECT name FROM places WHERE id = lt.to_place_id)            AS longest_trip_to
FROM years y
JOIN dev ON dev.id = y.device_id
LEFT JOIN totals tt ON tt.device_id = y.device_id AND tt.year = y.year
LEFT JOIN modes m ON m.device_id = y.device_id AND m.year = y.year
LEFT JOIN longest lt ON lt.device_id = y.device_id AND lt.year = y.year AND lt.k = 1
LEFT JOIN fresh f ON f.device_id = y.device_id AND f.year = y.year
LEFT JOIN wheres w ON w.device_id = y.device_id AND w.year = y.year
ORDER BY y.year, dev.name;
