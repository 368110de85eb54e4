-- Devices overview: per device its source, points, time span, imports, rejected and flagged records, trips, visits.
--
-- The whole history of each device (:from and :to do not apply); first and last point in local time. A file of
-- several devices (a `Records.json` with two device tags) is an import of each device it gave points to, and its
-- rejects count for each of them (a reject names no device).
-- Points are read from `points_hot`, whose key is device_id << 42 | time_ms (docs/SCHEMA.md): one key range per
-- device instead of a scan of the `points` view.
-- Parameters: :device (a device name); NULL means every device.
SELECT dev.name                                                                        AS device,
       dev.source                                                                      AS source,
       (SELECT count(*) FROM points_hot p
         WHERE p.key BETWEEN dev.id << 42 AND (dev.id << 42) | 4398046511103)         AS points,
       (SELECT tripline_local_time(p.key & 4398046511103, p.utc_offset_s, p.lat, p.lon) FROM points_hot p
         WHERE p.key BETWEEN dev.id << 42 AND (dev.id << 42) | 4398046511103
         ORDER BY p.key LIMIT 1)                                                       AS first_point,
       (SELECT tripline_local_time(p.key & 4398046511103, p.utc_offset_s, p.lat, p.lon) FROM points_hot p
         WHERE p.key BETWEEN dev.id << 42 AND (dev.id << 42) | 4398046511103
         ORDER BY p.key DESC LIMIT 1)                                                  AS last_point,
       (SELECT count(*) FROM days d WHERE d.device_id = dev.id)                        AS days,
       (SELECT count(*) FROM imports i WHERE i.device_id = dev.id OR (i.device_id IS NULL AND EXISTS (
          SELECT 1 FROM points_hot p WHERE p.key BETWEEN dev.id << 42 AND (dev.id << 42) | 4398046511103
            AND p.import_id = i.id)))                                                  AS imports,
       (SELECT coalesce(sum(r.records), 0) FROM rejects r JOIN imports i ON i.id = r.import_id
         WHERE i.device_id = dev.id OR (i.device_id IS NULL AND EXISTS (
          SELECT 1 FROM points_hot p WHERE p.key BETWEEN dev.id << 42 AND (dev.id << 42) | 4398046511103
            AND p.import_id = i.id)))                                                  AS rejected,
       (SELECT count(*) FROM point_flags f WHERE f.device_id = dev.id AND f.flags != 0) AS flagged,
       (SELECT count(*) FROM trips t WHERE t.device_id = dev.id)                       AS trips,
       (SELECT round(coalesce(sum(t.distance_m), 0) / 1000.0, 1) FROM trips t
         WHERE t.device_id = dev.id)                                                   AS distance_km,
       (SELECT count(*) FROM visits v WHERE v.device_id = dev.id)                      AS visits,
       (SELECT count(*) FROM places pl WHERE pl.device_id = dev.id)                    AS places
FROM devices dev
WHERE (:device IS NULL OR dev.name = :device)
ORDER BY dev.name;
