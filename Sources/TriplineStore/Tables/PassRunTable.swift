import TriplineCore

// `pass_runs`: what each pass ran with and produced. Its writes are methods of ``RebuildTables`` (one statement cache per
// transaction); docs/SCHEMA.md has every column.

/// A row of `pass_runs`: one pass over one device's span, with the parameters it ran with and what it produced.
public struct PassRunRow: Sendable, Equatable {
    public var pass: String
    public var deviceID: Int64?
    public var fromMs: Int64?
    public var toMs: Int64?
    /// A JSON object of `key: value`.
    public var parameters: String
    /// A JSON object of `key: value`.
    public var stats: String?
    public var startedMs: Int64
    public var finishedMs: Int64?

    public init(pass: String, deviceID: Int64?, fromMs: Int64?, toMs: Int64?, parameters: String, stats: String?, startedMs: Int64, finishedMs: Int64?) {
        self.pass = pass
        self.deviceID = deviceID
        self.fromMs = fromMs
        self.toMs = toMs
        self.parameters = parameters
        self.stats = stats
        self.startedMs = startedMs
        self.finishedMs = finishedMs
    }
}

extension RebuildTables {
    /// Records a pass run.
    public func insert(_ r: PassRunRow) throws {
        let s = try statement(
            "INSERT INTO pass_runs(pass, device_id, from_ms, to_ms, parameters, stats, started_ms, finished_ms) VALUES (?,?,?,?,?,?,?,?)")
        try s.bind([.text(r.pass), .optional(r.deviceID), .optional(r.fromMs), .optional(r.toMs), .text(r.parameters), .optional(r.stats),
                    .integer(r.startedMs), .optional(r.finishedMs)])
        _ = try s.step()
    }
}
