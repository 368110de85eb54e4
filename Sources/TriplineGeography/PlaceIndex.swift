#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Nearest populated place over the embedded GeoNames table (format in docs/GEOGRAPHY.md): an implicit k-d tree
/// over unit vectors (Float32 x, y, z; the median of each range at its middle, split on the axis of the range's
/// widest spread, stored per node; ranges of ≤ `bucket` places are leaves), so the nearest place by chord is the
/// nearest by great-circle distance, across the antimeridian and at the poles too. (Little-endian hosts only, as is
/// every reader of these tables.)
struct PlaceIndex: Sendable {
    let table: EmbeddedTable
    let count: Int
    private let pointsOffset: Int
    private let axesOffset: Int
    private let recordsOffset: Int
    private let namesOffset: Int
    private let namesLength: Int
    /// Ranges of at most this many places are leaves of the tree, scanned in full.
    private let bucket: Int
    /// Country code and admin-1 name of each (country, admin-1) pair, split once at load.
    private let regions: [(country: String, admin: String)]

    static let recordSize = 10

    init(_ table: EmbeddedTable) {
        self.table = table
        let ok = table.magic("TLPP") && table.u32(4) == 2
        let n = ok ? Int(table.u32(8)) : 0
        pointsOffset = Int(table.u32(12))
        axesOffset = Int(table.u32(16))
        recordsOffset = Int(table.u32(20))
        let regionsOffset = Int(table.u32(24))
        namesOffset = Int(table.u32(28))
        namesLength = Int(table.u32(32))
        bucket = max(1, Int(table.u32(36)))
        regions = (ok ? table.strings(at: regionsOffset) : []).map { s in
            let code = s.utf8.prefix(2).filter { $0 != UInt8(ascii: " ") }
            return (String(decoding: code, as: UTF8.self), String(decoding: s.utf8.dropFirst(2), as: UTF8.self))
        }
        let sizesOK = ok && pointsOffset + 12 * n <= table.count && axesOffset + n <= table.count
            && recordsOffset + Self.recordSize * n <= table.count && namesOffset + namesLength <= table.count
            && pointsOffset % 4 == 0
        count = sizesOK ? n : 0
    }

    /// Index of the nearest place (of at least `minimumPopulation`) and its squared chord distance on the unit
    /// sphere; nil for invalid input or when no place is that large.
    /// - Complexity: O(log n) node visits on average.
    func nearest(latitude: Double, longitude: Double, minimumPopulation: Int = 0) -> (index: Int, chord2: Float)? {
        guard count > 0, let base = table.base, latitude >= -90, latitude <= 90, longitude >= -180, longitude <= 180
        else { return nil }
        let la = latitude * .pi / 180, lo = longitude * .pi / 180
        let c = cos(la)
        // The table was checked at load: points and axes lie inside it, so the search reads them unchecked.
        var search = Search(
            points: (base + pointsOffset).assumingMemoryBound(to: Float.self),
            axes: (base + axesOffset).assumingMemoryBound(to: UInt8.self), bucket: bucket,
            q: (Float(c * cos(lo)), Float(c * sin(lo)), Float(sin(la))),
            records: base + recordsOffset, minimumPopulation: UInt32(clamping: max(0, minimumPopulation)))
        search.visit(0, count)
        return search.bestIndex >= 0 ? (search.bestIndex, search.best) : nil
    }

    private struct Search {
        let points: UnsafePointer<Float>
        let axes: UnsafePointer<UInt8>
        let bucket: Int
        let q: (Float, Float, Float)
        let records: UnsafeRawPointer
        let minimumPopulation: UInt32
        var best = Float.infinity
        var bestIndex = -1

        init(points: UnsafePointer<Float>, axes: UnsafePointer<UInt8>, bucket: Int, q: (Float, Float, Float),
             records: UnsafeRawPointer, minimumPopulation: UInt32) {
            self.points = points
            self.axes = axes
            self.bucket = bucket
            self.records = records
            self.minimumPopulation = minimumPopulation
            self.q = q
        }

        @inline(__always) func qualifies(_ i: Int) -> Bool {
            minimumPopulation == 0
                || UInt32(littleEndian: records.loadUnaligned(fromByteOffset: PlaceIndex.recordSize * i + 4, as: UInt32.self))
                    >= minimumPopulation
        }

        /// Takes point `k` as the best so far when it is nearer (and qualifies); returns its offset from the query.
        @inline(__always) mutating func consider(_ k: Int) -> (dx: Float, dy: Float, dz: Float) {
            let p = points + 3 * k
            let dx = q.0 - p[0], dy = q.1 - p[1], dz = q.2 - p[2]
            let d2 = dx * dx + dy * dy + dz * dz
            if d2 < best, qualifies(k) {
                best = d2
                bestIndex = k
            }
            return (dx, dy, dz)
        }

        mutating func visit(_ lo: Int, _ hi: Int) {
            var lo = lo, hi = hi
            while lo < hi {
                if hi - lo <= bucket {
                    for k in lo..<hi { _ = consider(k) }
                    return
                }
                let mid = (lo + hi) >> 1
                let (dx, dy, dz) = consider(mid)
                let axis = axes[mid]
                let diff = axis == 0 ? dx : (axis == 1 ? dy : dz)
                // The near side first (recursion), then the far side (this loop) only if the splitting plane is
                // nearer than the best so far.
                if diff < 0 {
                    visit(lo, mid)
                    guard diff * diff < best else { return }
                    lo = mid + 1
                } else {
                    visit(mid + 1, hi)
                    guard diff * diff < best else { return }
                    hi = mid
                }
            }
        }
    }

    func name(_ i: Int) -> String {
        let at = recordsOffset + Self.recordSize * i
        let start = Int(table.u32(at))
        let end = i + 1 < count ? Int(table.u32(at + Self.recordSize)) : namesLength
        return end >= start && end <= namesLength ? table.string(namesOffset + start, end - start) : ""
    }

    func population(_ i: Int) -> Int { Int(table.u32(recordsOffset + Self.recordSize * i + 4)) }

    /// Country code and admin-1 name (empty when unknown).
    func region(_ i: Int) -> (country: String, admin: String) {
        let r = Int(table.u16(recordsOffset + Self.recordSize * i + 8))
        return r < regions.count ? regions[r] : ("", "")
    }

    func coordinate(_ i: Int) -> (latitude: Double, longitude: Double) {
        let at = pointsOffset + 12 * i
        let x = Double(table.f32(at)), y = Double(table.f32(at + 4)), z = Double(table.f32(at + 8))
        return (atan2(z, (x * x + y * y).squareRoot()) * 180 / .pi, atan2(y, x) * 180 / .pi)
    }
}

