import TriplineCore

/// What happened to one file.
public struct FileSummary: Sendable {
    public enum Status: String, Sendable {
        /// Read and committed (its points, events and rejects are in the database).
        case imported
        /// Already imported with the same content fingerprint; nothing done.
        case skipped
        /// Could not be read at all (missing, unreadable, binary, not a location archive).
        case failed
    }
    public var path: String
    public var status: Status
    public var format: String?
    public var importID: Int64?
    public var pointsNew = 0
    /// The earliest time of the points it added (`imports.first_ms`).
    public var firstNewMs: Int64? = nil
    public var pointsDuplicate = 0
    public var rejected = 0
    public var events = 0
    /// Devices the file's records went to, with how each name was chosen.
    public var devices: [ParsedDevice] = []
    public var message: String?
    public var bytes = 0

    /// Forgets the counts of a file whose transaction was rolled back (nothing of it was stored).
    mutating func discardCounts() {
        pointsNew = 0
        pointsDuplicate = 0
        rejected = 0
        events = 0
        firstNewMs = nil
        devices = []
    }
}

/// What an import did, file by file.
public struct ImportSummary: Sendable {
    public var files: [FileSummary] = []
    public var seconds: Double = 0
    /// CPU seconds the parsing thread used (reading, fingerprinting, parsing).
    public var parseCPUSeconds: Double = 0
    /// CPU seconds the writing (calling) thread used during the import.
    public var writeCPUSeconds: Double = 0
    public var pointsNew: Int { files.reduce(0) { $0 + $1.pointsNew } }
    public var pointsDuplicate: Int { files.reduce(0) { $0 + $1.pointsDuplicate } }
    public var rejected: Int { files.reduce(0) { $0 + $1.rejected } }
    public var events: Int { files.reduce(0) { $0 + $1.events } }
    public var failed: Int { files.filter { $0.status == .failed }.count }
    /// Files read and committed.
    public var imported: Int { files.filter { $0.status == .imported }.count }
    /// Entries passed over: files already imported or of another kind, and what a folder holds that is not read
    /// (a symbolic link not followed, a compressed file Tripline does not unpack, an empty file). They are neither
    /// imported nor failed, and the summary says so (it counted them all as files: "7 files" for 4 read and 3 links).
    public var skipped: Int { files.filter { $0.status == .skipped }.count }
}

/// Progress of a running import, for a progress line.
public struct ImportProgress: Sendable {
    public var filesDone: Int
    public var filesTotal: Int
    public var points: Int
    public var bytesDone: Int
    public var bytesTotal: Int
    public var seconds: Double
}
