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
}
