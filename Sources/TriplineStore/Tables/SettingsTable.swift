import TriplineCore

// `settings`: the key/value pairs a rebuild leaves for the exports (`timezone`).

extension Store {
    /// The value of `settings.key`, or nil.
    public func setting(_ key: String) throws -> String? {
        try db.scalarText("SELECT value FROM settings WHERE key = ?", [.text(key)])
    }

    /// Sets `settings.key` (the one writer of `settings`).
    public func setSetting(_ key: String, _ value: String) throws {
        try db.run("INSERT OR REPLACE INTO settings(key, value) VALUES (?, ?)", [.text(key), .text(value)])
    }

    /// Whether this is a study merged with `merge --results-only`, whose points stay in the shards: marked by the merge
    /// (`settings.results_only`), or, merged before the mark, known by imports that added points none of which is here.
    /// Nothing can be recomputed in it: a rebuild from no points deleted every trip, visit and place (the twelfth
    /// hostile round).
    public func holdsResultsOnly() throws -> Bool {
        if try setting("results_only") != nil { return true }
        guard (try db.scalarInt("SELECT coalesce(sum(points_new), 0) FROM imports") ?? 0) > 0 else { return false }
        return try db.scalarInt("SELECT EXISTS (SELECT 1 FROM points_hot)") == 0
    }

    /// Removes `settings.key` (`rebuild --timezone position`: back to zones by position).
    public func removeSetting(_ key: String) throws {
        try db.run("DELETE FROM settings WHERE key = ?", [.text(key)])
    }
}
