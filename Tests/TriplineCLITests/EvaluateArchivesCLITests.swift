import Testing
import TriplineCore
import TriplineTestSupport

/// `tripline evaluate --archives`: the simulation written as the apps' archives and imported, as a user's data goes.
@Suite struct EvaluateArchivesCLITests {
    /// The archives keep what the rebuild needs of the simulated fixes: trips and visits score the same either way
    /// (the writer and the importer lose nothing that matters), and one seed leaves its archives beside --db.
    @Test func archivesScoreLikeTheSimulatedFixes() throws {
        let dir = try temporaryDirectory()
        func scores(_ extra: [String]) throws -> [String: String] {
            let r = runCLI(["evaluate", "--profile", "sparse-owntracks", "--seed", "13", "--days", "2", "--db", dir + "/\(extra.count).sqlite"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            return Self.scoreFields(r.stdout)
        }
        let direct = try scores([]), archived = try scores(["--archives"])
        // trips and visits: truth, rebuilt, matched, precision, recall, F1; hidden: trips, visits.
        #expect(direct.count == 14, "\(direct)")
        #expect(direct == archived)
        #expect(FileSystem.kind(dir + "/1.sqlite.archives/rec") == .directory)
    }

    /// The counts and scores of `evaluate`'s report, parsed field by field (`trips.F1`, `visits.matched`,
    /// `hidden.trips`): never a substring of the whole text, whose first line holds the database's random temporary
    /// path (`/tmp/tripline-test.P2IaF1/…` once matched "F1") and the time the rebuild took.
    static func scoreFields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        var section = ""
        let wanted: Set<String> = ["truth", "rebuilt", "matched", "precision", "recall", "F1"]
        for line in text.split(separator: "\n").dropFirst() {  // the first line: seed, days, points, time, path
            let words = line.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "(" || $0 == ")" }).map(String.init)
            guard let first = words.first else { continue }
            if !line.hasPrefix(" ") { section = first.hasSuffix(":") ? String(first.dropLast()) : "" }
            if section == "hidden" {  // "hidden: 3 trips, 5 visits during which …"
                if words.count > 4 && words[2] == "trips" && words[4] == "visits" { (fields["hidden.trips"], fields["hidden.visits"]) = (words[1], words[3]) }
                continue
            }
            guard section == "trips" || section == "visits" else { continue }
            for k in words.indices.dropLast() where wanted.contains(words[k]) && Double(words[k + 1]) != nil {
                fields[section + "." + words[k]] = words[k + 1]
            }
        }
        return fields
    }
}
