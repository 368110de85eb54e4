import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplinePasses
import TriplineTestSupport

/// `kill -9` during `tripline rebuild`: each device's rebuild is one transaction (docs/PASSES.md), so after a kill
/// every device holds either its previous results or its new ones, never a mix, and a rerun ends with exactly the
/// uninterrupted result.
@Suite(.serialized) struct RebuildKillTests {
    /// The tables the rebuild writes.
    static let derived = ["point_flags", "stays", "places", "visits", "trips", "legs", "days", "app_trip_matches"]

    /// A device's rebuilt rows, every column but row ids and references to them (which may be numbered differently
    /// by an equivalent run).
    static func picture(_ path: String) throws -> [String: [String]] {
        let store = try Store(path: path, create: false)
        var result: [String: [String]] = [:]
        let devices = try store.db.prepare("SELECT id, name FROM devices ORDER BY name")
        var named: [(Int64, String)] = []
        while try devices.step() { named.append((devices.int64(0), devices.text(1) ?? "")) }
        for table in derived {
            let info = try store.db.prepare("PRAGMA table_info(\(table))")
            var columns: [String] = []
            while try info.step() {
                let name = info.text(1) ?? ""
                if name != "id" && !name.hasSuffix("_id") { columns.append(name) }
            }
            let list = columns.joined(separator: ", ")
            for (id, name) in named {
                let st = try store.db.prepare("SELECT \(list) FROM \(table) WHERE device_id = \(id) ORDER BY \(list)")
                while try st.step() {
                    var row = table
                    for k in 0..<columns.count { row += "|" + (st.text(Int32(k)) ?? "∅") }
                    result[name, default: []].append(row)
                }
            }
        }
        return result
    }

    /// Copies a database whose WAL has been checkpointed into its main file.
    static func copy(_ from: String, _ to: String) throws {
        do {
            let store = try Store(path: from, create: false)
            try store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try FileSystem.write(try FileSystem.read(from), to: to)
    }

    @Test func rebuildKilledInsideEachPassLeavesOldOrNewResultsPerDevice() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        try #require(Binary.run(["help", "rebuild"]).status == 0, "this build has no rebuild command")
        let dir = try temporaryDirectory()
        // Two people (an Overland and an OwnTracks device): three days, then two more.
        for (name, start, days) in [("a", "2024-03-29", "3"), ("b", "2024-04-01", "2")] {
            let r = try Binary.run(["simulate", "-o", dir + "/" + name, "--days", days, "--people", "2", "--seed", "5", "--start", start])
            try #require(r.status == 0, "\(r.stderr)")
            FileSystem.remove(dir + "/" + name + "/truth.json")
        }
        let base = dir + "/base.sqlite"
        #expect(try Binary.run(["import", "--db", base, "--quiet", dir + "/a"]).status == 0)
        #expect(try Binary.run(["rebuild", "--db", base, "--quiet", "--timezone", "Europe/Berlin"]).status == 0)
        let previous = try RebuildKillTests.picture(base)
        #expect(try Binary.run(["import", "--db", base, "--quiet", dir + "/b"]).status == 0)
        try #require(try RebuildKillTests.picture(base) == previous)

        let reference = dir + "/reference.sqlite"
        try RebuildKillTests.copy(base, reference)
        let r = try Binary.run(["rebuild", "--db", reference, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let new = try RebuildKillTests.picture(reference)
        #expect(new.count == 2)
        for (device, rows) in new { #expect(rows != previous[device], "\(device): the new data changed nothing; the test would prove little") }

        // Every pass of every device, each moment reached for sure (the process says so) inside the device's
        // transaction: the devices before it must hold their new results, it and those after it their old ones.
        let devices = new.keys.sorted()
        var mixedStates = Set<String>()
        for device in devices {
            for pass in Rebuild.passOrder {
                let moment = "rebuild.\(device).\(pass)"
                let db = dir + "/killed-\(device.replacingOccurrences(of: "/", with: "_"))-\(pass).sqlite"
                try RebuildKillTests.copy(base, db)
                let paused = try #require(try Binary.startPaused(["rebuild", "--db", db, "--quiet"], at: moment), "the rebuild never reached \(moment)")
                paused.kill()
                let label = "killed at \(moment)"
                do {
                    let store = try Store(path: db, create: false)
                    #expect(try store.db.scalarText("PRAGMA integrity_check") == "ok", "\(label)")
                }
                let after = try RebuildKillTests.picture(db)
                var state = ""
                for other in devices {
                    let rows = after[other] ?? []
                    let isOld = rows == (previous[other] ?? []), isNew = rows == new[other]
                    #expect(isOld || isNew, "\(other): a mix of old and new results, \(label)")
                    state += isNew ? "N" : "O"
                }
                #expect(!state.hasPrefix(String(repeating: "N", count: devices.firstIndex(of: device)! + 1)), "\(label): \(device) already holds new results")
                mixedStates.insert(state)
                let again = try Binary.run(["rebuild", "--db", db, "--quiet"])
                #expect(again.status == 0, "\(label): \(again.stderr)")
                #expect(try RebuildKillTests.picture(db) == new, "\(label)")
            }
        }
        // Record which (old/new per device) states the kills produced, for the report.
        print("rebuild kill states seen: \(mixedStates.sorted())")
    }
}
