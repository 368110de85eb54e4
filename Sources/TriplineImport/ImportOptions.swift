import TriplineCore

/// How an import runs. Defaults suit a command-line import.
public struct ImportOptions: Sendable {
    /// `--device NAME`: the device for records that carry none (Overland with an empty `device_id`, GPX, OwnTracks
    /// without topic or tid). Nil: the folder name given on the command line, else the file's name.
    public var device: String?
    /// "Now" for the "more than a day in the future" check (UTC ms).
    public var nowMs: Int64
    /// Points per batch handed from the parsing thread to the writing thread.
    public var batchSize: Int
    /// Batches that may wait in the queue (bounds memory: about `batchSize × queueDepth` points in flight).
    public var queueDepth: Int
    /// The most that may be inflated from one input, over all its layers together, in bytes; nil: the standard bound,
    /// ``InflateBudget/standard(inputSize:)`` (100 times the input's size plus 256 MiB). See docs/IMPORT.md.
    public var inflateLimit: Int?
    /// How many rejects of one file are kept one row each; the rest are counted, one row per reason
    /// (docs/IMPORT.md, "Bad input").
    public var rejectsKeptPerFile: Int

    /// The rejects a file keeps in full unless told otherwise.
    public static let defaultRejectsKeptPerFile = 10_000

    public init(device: String? = nil, nowMs: Int64 = Clock.nowMs(), batchSize: Int = 4096, queueDepth: Int = 8,
                inflateLimit: Int? = nil, rejectsKeptPerFile: Int = ImportOptions.defaultRejectsKeptPerFile) {
        self.device = device
        self.nowMs = nowMs
        self.batchSize = batchSize
        self.queueDepth = queueDepth
        self.inflateLimit = inflateLimit
        self.rejectsKeptPerFile = max(0, rejectsKeptPerFile)
    }
}
