-- Daily summary: distance, moving time, trips, visits and places per local day and device.
--
-- Reads `days`, written by `tripline rebuild`: one row per device and local day (the day as the user lived it,
-- from the points' own UTC offsets or the rebuild's --timezone).
-- Parameters: :from, :to (local days YYYY-MM-DD, inclusive) and :device (a device name); NULL means no limit.
SELECT d.date                              AS date,
       dev.name                            AS device,
       round(d.distance_m / 1000.0, 2)     AS distance_km,
       round(d.moving_s / 3600.0, 2)       AS moving_h,
       d.trips                             AS trips,
       d.visits                            AS visits,
       d.places                            AS places
FROM days d
JOIN devices dev ON dev.id = d.device_id
WHERE (:from IS NULL OR d.date >= :from)
  AND (:to IS NULL OR d.date <= :to)
  AND (:device IS NULL OR dev.name = :device)
ORDER BY d.date, dev.name;
