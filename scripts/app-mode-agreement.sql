-- Agreement of the rebuilt trips' modes with the app's own activity types (Google's activitySegments, Overland's
-- trip records), pooled over every matched app trip of the database (`app_trip_matches`, written by the apptrips pass).
-- Run with `tripline query scripts/app-mode-agreement.sql --format csv`; scripts/app-mode-agreement.sh sums it
-- over files. Only app trips with a known kind count (Google's UNKNOWN_ACTIVITY_TYPE, STILL, … are left out).
-- Columns: matched app trips with a known kind; exact (the same mode name); class (the same of foot / bicycle /
-- motorised; `unknown` is none of them); app_car (the app says a passenger vehicle: car, taxi); train_for_car (of
-- those, the rebuild says train); vehicle (the rebuild says the honest `vehicle`); vehicle_ok (`vehicle` where the
-- app says a road or rail vehicle: car, bus, train, not counted in exact); named_right and named_wrong (where the app
-- says car, bus or train, the rebuild names the same one, or another of the three: the guesses `vehicle` replaces).
WITH m AS (
    SELECT CASE lower(app_mode)
               WHEN 'hike' THEN 'walk'
               WHEN 'bicycle' THEN 'cycle' WHEN 'ebike' THEN 'cycle' WHEN 'scooter' THEN 'cycle'
               WHEN 'taxi' THEN 'car'
               WHEN 'tram' THEN 'train' WHEN 'metro' THEN 'train' WHEN 'monorail' THEN 'train'
               WHEN 'funicular' THEN 'train'
               ELSE lower(app_mode)
           END AS app,
           lower(trip_mode) AS rebuilt
    FROM app_trip_matches
    WHERE trip_id IS NOT NULL
),
c AS (
    SELECT app, rebuilt,
           CASE WHEN app IN ('walk', 'run') THEN 'foot' WHEN app = 'cycle' THEN 'bicycle'
                WHEN app IN ('car', 'bus', 'train', 'plane', 'boat', 'vehicle') THEN 'motorised' END AS app_class,
           CASE WHEN rebuilt IN ('walk', 'run') THEN 'foot' WHEN rebuilt = 'cycle' THEN 'bicycle'
                WHEN rebuilt IN ('car', 'bus', 'train', 'plane', 'boat', 'vehicle') THEN 'motorised' END AS rebuilt_class
    FROM m
)
SELECT count(*)                                                                  AS matched,
       coalesce(sum(app = rebuilt), 0)                                           AS exact,
       coalesce(sum(app_class = rebuilt_class), 0)                               AS class,
       coalesce(sum(app = 'car'), 0)                                             AS app_car,
       coalesce(sum(app = 'car' AND rebuilt = 'train'), 0)                       AS train_for_car,
       coalesce(sum(rebuilt = 'vehicle'), 0)                                     AS vehicle,
       coalesce(sum(rebuilt = 'vehicle' AND app IN ('car', 'bus', 'train')), 0) AS vehicle_ok,
       coalesce(sum(app IN ('car', 'bus', 'train') AND rebuilt = app), 0)       AS named_right,
       coalesce(sum(app IN ('car', 'bus', 'train') AND rebuilt IN ('car', 'bus', 'train') AND rebuilt <> app), 0)
                                                                                 AS named_wrong
FROM c
WHERE app_class IS NOT NULL;
