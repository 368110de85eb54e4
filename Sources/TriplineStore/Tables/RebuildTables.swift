import TriplineCore

// The rebuild's tables each have their file in this folder (`StayTable.swift`, `TripTable.swift`, …) with their row
// type and their writes, written as methods of ``RebuildTables``: one writer per transaction (a pass run, a fixture)
// that prepares each statement once. The passes, the synthetic map fixture and the benchmarks all write through
// these; no other code in Sources/ inserts into these tables.

/// The one writer of the rebuild's tables: each row type's insert, prepared once per writer and reused. Create one
/// per transaction (a pass run, a fixture) from the ``Store``.
public final class RebuildTables {
    let db: Database

    private var statements: [String: Statement] = [:]

    public init(_ store: Store) { db = store.db }

    func statement(_ sql: String) throws -> Statement {
        if let s = statements[sql] { s.reset(); return s }
        let s = try db.prepare(sql)
        statements[sql] = s
        return s
    }

    /// Runs an insert whose first parameter is the row id and returns the id stored. A given (stable) id that is
    /// already taken (a 53-bit collision, see ``StableID``) moves on to the next free one, so the insert never fails
    /// for it; nil lets SQLite choose.
    func insert(_ s: Statement, id: Int64?, _ table: String, _ values: [SQLValue]) throws -> Int64 {
        guard var id else {
            try s.bind([.null] + values)
            _ = try s.step()
            return db.lastInsertRowID
        }
        let taken = try statement("SELECT 1 FROM \(table) WHERE id = ?")
        while true {
            taken.reset()
            taken.bindInt(id, at: 1)
            if try !taken.step() { break }
            id = id == (1 << 53) - 1 ? 1 : id + 1
        }
        s.reset()
        try s.bind([.integer(id)] + values)
        _ = try s.step()
        return id
    }
}
