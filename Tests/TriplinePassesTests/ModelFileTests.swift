import Testing
@testable import TriplinePasses

/// The model files' text form (`evaluate --trip-cut-model`, `--pause-model`, `--mode-model`) checks itself: it ends with
/// `end N`, N its rows, so a file cut short is refused instead of read as a smaller model (docs/RELIABILITY.md).
@Suite struct ModelFileTests {
    static let names = ModeFeatures.names.joined(separator: " ")
    static let zeros = Array(repeating: "0", count: ModeFeatures.names.count).joined(separator: " ")
    static let ones = Array(repeating: "1", count: ModeFeatures.names.count).joined(separator: " ")
    /// One file of each reader, as the training scripts write them (a comment first, `end N` last).
    static let files: [(name: String, text: String, read: @Sendable (String) throws -> Void)] = [
        ("trip-cut", "# TripCutModel: 3 boosted stumps\nbase -1.5\nthreshold 0.6\nstump log_fixes 2.5 0.25 -0.5\n"
            + "stump log_net_m 4 0.1 -0.1\nstump log_path_m 5 0.2 -0.3\nend 5\n",
         { _ = try TripCutModel(text: $0, origin: "m.txt") }),
        ("pause", "# PauseModel\nbase -1.5\nthreshold 0.5\nstump log_duration_s 6.5 0.25 -0.5\nstump turn_deg 90 0 1\nend 4\n",
         { _ = try PauseModel(text: $0, origin: "m.txt") }),
        ("mode stumps", "# stumps\nfeatures \(names)\nbase 0 -1 -2\nstump motorised p85_mps 7.5 0 2.5\n"
            + "stump bicycle p85_mps 2.4 0 2\nend 4\n",
         { _ = try ModeModel(text: $0, path: "m.txt") }),
        ("mode linear", "# linear\nfeatures \(names)\nmean \(zeros)\nscale \(ones)\nfoot 0 \(zeros)\nbicycle 2 \(zeros)\n"
            + "motorised 1 \(zeros)\nend 6\n",
         { _ = try ModeModel(text: $0, path: "m.txt") }),
    ]

    func error(_ read: (String) throws -> Void, _ text: String) -> ModelFileError? {
        do { try read(text); return nil } catch let e as ModelFileError { return e } catch { return nil }
    }

    /// Cut after any of its lines (or inside its last number), every file is refused; before, a stump file cut after
    /// a stump row read as the stumps above the cut.
    @Test func aFileCutShortIsRefused() throws {
        for file in Self.files {
            try file.read(file.text)
            let lines = file.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for keep in 1..<(lines.count - 2) {
                let cut = lines[0...keep].joined(separator: "\n") + "\n"
                let e = error(file.read, cut)
                #expect(e?.line == keep + 1, "\(file.name) cut after line \(keep + 1): \(e.map { "\($0)" } ?? "read")")
                #expect(e?.reason.contains("no 'end N' row") == true, "\(file.name): \(e.map { "\($0)" } ?? "read")")
            }
            // Inside the last number of the last row, with no line end: still no `end`.
            let inside = String(lines[0..<(lines.count - 2)].joined(separator: "\n").dropLast())
            #expect(error(file.read, inside) != nil, "\(file.name): \(inside.suffix(20))")
        }
    }

    /// A count that does not match names the `end` row's line and how many rows are missing (or extra); a row after
    /// `end`, a malformed `end`, and a second `base` or `threshold` are refused.
    @Test func theCountNamesWhatIsMissing() throws {
        let trip = Self.files[0]
        // A stump row lost from the middle (a bad merge, an editor): the count tells.
        let lost = trip.text.replacingOccurrences(of: "stump log_net_m 4 0.1 -0.1\n", with: "")
        #expect(error(trip.read, lost) == ModelFileError("m.txt", line: 6, "'end 5' counts 5 rows above it, the file has 4: 1 row is missing"))
        let extra = trip.text.replacingOccurrences(of: "end 5", with: "end 3")
        #expect(error(trip.read, extra)?.description == "m.txt:7: 'end 3' counts 3 rows above it, the file has 5: 2 rows are more than it counts")
        #expect(error(trip.read, trip.text + "stump log_fixes 1 2 3\n")?.line == 8)
        #expect(error(trip.read, trip.text.replacingOccurrences(of: "end 5", with: "end five"))?.line == 7)
        #expect(error(trip.read, trip.text.replacingOccurrences(of: "end 5", with: "end 5 5"))?.line == 7)
        #expect(error(trip.read, trip.text.replacingOccurrences(of: "threshold 0.6\n", with: "threshold 0.6\nbase 2\n")
            .replacingOccurrences(of: "end 5", with: "end 6")) == ModelFileError("m.txt", line: 4, "a second 'base' row"))
        let empty = "no 'end N' row after the last row (0 rows): the file is cut short, or was written before model files ended "
            + "with their count of rows (add 'end 0' if it is whole)"
        #expect(error(trip.read, "") == ModelFileError("m.txt", empty))
        // Comments, blank lines and Windows line ends are not rows.
        try trip.read(trip.text.replacingOccurrences(of: "\n", with: "\r\n\r\n# a note\r\n"))
        let m = try TripCutModel(text: trip.text, origin: "m.txt")
        #expect(m.ensemble.stumps.count == 3)
    }
}
