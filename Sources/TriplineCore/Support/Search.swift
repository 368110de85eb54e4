/// The first index of `range` at which `before` no longer holds, for a predicate that holds on a prefix of the range
/// and not after it (a binary search). Inlinable, so that each caller's predicate is specialised.
@inlinable
public func partitionPoint(_ range: Range<Int>, _ before: (Int) -> Bool) -> Int {
    var lo = range.lowerBound, hi = range.upperBound
    while lo < hi {
        let mid = (lo + hi) >> 1
        if before(mid) { lo = mid + 1 } else { hi = mid }
    }
    return lo
}

/// The first index whose value is ≥ `value` in an ascending array (times, indices). Inlinable, so that each caller's
/// element type is specialised.
@inlinable
public func lowerBound<T: Comparable>(_ a: [T], _ value: T) -> Int {
    partitionPoint(0..<a.count) { a[$0] < value }
}
