/// Polyline simplification for display: a cheap radial-distance pre-filter and Douglas–Peucker.
///
/// Both work on planar coordinates (projected, e.g. ``WebMercator`` world units or pixels) held as two parallel
/// arrays, always keep the first and the last point, and return the indices of the points they keep, in order.
public enum Simplify {
    /// Keeps a point only when it is farther than `tolerance` from the last kept point (and always the last point).
    /// Removes the bulk of a 1 Hz track's redundant points before ``douglasPeucker(xs:ys:tolerance:)``.
    /// - Complexity: O(n).
    public static func radial(xs: [Double], ys: [Double], tolerance: Double) -> [Int] {
        let n = min(xs.count, ys.count)
        guard n > 2 else { return Array(0..<n) }
        let limit = tolerance * tolerance
        var kept: [Int] = [0]
        var lastX = xs[0]
        var lastY = ys[0]
        for i in 1..<(n - 1) {
            let dx = xs[i] - lastX
            let dy = ys[i] - lastY
            if dx * dx + dy * dy > limit {
                kept.append(i)
                lastX = xs[i]
                lastY = ys[i]
            }
        }
        kept.append(n - 1)
        return kept
    }

    /// Douglas–Peucker: keeps the fewest points such that no removed point is farther than `tolerance` from the
    /// simplified line (distance to the segment, so closed loops whose ends coincide are handled).
    /// Iterative (an explicit stack), so a track of any length cannot overflow the call stack.
    /// - Complexity: O(n log n) typically, O(n²) in the worst case.
    public static func douglasPeucker(xs: [Double], ys: [Double], tolerance: Double) -> [Int] {
        let n = min(xs.count, ys.count)
        guard n > 2 else { return Array(0..<n) }
        var keep = [Bool](repeating: false, count: n)
        keep[0] = true
        keep[n - 1] = true
        let limit = tolerance * tolerance
        var stack: [(Int, Int)] = [(0, n - 1)]
        while let (first, last) = stack.popLast() {
            guard last > first + 1 else { continue }
            var worst = -1.0
            var worstIndex = first
            for i in (first + 1)..<last {
                let d = squaredSegmentDistance(xs[i], ys[i], xs[first], ys[first], xs[last], ys[last])
                if d > worst {
                    worst = d
                    worstIndex = i
                }
            }
            if worst > limit {
                keep[worstIndex] = true
                stack.append((first, worstIndex))
                stack.append((worstIndex, last))
            }
        }
        var result: [Int] = []
        for i in 0..<n where keep[i] { result.append(i) }
        return result
    }

    /// The squared distance from (px, py) to the segment (ax, ay)–(bx, by).
    @inline(__always)
    public static func squaredSegmentDistance(
        _ px: Double, _ py: Double, _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double
    ) -> Double {
        let dx = bx - ax
        let dy = by - ay
        var t = 0.0
        let lengthSquared = dx * dx + dy * dy
        if lengthSquared > 0 {
            t = ((px - ax) * dx + (py - ay) * dy) / lengthSquared
            t = min(1, max(0, t))
        }
        let ex = px - (ax + t * dx)
        let ey = py - (ay + t * dy)
        return ex * ex + ey * ey
    }
}
