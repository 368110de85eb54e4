// The Google Takeout benchmark: a generated Records.json of a given size (default 2 GB) imported through
// `Importer`, with the peak memory of the whole process. `swift run -c release tripline-bench takeout [GB] [--gzip]`
// (`--gzip`: compressed with `gzip -1` first, so the import inflates it).
import TriplineCore
import TriplineStore
import TriplineImport
import TriplineSimulator

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

enum TakeoutBenchmark {
    /// Writes `{"locations":[…]}` of pretty-printed Takeout elements until the file holds `bytes` bytes, in 8 MB
    /// writes (the generator holds no more than one chunk). Returns the number of fixes.
    static func generate(bytes target: Int, to path: String) throws -> Int {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw BenchmarkFailure("cannot create \(path)") }
        defer { close(fd) }
        var chunk: [UInt8] = []
        chunk.reserveCapacity(9 << 20)
        var written = 0
        func flush() throws {
            var offset = 0
            while offset < chunk.count {
                let n = chunk.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
                guard n > 0 else { throw BenchmarkFailure("cannot write \(path)") }
                offset += n
            }
            written += chunk.count
            chunk.removeAll(keepingCapacity: true)
        }
        chunk.append(contentsOf: "{\n  \"locations\" : [ ".utf8)
        var i = 0
        while written + chunk.count < target - 600 {
            let f = ImportBenchmark.fix(i)
            let p = Point(deviceID: 0, timeMs: f.timeMs, lat: f.lat, lon: f.lon, altitudeM: f.altitude, speedMps: f.speed,
                          courseDeg: f.course, accuracyM: f.accuracy, vAccuracyM: 3, motion: "driving")
            if i > 0 { chunk.append(contentsOf: ", ".utf8) }
            chunk.append(contentsOf: TakeoutWriter.recordsElement(p, index: i, deviceTag: 123_456_789, oldStyle: i % 2 == 1).utf8)
            i += 1
            if chunk.count >= 8 << 20 { try flush() }
        }
        chunk.append(contentsOf: " ]\n}\n".utf8)
        try flush()
        return i
    }

    /// Runs `gzip -1` on `path` (leaving `path.gz`), through posix_spawn.
    static func gzip(_ path: String) throws {
        var pid: pid_t = 0
        let arguments = ["gzip", "-1", "-f", path]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        guard posix_spawnp(&pid, "gzip", nil, nil, &argv, environ) == 0 else { throw BenchmarkFailure("cannot run gzip") }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        guard status == 0 else { throw BenchmarkFailure("gzip failed (status \(status))") }
    }

    static func run(_ args: [String]) throws {
        let gigabytes = args.first.flatMap { Double($0) } ?? 2
        let compressed = args.contains("--gzip")
        let dir = try FileSystem.temporaryDirectory(prefix: "tripline-bench-takeout")
        var path = dir + "/Records.json"
        defer {
            for name in ["Records.json", "Records.json.gz", "t.sqlite", "t.sqlite-wal", "t.sqlite-shm"] { FileSystem.remove(dir + "/" + name) }
            rmdir(dir)
        }
        print("generating a \(gigabytes) GB Records.json in \(path) …")
        let fixes = try generate(bytes: Int(gigabytes * 1e9), to: path)
        var size = FileSystem.size(path) ?? 0
        print("Records.json: \(size / 1_000_000) MB, \(fixes) fixes, \(size / max(fixes, 1)) bytes a fix")
        if compressed {
            try gzip(path)
            path += ".gz"
            size = FileSystem.size(path) ?? 0
            print("Records.json.gz: \(size / 1_000_000) MB (gzip -1); the import inflates it into an unlinked temporary file")
        }
        let rssBefore = Double(peakRSSKiB()) / 1024
        let (summary, seconds, rss) = try timedImport([path], into: dir + "/t.sqlite", expected: fixes, noRejects: true)
        let n = Double(fixes)
        print("format:     \(summary.files.first?.format ?? "?")")
        print("import:     \(Int(n / seconds)) points/s end to end, \(fixed(Double(size) / 1e6 / seconds, 1)) MB/s (\(fixed(seconds, 2)) s)")
        print("CPU:        parse thread \(fixed(summary.parseCPUSeconds / n * 1e6, 2)) µs/point (\(Int(n / summary.parseCPUSeconds)) points/s), insert thread \(fixed(summary.writeCPUSeconds / n * 1e6, 2)) µs/point (\(Int(n / summary.writeCPUSeconds)) points/s)")
        print("peak RSS:   \(fixed(rss, 1)) MB (VmHWM after the import; \(fixed(rssBefore, 1)) MB before it)")
    }
}
