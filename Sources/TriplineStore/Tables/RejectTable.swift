import TriplineCore

// A table `tripline import` writes (docs/SCHEMA.md has every column): its one insert, and its reads.

/// `rejects`: one row per record that was not imported, or (`records` > 1) one row standing for the rejects of one
/// reason past the number a file keeps in full.
public final class RejectTable {
    let statement: Statement

    /// The rejects table of `store`'s connection.
    public convenience init(_ store: Store) throws { try self.init(store.db) }

    public init(_ db: Database) throws {
        statement = try db.prepare("INSERT INTO rejects(import_id, line, byte_offset, reason, detail, excerpt, records) VALUES (?,?,?,?,?,?,?)")
    }

    public func insert(importID: Int64, line: Int?, byteOffset: Int, reason: String, detail: String, excerpt: String?, records: Int = 1) throws {
        let st = statement
        st.reset()
        try st.bind([.integer(importID), line.map { .integer(Int64($0)) } ?? .null, .integer(Int64(byteOffset)), .text(reason),
                     .text(detail), excerpt.map { .text($0) } ?? .null, .integer(Int64(records))])
        _ = try st.step()
        st.reset()
    }
}

// MARK: Reading rejects

extension Store {
    /// How many records were rejected for each reason, most first (a row past the rejects a file keeps in full stands
    /// for `records` rejects, docs/SCHEMA.md).
    public func rejectCountsByReason() throws -> [(String, Int)] {
        try counts("SELECT reason, sum(records) FROM rejects GROUP BY reason ORDER BY sum(records) DESC, reason")
    }
}

/// A reject an earlier import stored (``Store/recordedRejects(importIDs:)``): where it was, why, its excerpt, and how
/// many rejects the row stands for.
public struct RecordedReject: Sendable, Hashable {
    public var byteOffset: Int64
    public var reason: String
    public var excerpt: String?
    public var records: Int64
}

extension Store {
    /// The ids of the `done` imports of each path: what a file read again (a Recorder `.rec` that grew, so its
    /// fingerprint changed) was imported as before. One read of `imports` for a whole run.
    public func doneImportIDsByPath() throws -> [String: [Int64]] {
        let q = try db.prepare("SELECT path, id FROM imports WHERE status = 'done' ORDER BY id")
        var out: [String: [Int64]] = [:]
        while try q.step() { out[q.text(0) ?? "", default: []].append(q.int64(1)) }
        return out
    }

    /// The rejects the imports `importIDs` stored, by import (`rejects_import`).
    public func recordedRejects(importIDs: [Int64]) throws -> [RecordedReject] {
        let q = try db.prepare("SELECT byte_offset, reason, excerpt, records FROM rejects WHERE import_id = ? ORDER BY byte_offset, id")
        var out: [RecordedReject] = []
        for id in importIDs {
            q.reset()
            q.bindInt(id, at: 1)
            while try q.step() { out.append(RecordedReject(byteOffset: q.int64(0), reason: q.text(1) ?? "", excerpt: q.text(2), records: q.int64(3))) }
        }
        return out
    }
}

/// One `rejects` row as the import's summary lists it.
public struct RejectSummary: Sendable, Equatable {
    /// The line in the file, when the format has lines.
    public var line: Int64?
    public var byteOffset: Int64
    public var reason: String
    public var detail: String
}

extension Store {
    /// The first `limit` rejects of one import, in file order.
    public func rejects(importID: Int64, limit: Int) throws -> [RejectSummary] {
        let q = try db.prepare("SELECT line, byte_offset, reason, detail FROM rejects WHERE import_id = ? ORDER BY byte_offset, id LIMIT ?")
        q.bindInt(importID, at: 1)
        q.bindInt(Int64(limit), at: 2)
        var out: [RejectSummary] = []
        while try q.step() {
            out.append(RejectSummary(line: q.optionalInt64(0), byteOffset: q.int64(1), reason: q.text(2) ?? "?", detail: q.text(3) ?? ""))
        }
        return out
    }
}
