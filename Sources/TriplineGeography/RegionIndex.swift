/// Point-in-region lookup over one embedded region table (time zones or countries); format in docs/GEOGRAPHY.md.
///
/// A 360 × 180 grid of one-degree root cells, each the root of a quadtree. A node reference (u32) is either
/// a region id (tag 0: the whole cell is that region, 0 = none), four children (tag 1), or a boundary leaf (tag 2):
/// the region at the cell's centre plus the few boundary chains that cross the cell, each labelled with the regions
/// on its left and right. A point in a boundary leaf takes the region beyond the last boundary that the segment
/// from the centre to the point crosses (the one nearest to the point), or the centre's region if it crosses none.
struct RegionIndex: Sendable {
    let table: EmbeddedTable
    /// Names of the regions, column by column (zones: [name]; countries: [code, name]); region id k is entry k - 1.
    let columns: [[String]]
    private let rootOffset: Int
    private let nodesOffset: Int
    private let nodeGroups: Int
    private let leavesOffset: Int
    private let leavesEnd: Int
    let regionCount: Int

    /// An index over an embedded table; an unreadable table gives an empty index (every lookup 0).
    init(_ table: EmbeddedTable, magic: StaticString) {
        self.table = table
        let ok = table.magic(magic) && table.u32(4) == 1 && table.u32(16) == 360 && table.u32(20) == 180
        let regions = ok ? Int(table.u32(8)) : 0
        let columnCount = ok ? Int(table.u32(12)) : 0
        rootOffset = Int(table.u32(24))
        nodesOffset = Int(table.u32(28))
        nodeGroups = Int(table.u32(32))
        leavesOffset = Int(table.u32(36))
        leavesEnd = leavesOffset + Int(table.u32(40))
        let all = ok ? table.strings(at: Int(table.u32(44))) : []
        let sizesOK = ok && rootOffset + 4 * 360 * 180 <= table.count
            && nodesOffset + 16 * nodeGroups <= table.count && leavesEnd <= table.count
            && all.count == regions * columnCount
        regionCount = sizesOK ? regions : 0
        columns = sizesOK ? (0..<columnCount).map { Array(all[($0 * regions)..<(($0 + 1) * regions)]) } : []
    }

    /// The region id (1...regionCount) at a point, 0 for none (open sea for countries) or for invalid input.
    /// - Complexity: at most 9 quadtree steps and one boundary leaf of about 40 segments.
    @inline(__always) func region(latitude: Double, longitude: Double) -> Int {
        lookup(latitude: latitude, longitude: longitude).region
    }

    /// A region found by `lookup`, with the cell it was found in when that whole cell is one region
    /// (west, south, size in degrees; size 0 for a boundary leaf or invalid input).
    struct Hit {
        var region: Int
        var west = 0.0, south = 0.0, size = 0.0

        /// Whether a point lies in the same uniform cell (and so has the same region).
        func covers(latitude: Double, longitude: Double) -> Bool {
            size > 0 && longitude >= west && longitude <= west + size && latitude >= south && latitude <= south + size
        }
    }

    func lookup(latitude: Double, longitude: Double) -> Hit {
        guard regionCount > 0, latitude >= -90, latitude <= 90, longitude >= -180, longitude <= 180 else {
            return Hit(region: 0)  // also NaN, which fails every comparison
        }
        let x = longitude + 180, y = latitude + 90
        let cx = min(Int(x), 359), cy = min(Int(y), 179)
        var fx = x - Double(cx), fy = y - Double(cy)
        var west = Double(cx) - 180, south = Double(cy) - 90, size = 1.0
        var ref = table.u32(rootOffset + 4 * (cy * 360 + cx))
        while true {
            switch ref >> 30 {
            case 0:
                let id = Int(ref)
                return Hit(region: id <= regionCount ? id : 0, west: west, south: south, size: size)
            case 1:
                let group = Int(ref & 0x3FFF_FFFF)
                guard group < nodeGroups else { return Hit(region: 0) }
                fx += fx
                fy += fy
                let ix = fx >= 1 ? 1 : 0, iy = fy >= 1 ? 1 : 0
                fx -= Double(ix)
                fy -= Double(iy)
                size *= 0.5
                west += Double(ix) * size
                south += Double(iy) * size
                ref = table.u32(nodesOffset + 16 * group + 4 * (iy * 2 + ix))
            case 2:
                let id = leafRegion(at: leavesOffset + Int(ref & 0x3FFF_FFFF), x: fx * 65535, y: fy * 65535)
                return Hit(region: id <= regionCount ? id : 0)
            default:
                return Hit(region: 0)
            }
        }
    }

    /// Resolves a point (cell coordinates 0...65535) inside a boundary leaf.
    private func leafRegion(at offset: Int, x px: Double, y py: Double) -> Int {
        // The leaves block lies inside the table (checked at load); each read below is checked against its end.
        guard let base = table.base, offset + 4 <= leavesEnd else { return 0 }
        @inline(__always) func u16(_ at: Int) -> UInt16 {
            UInt16(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt16.self))
        }
        @inline(__always) func u8(_ at: Int) -> Int { Int(base.load(fromByteOffset: at, as: UInt8.self)) }
        let centre = Int(u16(offset))
        let regionsCount = u8(offset + 2)
        let chains = u8(offset + 3)
        let regionsAt = offset + 4
        var at = regionsAt + 2 * regionsCount
        let cx = 32767.5, cy = 32767.5
        let ex = px - cx, ey = py - cy
        var bestT = -1.0
        var best = -1  // local region index, 255 = none, -1 = the centre's region
        for _ in 0..<chains {
            guard at + 3 <= leavesEnd else { return centre }
            let left = u8(at), right = u8(at + 1), points = u8(at + 2)
            at += 3
            guard points >= 2, at + 4 * points <= leavesEnd else { return centre }
            var ax = Double(u16(at)), ay = Double(u16(at + 2))
            // Side of each vertex relative to the line through the centre and the point: a segment whose ends lie
            // strictly on one side cannot cross (most segments; one cross product each, no division).
            var sideA = ex * (ay - cy) - ey * (ax - cx)
            for k in 1..<points {
                let bx = Double(u16(at + 4 * k)), by = Double(u16(at + 4 * k + 2))
                let sideB = ex * (by - cy) - ey * (bx - cx)
                defer {
                    ax = bx
                    ay = by
                    sideA = sideB
                }
                if (sideA > 0 && sideB > 0) || (sideA < 0 && sideB < 0) { continue }
                let dx = bx - ax, dy = by - ay
                let denominator = ex * dy - ey * dx
                if denominator != 0 {
                    // centre + t·e = a + s·d
                    let wx = ax - cx, wy = ay - cy
                    let t = (wx * dy - wy * dx) / denominator
                    let s = (wx * ey - wy * ex) / denominator
                    if t >= 0, t <= 1, s >= 0, s <= 1, t > bestT {
                        bestT = t
                        let side = dx * (py - ay) - dy * (px - ax)
                        best = side >= 0 ? left : right
                    }
                }
            }
            at += 4 * points
        }
        if best < 0 { return centre }
        guard best < regionsCount, regionsAt + 2 * best + 2 <= leavesEnd else { return 0 }
        return Int(u16(regionsAt + 2 * best))
    }
}
