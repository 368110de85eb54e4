/// The first index whose value is ≥ `value` in an ascending array (times, indices). Inlinable, so that each caller's
/// element type is specialised.
@inlinable
public func lowerBound<T: Comparable>(_ a: [T], _ value: T) -> Int {
    var lo = 0, hi = a.count
    while lo < hi {
        let mid = (lo + hi) >> 1
        if a[mid] < value { lo = mid + 1 } else { hi = mid }
    }
    return lo
}
