/// One location fix as stored in `points`. Optional fields are NULL when the source did not give them
/// (or gave its "unknown" marker, such as Overland's -1).
public struct Point: Sendable, Equatable {
    public var deviceID: Int64
    /// UTC milliseconds since 1970-01-01.
    public var timeMs: Int64
    /// Local offset from UTC in seconds, where the source gives one (Overland timestamps do; OwnTracks and most GPX do not).
    public var utcOffsetS: Int32?
    public var lat: Double
    public var lon: Double
    public var altitudeM: Double?
    public var speedMps: Double?
    public var courseDeg: Double?
    public var accuracyM: Double?
    public var vAccuracyM: Double?
    /// Overland motion states joined by commas (`driving,stationary`), or OwnTracks `motionactivities`.
    public var motion: String?
    public var batteryLevel: Double?
    public var batteryState: String?
    public var ssid: String?
    public var bssid: String?
    public var appTripID: String?
    public var appTripMode: String?
    /// OwnTracks `t` (what triggered the report).
    public var trigger: String?
    /// OwnTracks `conn` (w = wifi, m = mobile, o = offline).
    public var conn: String?
    /// Other source fields worth keeping, as a compact JSON object.
    public var extra: String?
    public var importID: Int64

    public init(
        deviceID: Int64, timeMs: Int64, utcOffsetS: Int32? = nil, lat: Double, lon: Double, altitudeM: Double? = nil,
        speedMps: Double? = nil, courseDeg: Double? = nil, accuracyM: Double? = nil, vAccuracyM: Double? = nil,
        motion: String? = nil, batteryLevel: Double? = nil, batteryState: String? = nil, ssid: String? = nil,
        bssid: String? = nil, appTripID: String? = nil, appTripMode: String? = nil, trigger: String? = nil,
        conn: String? = nil, extra: String? = nil, importID: Int64 = 0
    ) {
        self.deviceID = deviceID
        self.timeMs = timeMs
        self.utcOffsetS = utcOffsetS
        self.lat = lat
        self.lon = lon
        self.altitudeM = altitudeM
        self.speedMps = speedMps
        self.courseDeg = courseDeg
        self.accuracyM = accuracyM
        self.vAccuracyM = vAccuracyM
        self.motion = motion
        self.batteryLevel = batteryLevel
        self.batteryState = batteryState
        self.ssid = ssid
        self.bssid = bssid
        self.appTripID = appTripID
        self.appTripMode = appTripMode
        self.trigger = trigger
        self.conn = conn
        self.extra = extra
        self.importID = importID
    }
}
