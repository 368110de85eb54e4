/// The first index whose value is ≥ `value` in an ascending array.
public func lowerBound(_ a: [Int64], _ value: Int64) -> Int {
    var lo = 0, hi = a.count
    while lo < hi {
        let mid = (lo + hi) >> 1
        if a[mid] < value { lo = mid + 1 } else { hi = mid }
    }
    return lo
}

/// The first index whose value is ≥ `value` in an ascending array of indices.
public func lowerBound(_ a: [Int], _ value: Int) -> Int {
    var lo = 0, hi = a.count
    while lo < hi {
        let mid = (lo + hi) >> 1
        if a[mid] < value { lo = mid + 1 } else { hi = mid }
    }
    return lo
}
