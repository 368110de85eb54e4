import TriplineCore
import TriplineGeography
import TriplineStore

/// Pass 3, `places`: clusters the device's stays into places and writes one visit per stay.
///
/// The stays of the device's whole history are clustered at once (``cluster(_:scatter:radius:maxRadius:scatterFactor:)``):
/// two clusters are one place when their centres lie within a link distance that follows their stays' own scatter
/// (`radius_m` + `scatter_factor` × their stays' mean radius, at most `merge_max_m`); a place's centre is the
/// dwell-weighted mean of its visits. A home whose stay centres wander 100 m with the indoor fixes becomes one place
/// while two shops 200 m apart stay two. Each place and visit gets the country and locality (city, town) of its centre, looked
/// up offline (`Geography.country`, `Geography.locality`). A place is named after the wifi network most seen there
/// (its SSID), else `near <locality>` (with the distance and direction from the locality's point beyond 1.5 km:
/// `near Beijing (8 km NW)`), else its coordinates. Places are per device and always recomputed from all of
/// the device's stays (a few thousand at most); the user's edits (`place_edits`: rename, merge, forget) are applied
/// each time, and a place's id is derived from the device and the start of its first visit, so it survives rebuilds.
public struct PlacesPass: Pass {
    public static let name = "places"

    public struct Parameters: PassParameters {
        /// A stay joins a place whose centre is within this distance (metres). Below half the 200 m between two
        /// neighbouring shops, above the scatter of one place's stay centres.
        public var radiusM: Double = 75
        /// Two places are one when their centres are within `radius_m` plus `scatter_factor` × the mean radius of
        /// their stays, at most this (metres): below the 200 m between two neighbouring shops.
        public var mergeMaxM: Double = 150
        /// How much of the stays' own scatter widens the distance at which two places are one.
        public var scatterFactor: Double = 1
        /// Two places of at least this many stays each, one's all before the other's (a wall of time: a move to the
        /// flat across the street), are never one place; 0 = off.
        public var wallVisits: Double = 5
        /// 1: distinct wifi networks and distinct app place ids keep close places apart; 0: position only.
        public var evidence: Double = 1
        /// A place whose stays all have fewer than 3 fixes joins the nearest place of a stay with more within this
        /// distance (metres); 0 = off. The largest reach of the development grid (200, 350, 500 m; seeds 1–10) at which
        /// no profile's purity falls below 0.98: a lone fix before a silence lies 180–670 m from where the person was.
        public var weakReachM: Double = 350
        /// … or within this distance (metres) when that place lies on the way of the lone fix: within 60° of the way
        /// from the stay before it through the fix (the fix before a silence, on the way to the stop), or from the stay
        /// after it (a fix just after leaving); 0 = off. Among the places in reach, the one of least distance ×
        /// (1 + deviation / 30°) is joined, not the nearest.
        public var weakAheadM: Double = 500
        /// 1: a place of lone-fix stays that lie between an OwnTracks region's `leave` and its next `enter` joins no
        /// place inside the region (``regionAbsences(_:stays:)``); 0 = off (algorithm version 20). Needs `evidence`.
        public var regions: Double = 1
        /// A stay of 3 fixes or more has a centre uncertain by about the mean accuracy its fixes reported over the square
        /// root of their number: its scatter in the link distance is at least this many times that (a stay of 3 fixes
        /// at 30–65 m is uncertain by tens of metres, a 1-Hz stay's by a metre); 0 = off (algorithm version 21).
        public var accuracyFactor: Double = 1
        public init() {}
        public static var keys: Keys {
            ["radius_m": \.radiusM, "merge_max_m": \.mergeMaxM, "scatter_factor": \.scatterFactor, "wall_visits": \.wallVisits,
             "evidence": \.evidence, "weak_reach_m": \.weakReachM, "weak_ahead_m": \.weakAheadM,
             "regions": \.regions, "accuracy_factor": \.accuracyFactor]
        }

        /// Valid values (docs/PASSES.md, "Valid ranges").
        public static var ranges: Ranges {
            ["radius_m": .distance, "merge_max_m": .distance, "scatter_factor": ParameterRange(0, 10), "wall_visits": ParameterRange(0, 1000),
             "evidence": ParameterRange(0, 1, whole: true), "weak_reach_m": .distanceOrOff, "weak_ahead_m": .distanceOrOff,
             "regions": ParameterRange(0, 1, whole: true), "accuracy_factor": ParameterRange(0, 10)]
        }
    }

    public var parameters: Parameters
    /// Whether the pass points the device's trips at their visits' places once it has rewritten them (its last
    /// window). The runner turns it off when the timeline pass runs after it in the same rebuild: that pass writes its
    /// own visits and then points every trip at its visits' places (the same statement, after this pass's visits), so
    /// `trips` is not written by the places pass.
    public var refreshesTrips = true
    /// Whether the pass names the device's places (``PlaceNames``) in its last window: the runner turns it on when the
    /// timeline pass, which names them once Google's places are written, does not run after it.
    public var namesPlaces = false

    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    struct Place {
        var lat: Double
        var lon: Double
        var weight: Double
        var visits: Int = 0
        var dwell: Double = 0
        var first: Int64 = .max
        var last: Int64 = .min
        var ssidCounts: [String: Int] = [:]
        var radius: Double = 0
    }

    /// What a stay's own records say about which place it is, beyond its position: the wifi network most seen during
    /// it (Overland's `wifi`) and the app's place id of the app visit overlapping it most (Google's `placeId`).
    struct StayEvidence: Sendable, Equatable {
        var wifi: String? = nil
        var appPlace: String? = nil
    }

    /// How the clustering weighs the evidence that keeps two close places apart (docs/PASSES.md, "places").
    struct Separation: Sendable {
        /// Two clusters are kept apart by a wall of time when each holds at least this many stays and all of one's
        /// stays ended before the first of the other's began (a move to the flat across the street); 0 = off.
        var wallVisits: Int = 0
        /// A place of weak stays only (their position from one or two fixes) joins the nearest place of a stay with
        /// more fixes within this distance (metres); 0 = off.
        var weakReachM: Double = 0
        /// … or within this distance (metres) when that place lies ahead on the stay's way (``deviation(_:_:_:)``
        /// at most ``aheadConeDeg``); 0 = off.
        var weakAheadM: Double = 0
        /// The OwnTracks regions (centre, radius in metres) and, for each stay, the regions it lies outside of: wholly
        /// between a `leave` of the region and its next `enter` (``regionAbsences(_:stays:)``). A place of such weak
        /// stays joins no place whose centre lies inside one of those regions. Empty: no regions known.
        var regions: [(lat: Double, lon: Double, radius: Double)] = []
        var outside: [[Int]] = []
    }

    /// Assigns each stay to a place; returns the places (centre, weight, first and last instant) and the place index
    /// of each stay. Places are in the order of their first stay, so the oldest place keeps the lowest index.
    ///
    /// Agglomerative over the whole history, independent of the order the stays arrived in: every stay starts as its
    /// own cluster; in each round every cluster finds the cluster nearest to it relative to their link distance, and
    /// two clusters that are each other's nearest merge (centre: the dwell-weighted mean). Rounds repeat until no two
    /// clusters are within their link distance. The link distance of two clusters follows the scatter of their stays:
    /// `radius` plus `scatterFactor` × the mean of their stays' own radii (a stay of fewer than 3 fixes has an
    /// unknown scatter, taken as `radius`), at most `maxRadius`. A home whose stay centres wander 100 m with the
    /// indoor fixes is one place; two shops 200 m apart seen by good fixes stay two.
    ///
    /// Two clusters however close are never joined when the evidence says they are two places
    /// (`apart`): each saw wifi and no network is common to both; each was seen by an app's visits and
    /// no app place id is common to both; or a wall of time (`separation.wallVisits`) lies between them.
    /// - Complexity: the stays of one cell of a quarter of `radius` with the same evidence start as one cluster (any
    ///   two are within every link distance); then O(m) per round through a grid of `maxRadius` cells, m clusters,
    ///   each comparing the few dozen of its 3 × 3 cells; the rounds roughly halve the clusters of a place: O(n + m log m).
    static func cluster(_ stays: [(lat: Double, lon: Double, start: Int64, end: Int64)], scatter: [Double], radius: Double,
                        maxRadius: Double, scatterFactor: Double, evidence: [StayEvidence]? = nil, weak: [Bool]? = nil,
                        separation: Separation = Separation()) -> ([Place], [Int]) {
        let n = stays.count
        guard n > 0 else { return ([], []) }
        let cell = max(maxRadius, radius)
        struct Cluster {
            var lat: Double, lon: Double, weight: Double, scatterSum: Double, count: Int
            var first: Int64, last: Int64
            var wifi: Set<String>, apps: Set<String>
            var scatter: Double { scatterSum / Double(count) }
        }
        struct CellKey: Hashable { var y: Int, x: Int }
        struct FineKey: Hashable { var y: Int, x: Int, wifi: String?, app: String? }
        var clusters: [Cluster] = stays.enumerated().map { k, s in
            let w = max(Double(s.end - s.start) / 1000, 60)
            let e = evidence?[k] ?? StayEvidence()
            return Cluster(lat: s.lat, lon: s.lon, weight: w, scatterSum: scatter[k], count: 1, first: s.start, last: s.end,
                           wifi: e.wifi.map { [$0] } ?? [], apps: e.appPlace.map { [$0] } ?? [])
        }
        var parent = Array(0..<n)  // cluster of each stay: follow to a root (the lowest stay index of the cluster)
        func root(_ k: Int) -> Int {
            var k = k
            while parent[k] != k { parent[k] = parent[parent[k]]; k = parent[k] }
            return k
        }
        func merge(_ c: Int, _ o: Int) {
            let a = clusters[c], b = clusters[o]
            let w = a.weight + b.weight
            clusters[c] = Cluster(lat: (a.lat * a.weight + b.lat * b.weight) / w, lon: Geo.meanLongitude(a.lon, a.weight, b.lon, b.weight),
                                  weight: w, scatterSum: a.scatterSum + b.scatterSum, count: a.count + b.count,
                                  first: min(a.first, b.first), last: max(a.last, b.last),
                                  wifi: a.wifi.union(b.wifi), apps: a.apps.union(b.apps))
            parent[o] = c
        }
        /// The evidence that two clusters are two places, however close.
        func apart(_ a: Cluster, _ b: Cluster) -> Bool {
            if !a.wifi.isEmpty && !b.wifi.isEmpty && a.wifi.isDisjoint(with: b.wifi) { return true }
            if !a.apps.isEmpty && !b.apps.isEmpty && a.apps.isDisjoint(with: b.apps) { return true }
            let wall = separation.wallVisits
            if wall > 0 && a.count >= wall && b.count >= wall && (a.last <= b.first || b.last <= a.first) { return true }
            return false
        }
        // First, the stays of one fine cell (a quarter of `radius` a side: any two are within every link distance)
        // with the same evidence are one cluster, so a home of a thousand nights starts as a few dozen clusters.
        let fine = max(radius, 1) / 4
        var firstInCell: [FineKey: Int] = [:]
        for k in 0..<n {
            let y = stays[k].lat * 111_320 / fine, x = stays[k].lon * 111_320 * Geo.cosLatitude(stays[k].lat) / fine
            let e = evidence?[k] ?? StayEvidence()
            let cellKey = FineKey(y: Int(y.rounded(.down)), x: Int(x.rounded(.down)), wifi: e.wifi, app: e.appPlace)
            if let c = firstInCell[cellKey] { merge(c, k) } else { firstInCell[cellKey] = k }
        }
        var active = (0..<n).filter { parent[$0] == $0 }
        func link(_ a: Cluster, _ b: Cluster) -> Double {
            min(maxRadius, max(radius, radius + scatterFactor * (a.scatter + b.scatter) / 2))
        }
        func key(_ c: Cluster, lon: Double? = nil) -> (Int, Int) {
            let y = c.lat * 111_320 / cell
            let x = (lon ?? c.lon) * 111_320 * Geo.cosLatitude(c.lat) / cell
            return (Int(y.rounded(.down)), Int(x.rounded(.down)))
        }
        while active.count > 1 {
            var grid: [CellKey: [Int]] = [:]
            for c in active { let k = key(clusters[c]); grid[CellKey(y: k.0, x: k.1), default: []].append(c) }
            // Each cluster's nearest within its link distance, by distance over link distance (ties: lower index).
            var nearest: [Int: Int] = [:]
            for c in active {
                let a = clusters[c]
                var best = -1
                var bestR = 1.0
                // Near the 180th meridian also the cells across it, where the same place's other stays lie (a cell's
                // x counts from longitude 0, so they are a whole turn of cells away).
                let sides = abs(a.lon) > 179 ? 2 : 1
                for side in 0..<sides {
                    let k = side == 0 ? key(a) : key(a, lon: a.lon > 0 ? a.lon - 360 : a.lon + 360)
                    for dy in -1...1 {
                        for dx in -1...1 {
                            for o in grid[CellKey(y: k.0 + dy, x: k.1 + dx)] ?? [] where o != c {
                                let b = clusters[o]
                                if apart(a, b) { continue }
                                let r = Geo.distance(a.lat, a.lon, b.lat, b.lon) / link(a, b)
                                if r <= 1 && (best < 0 || r < bestR || (r == bestR && o < best)) {
                                    bestR = r
                                    best = o
                                }
                            }
                        }
                    }
                }
                if best >= 0 { nearest[c] = best }
            }
            var merged = false
            for c in active {
                guard let o = nearest[c], o > c, nearest[o] == c else { continue }
                merge(c, o)
                merged = true
            }
            guard merged else { break }
            active = active.filter { parent[$0] == $0 }
        }
        // A place made only of stays whose position one or two fixes gave (a lone fix before a silence, the fix a
        // region's `leave` published: often on the way, hundreds of metres from where the person was) joins a place
        // that fixes of a stay showed, with no evidence against it: one within `separation.weakReachM`, or within
        // `separation.weakAheadM` on the way (``deviation(_:_:_:)``); the one of least distance × (1 + deviation / 30°).
        /// Whether any of `ks` lies outside a region (between its `leave` and next `enter`) that holds the place `b`.
        func outsideOf(_ ks: [Int], _ b: Cluster) -> Bool {
            guard !separation.outside.isEmpty else { return false }
            for k in ks {
                for r in separation.outside[k] {
                    let region = separation.regions[r]
                    if Geo.distance(region.lat, region.lon, b.lat, b.lon) <= region.radius { return true }
                }
            }
            return false
        }
        if separation.weakReachM > 0, let weak {
            var strong = Set<Int>()
            for k in 0..<n where !weak[k] { strong.insert(root(k)) }
            let anchors = active.filter { strong.contains($0) }
            var members: [Int: [Int]] = [:]
            for k in 0..<n where weak[k] && !strong.contains(root(k)) { members[root(k), default: []].append(k) }
            let reach = max(separation.weakReachM, separation.weakAheadM)
            for c in active where !strong.contains(c) {
                let a = clusters[c]
                var best = -1
                var bestScore = Double.infinity
                for o in anchors {
                    let b = clusters[o]
                    let d = Geo.distance(a.lat, a.lon, b.lat, b.lon)
                    guard d <= reach, !apart(a, b), !outsideOf(members[c] ?? [], b) else { continue }
                    // The least deviation of any of the place's stays from its way (180°: no way known).
                    var deviation = 180.0
                    if separation.weakAheadM > 0 {
                        for k in members[c] ?? [] { deviation = min(deviation, Self.deviation(stays, k, (b.lat, b.lon))) }
                    }
                    guard d <= separation.weakReachM || deviation <= Self.aheadConeDeg else { continue }
                    let score = d * (1 + deviation / 30)
                    if score < bestScore || (score == bestScore && o < best) { bestScore = score; best = o }
                }
                // The anchor keeps its centre: a lone fix on the way says nothing about where the place is.
                if best >= 0 { parent[c] = best }
            }
        }
        // Places in the order of their first stay (the root is the lowest stay index, and stays are in time order).
        var index = [Int](repeating: -1, count: n)
        var places: [Place] = []
        var assignment: [Int] = []
        assignment.reserveCapacity(n)
        for (k, s) in stays.enumerated() {
            let r = root(k)
            if index[r] < 0 {
                index[r] = places.count
                places.append(Place(lat: clusters[r].lat, lon: clusters[r].lon, weight: clusters[r].weight))
            }
            let p = index[r]
            places[p].visits += 1
            places[p].dwell += Double(s.end - s.start) / 1000
            places[p].first = min(places[p].first, s.start)
            places[p].last = max(places[p].last, s.end)
            assignment.append(p)
        }
        return (places, assignment)
    }

    /// A place this far off the way (degrees) is not "ahead" (``deviation(_:_:_:)``, `weak_ahead_m`).
    static let aheadConeDeg = 60.0

    /// How far (degrees, 0–180) a place lies off the way of a stay of one or two fixes (`k`): the angle between the
    /// way from the stay before it to the stay's fix, continued, and the way from the fix to the place — or the same
    /// from the stay after it (a fix on the way out of the place). A lone fix before a silence is taken on the way to
    /// where the person stopped, so the place is ahead of it; a fix just after leaving lies on the way from the place
    /// to the next stay, so the place is behind it. 180 when neither neighbour is more than 50 m from the fix.
    static func deviation(_ stays: [(lat: Double, lon: Double, start: Int64, end: Int64)], _ k: Int, _ place: (lat: Double, lon: Double)) -> Double {
        let s = stays[k]
        let kx = 111_320 * Geo.cosLatitude(s.lat), ky = 111_320.0
        func vector(_ lat: Double, _ lon: Double) -> (x: Double, y: Double) { ((Geo.unwrappedLongitude(lon, near: s.lon) - s.lon) * kx, (lat - s.lat) * ky) }
        let toPlace = vector(place.lat, place.lon)
        guard (toPlace.x * toPlace.x + toPlace.y * toPlace.y) >= 1 else { return 0 }
        let bearing = Geo.planarBearing(east: toPlace.x, north: toPlace.y)
        var best = 180.0
        for j in [k - 1, k + 1] where j >= 0 && j < stays.count {
            // The way from the neighbour to the fix, continued past it.
            let from = vector(stays[j].lat, stays[j].lon)
            guard (from.x * from.x + from.y * from.y) > 50 * 50 else { continue }
            let turn = abs(Geo.planarBearing(east: -from.x, north: -from.y) - bearing)
            best = min(best, min(turn, 360 - turn))
        }
        return best
    }

    /// The OwnTracks regions the app published (`waypoint`: name, centre, radius; 100 m when it gives none) and the
    /// regions each stay lies outside of: the stay is wholly between a `leave` of the region and the region's next
    /// `enter` (`events` in time order, ``Store/evidenceEvents(device:fromMs:toMs:)``). iOS reports a crossing 10–150 s
    /// late, so the span from one report to the other lies outside the region but for at most the `enter`'s delay,
    /// which a stay ending before the `enter` is reported does not reach into far.
    static func regionAbsences(_ events: [EvidenceEvent], stays: [(lat: Double, lon: Double, start: Int64, end: Int64)])
        -> (regions: [(lat: Double, lon: Double, radius: Double)], outside: [[Int]]) {
        var index: [String: Int] = [:]
        var regions: [(lat: Double, lon: Double, radius: Double)] = []
        for e in events where e.kind == "waypoint" {
            guard let desc = e.desc, let lat = e.lat, let lon = e.lon else { continue }
            let region = (lat: lat, lon: lon, radius: e.radiusM ?? 100)
            if let r = index[desc] { regions[r] = region } else { index[desc] = regions.count; regions.append(region) }
        }
        var outside = [[Int]](repeating: [], count: stays.count)
        guard !regions.isEmpty else { return (regions, outside) }
        let starts = stays.map(\.start)
        var left: [Int: Int64] = [:]
        for e in events where e.kind == "transition" {
            guard let desc = e.desc, let r = index[desc], let kind = e.event else { continue }
            if kind == "leave" { left[r] = e.timeMs; continue }
            guard kind == "enter", let from = left.removeValue(forKey: r) else { continue }
            // The stays starting at or after the `leave` and ending by the `enter`.
            var lo = 0, hi = starts.count
            while lo < hi { let m = (lo + hi) / 2; if starts[m] < from { lo = m + 1 } else { hi = m } }
            var k = lo
            while k < stays.count && stays[k].start < e.timeMs {
                if stays[k].end <= e.timeMs { outside[k].append(r) }
                k += 1
            }
        }
        return (regions, outside)
    }

    /// Each stay's evidence: the wifi network seen on most of its fixes that saw one (at least 2 of them, and more
    /// than any other network), and the app place id of the app visit that overlaps it longest, when that overlap is
    /// at least half of the shorter of the two (`appVisits` in time order).
    static func evidence(_ stays: [(lat: Double, lon: Double, start: Int64, end: Int64)], wifi: [[String: Int]],
                         appVisits: [(placeID: String, startMs: Int64, endMs: Int64)]) -> [StayEvidence] {
        let longest = appVisits.map { $0.endMs - $0.startMs }.max() ?? 0
        let starts = appVisits.map(\.startMs)
        var out: [StayEvidence] = []
        out.reserveCapacity(stays.count)
        for (k, s) in stays.enumerated() {
            var e = StayEvidence()
            let ranked = wifi[k].sorted { a, b in a.value != b.value ? a.value > b.value : a.key < b.key }
            if let top = ranked.first, top.value >= 2, ranked.count == 1 || ranked[1].value < top.value { e.wifi = top.key }
            // The app visits starting before the stay ends and no earlier than the longest one before it starts.
            var lo = 0, hi = starts.count
            while lo < hi { let m = (lo + hi) / 2; if starts[m] < s.end { lo = m + 1 } else { hi = m } }
            var best: (overlap: Int64, id: String)? = nil
            var j = lo - 1
            while j >= 0 && appVisits[j].startMs >= s.start - longest {
                let v = appVisits[j]
                let o = min(v.endMs, s.end) - max(v.startMs, s.start)
                if o > 0 && 2 * o >= min(v.endMs - v.startMs, s.end - s.start)
                    && (best == nil || o > best!.overlap || (o == best!.overlap && v.placeID < best!.id)) { best = (o, v.placeID) }
                j -= 1
            }
            e.appPlace = best?.id
            out.append(e)
        }
        return out
    }

    // MARK: Load, place, store

    /// Loads the device's stays, the user's edits and what the visits need from the points, places the stays
    /// (``placeStays(_:_:_:)``), replaces the device's places and visits with the result and points the trips at their
    /// visits' places again.
    public mutating func run(_ work: DeviceWork, store: Store) throws -> PassStats {
        // All of the device's stays (not only the span): places are device-wide.
        let stays = try store.stays(device: work.deviceID)
        let lastWindow = !work.windowsFollow
        var input = Input(stays: stays, edits: try store.placeEdits(device: work.deviceID))
        let tables = RebuildTables(store)
        if lastWindow {
            // Wifi seen during each stay (the last window names the places).
            // Wifi and reported accuracy of each stay's fixes: both read span by span when both are wanted (the second
            // read of a span finds its pages cached; docs/PERFORMANCE.md, "Ten years").
            let spans = stays.map { ($0.startMs, $0.endMs) }
            if parameters.accuracyFactor > 0 {
                (input.ssids, input.accuracies) = try store.ssidCountsAndMeanAccuracies(device: work.deviceID, spans: spans)
            } else {
                input.ssids = try store.ssidCounts(device: work.deviceID, spans: spans)
            }
            if parameters.evidence > 0 {
                input.appVisits = try store.googlePlaceVisits(device: work.deviceID)
                if parameters.regions > 0 {
                    input.regionEvents = try store.evidenceEvents(device: work.deviceID, fromMs: .min, toMs: .max)
                        .filter { $0.kind == "waypoint" || $0.kind == "transition" }
                }
            }
            // The offsets of visits before the span, as stored: their stays and points are as they were, and a zone or
            // parameter change recomputes the device whole (`processFromMs` is then the start), so they are the same.
            if work.processFromMs > Int64.min { input.storedOffsets = try tables.visitOffsets(device: work.deviceID, beforeMs: work.processFromMs) }
            try tables.deletePlacesAndVisits(device: work.deviceID)
        } else {
            // (Stays after the window, from an earlier rebuild, keep their visits until a later window replaces them.)
            input.visitsLeft = try tables.deletePlacesAndVisits(device: work.deviceID, startingFromMs: work.processFromMs, toMs: work.toMs)
        }
        // The fixes at the start and end of each visit to write whose offsets are not stored.
        var times: [Int64] = []
        for s in stays {
            let id = s.id ?? 0
            if input.visitsLeft.contains(id) { continue }
            if let o = input.storedOffsets[id], o.startMs == s.startMs, o.endMs == s.endMs { continue }
            times.append(s.startMs)
            times.append(s.endMs)
        }
        input.fixes = try store.fixes(device: work.deviceID, at: times)

        let output = Self.placeStays(work, input, parameters)

        var placeIDs: [Int64] = []
        placeIDs.reserveCapacity(output.places.count)
        for place in output.places { placeIDs.append(try tables.insert(place)) }
        for visit in output.visits {
            var row = visit.row
            row.placeID = placeIDs[visit.place]
            try tables.insert(row)
        }
        if var workStays = work.stays {
            for k in workStays.indices { workStays[k].placeID = output.placeOfStay[workStays[k].id].map { placeIDs[$0] } ?? 0 }
            work.stays = workStays
        }
        // The timeline pass, when it runs after this one, points every trip at its visits' places itself (``refreshesTrips``).
        if lastWindow && refreshesTrips, try tables.refreshTripPlaces(device: work.deviceID) { work.tripsRepointed = true }
        // The timeline pass names every place once Google's are written; without it (`--pass places`), this pass names
        // them (with the timeline pass's default reach: its parameters are not this pass's).
        if lastWindow && namesPlaces {
            let timeline = TimelinePass.Parameters()
            try PlaceNames.assign(device: work.deviceID, store: store, zones: work.zones, joinM: timeline.joinM, centreMinM: timeline.centreMinM)
        }
        return ["places": .count(output.places.count), "visits": .count(output.visitCount), "named_by_wifi": .count(output.namedByWifi),
                "with_locality": .count(output.withLocality)]
    }

    /// How far (metres) the centre of a stay of `points` fixes that reported `accuracy` metres on average may lie from
    /// where the phone was: the accuracy over the square root of the number of fixes (the error of a mean of
    /// independent fixes). 3 wifi fixes at 65 m: 38 m; 600 GPS fixes at 10 m: 0.4 m.
    static func centreUncertainty(accuracy: Double, points: Int) -> Double {
        accuracy / Double(max(points, 1)).squareRoot()
    }

    /// What the places pass reads (``run(_:store:)`` loads it).
    struct Input {
        /// Every stay of the device, by start.
        var stays: [StayRow]
        /// The user's place edits, oldest first.
        var edits: [PlaceEditRow]
        /// The wifi networks each stay's points saw, one dictionary per stay in order (SSID → points); only the last
        /// window of a rebuild names places, the others leave it empty.
        var ssids: [[String: Int]] = []
        /// The stored local offsets of the visits before the span, by visit id, with the times they were worked out for.
        var storedOffsets: [Int64: (startMs: Int64, endMs: Int64, start: UTCOffset?, end: UTCOffset?)] = [:]
        /// The stays whose stored visits are kept (a window that is not the last: those outside it), by id.
        var visitsLeft: Set<Int64> = []
        /// The fixes taken exactly at the start or end of a visit to write, by time (their recorded offsets).
        var fixes: [Int64: Fix] = [:]
        /// The app's visits of the device with their place ids (Google's), in time order: evidence that keeps two close
        /// places apart; read by the last window only, when `evidence` is on.
        var appVisits: [(placeID: String, startMs: Int64, endMs: Int64)] = []
        /// The app's region records (OwnTracks `waypoint`s and `transition`s, ``Store/evidenceEvents(device:fromMs:toMs:)``),
        /// in time order: a stay between a region's `leave` and its next `enter` is not at the region's place; read by
        /// the last window only, when `evidence` is on.
        var regionEvents: [EvidenceEvent] = []
        /// The mean accuracy (metres) the fixes of each stay reported, one per stay in order (nil: none reported);
        /// read by the last window only. Empty: not read (each stay's scatter is then its radius).
        var accuracies: [Double?] = []
    }

    /// A visit to write: its row (without its place id) and its place, an index into ``Output/places``.
    struct PlacedVisit {
        var row: VisitRow
        var place: Int
    }

    /// What the places pass writes.
    struct Output {
        /// The device's places, each under its stable id (the store moves one on a collision).
        var places: [PlaceRow] = []
        /// A visit for each stay of a place, but the stays in `visitsLeft`, in the order of the stays.
        var visits: [PlacedVisit] = []
        /// The place (index into `places`) of every stay that has one, by stay id.
        var placeOfStay: [Int64: Int] = [:]
        /// Visits (with those left as stored), places named after their wifi, places with a locality.
        var visitCount = 0
        var namedByWifi = 0
        var withLocality = 0
    }

    /// The device's places and visits from its stays: clusters the stays (``cluster(_:scatter:radius:maxRadius:scatterFactor:)``),
    /// applies the user's edits, names each place (the user's name, else its wifi, else `near <locality>`, else its
    /// coordinates) and makes a visit of each stay of a place, with its local offsets.
    static func placeStays(_ work: DeviceWork, _ input: Input, _ parameters: Parameters) -> Output {
        let stays = input.stays.map { (lat: $0.lat, lon: $0.lon, start: $0.startMs, end: $0.endMs) }
        let ids = input.stays.map { $0.id ?? 0 }
        // A stay's scatter: its own radius, or `radius_m` when it has too few fixes to show one.
        // A stay of few fixes whose reported accuracy is poor has a centre uncertain by more than its fixes' spread
        // (``centreUncertainty(accuracy:points:)``): its scatter is at least `accuracy_factor` times that.
        let scatter = input.stays.enumerated().map { k, s in
            guard s.points >= 3 else { return max(s.radiusM, parameters.radiusM) }
            guard parameters.accuracyFactor > 0, k < input.accuracies.count, let accuracy = input.accuracies[k] else { return s.radiusM }
            return max(s.radiusM, parameters.accuracyFactor * Self.centreUncertainty(accuracy: accuracy, points: s.points))
        }
        // Names (the wifi seen), the evidence that keeps close places apart and the visits before the window are left
        // to the last window of this rebuild, which writes everything again from the clustering of every stay: a later
        // window may join an earlier stay's place to another, so the last window rewrites every place and visit,
        // points every trip at its visits' places (`refreshTripPlaces`) and the metrics pass counts every day's places
        // again.
        let lastWindow = !work.windowsFollow
        var evidence: [StayEvidence]? = nil
        if lastWindow && parameters.evidence > 0 && input.ssids.count == stays.count {
            evidence = Self.evidence(stays, wifi: input.ssids, appVisits: input.appVisits)
        }
        var separation = Separation()
        separation.wallVisits = Int(parameters.wallVisits)
        separation.weakReachM = parameters.weakReachM
        separation.weakAheadM = parameters.weakAheadM
        if evidence != nil && parameters.regions > 0 { (separation.regions, separation.outside) = Self.regionAbsences(input.regionEvents, stays: stays) }
        let weak = input.stays.map { $0.points < 3 }  // a position from one or two fixes
        var (places, assignment) = Self.cluster(stays, scatter: scatter, radius: parameters.radiusM, maxRadius: parameters.mergeMaxM,
                                                scatterFactor: parameters.scatterFactor, evidence: evidence,
                                                weak: weak, separation: separation)
        /// The offset of a visit's start or end at `ms`: that of the fix taken then (its own, else its zone's), else,
        /// when the time was estimated (an arrival across a silence, an app's visit), that of the zone at the visit's
        /// centre at that instant. (Before, an estimated time took UTC: 2,920 of 6,736 visit times in real files.)
        func offset(_ ms: Int64, _ lat: Double, _ lon: Double) -> UTCOffset {
            guard let fix = input.fixes[ms] else { return UTCOffset(seconds: work.zones.offset(atMs: ms, latitude: lat, longitude: lon)) }
            if let own = fix.utcOffset { return own }
            return UTCOffset(seconds: work.zones.offset(atMs: ms, latitude: fix.lat, longitude: fix.lon))
        }
        for (k, s) in stays.enumerated() {
            if lastWindow, k < input.ssids.count {
                for (ssid, n) in input.ssids[k] { places[assignment[k]].ssidCounts[ssid, default: 0] += n }
            }
            let p = places[assignment[k]]
            places[assignment[k]].radius = max(p.radius, Geo.distance(p.lat, p.lon, s.lat, s.lon))
        }
        // The user's edits (`tripline places rename|merge|forget`), found again by the centre the place had when it
        // was edited: the nearest place of this clustering within `radius_m` of it. All are resolved against the
        // clustering before any is applied, so one edit never moves the place another one looks for.
        let (finalOf, kept, userNames) = Self.applyEdits(input.edits, to: places, radius: parameters.radiusM)
        let (founder, totals) = Self.totals(stays, assignment, places, finalOf: finalOf, kept: kept, weak: weak)
        var output = Output()
        for (f, p) in kept.enumerated() {
            let centre = places[p], t = totals[f]
            let ssid = t.ssidCounts.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }?.key
            let whereIs = Self.whereIs(centre.lat, centre.lon)
            // A readable default: the wifi network's own name, else `near <locality>`, else the coordinates; the
            // user's name wins.
            let wifi = NameText.imported(ssid)
            let name = userNames[p] ?? wifi ?? whereIs.locality.map { "near " + $0 + whereIs.offset } ?? Self.coordinateName(centre.lat, centre.lon)
            if wifi != nil { output.namedByWifi += 1 }
            if whereIs.locality != nil { output.withLocality += 1 }
            output.places.append(
                PlaceRow(id: StableID.make(.place, deviceKey: work.deviceKey, startMs: stays[founder[p]].start), deviceID: work.deviceID,
                         name: name, ssid: ssid, lat: centre.lat, lon: centre.lon, radiusM: t.radius, visits: t.visits,
                         totalDwellS: Int64(t.dwell.rounded()), firstVisitMs: t.first, lastVisitMs: t.last,
                         countryCode: whereIs.countryCode, country: whereIs.country, locality: whereIs.locality))
        }
        for (k, s) in stays.enumerated() {
            let f = finalOf[assignment[k]]
            guard f >= 0 else { continue }  // a forgotten place: no visit (the stay and its points stay stored)
            output.placeOfStay[ids[k]] = f
            output.visitCount += 1
            if input.visitsLeft.contains(ids[k]) { continue }
            // A visit is its stay (same id) with a place, local offsets and where it is.
            let whereIs = Self.whereIs(s.lat, s.lon)
            var offsets: (start: UTCOffset?, end: UTCOffset?)
            if let o = input.storedOffsets[ids[k]], o.startMs == s.start, o.endMs == s.end {
                offsets = (o.start, o.end)
            } else {
                offsets = (offset(s.start, s.lat, s.lon), offset(s.end, s.lat, s.lon))
            }
            output.visits.append(PlacedVisit(
                row: VisitRow(id: ids[k], deviceID: work.deviceID, placeID: nil, startMs: s.start, endMs: s.end,
                              startUTCOffset: offsets.start, endUTCOffset: offsets.end, lat: s.lat, lon: s.lon,
                              radiusM: input.stays[k].radiusM, points: input.stays[k].points, countryCode: whereIs.countryCode,
                              country: whereIs.country, locality: whereIs.locality),
                place: f))
        }
        return output
    }

    /// Each final place's visits, dwell, first and last visit, radius and wifi counts, from its stays (and those of
    /// the places merged into it); `founder`: the first stay of each raw place. The radius is that of the stays with
    /// 3 fixes or more (`weak` false) when the place has any: a lone fix that joined it from 350 m away
    /// (`weak_reach_m`) does not widen it (the timeline pass joins app visits and names within a place's radius).
    static func totals(_ stays: [(lat: Double, lon: Double, start: Int64, end: Int64)], _ assignment: [Int], _ places: [Place],
                       finalOf: [Int], kept: [Int], weak: [Bool]? = nil) -> (founder: [Int], totals: [Place]) {
        var founder = [Int](repeating: -1, count: places.count)
        var totals = [Place](repeating: Place(lat: 0, lon: 0, weight: 0), count: kept.count)
        var hasStrong = [Bool](repeating: false, count: kept.count)
        if let weak {
            for k in stays.indices where !weak[k] && finalOf[assignment[k]] >= 0 { hasStrong[finalOf[assignment[k]]] = true }
        }
        for (k, s) in stays.enumerated() {
            if founder[assignment[k]] < 0 { founder[assignment[k]] = k }
            let f = finalOf[assignment[k]]
            guard f >= 0 else { continue }
            let centre = places[kept[f]]
            totals[f].visits += 1
            totals[f].dwell += Double(s.end - s.start) / 1000
            totals[f].first = min(totals[f].first, s.start)
            totals[f].last = max(totals[f].last, s.end)
            if weak?[k] == true && hasStrong[f] { continue }
            totals[f].radius = max(totals[f].radius, Geo.distance(centre.lat, centre.lon, s.lat, s.lon))
        }
        for p in places.indices where finalOf[p] >= 0 {
            for (ssid, n) in places[p].ssidCounts { totals[finalOf[p]].ssidCounts[ssid, default: 0] += n }
        }
        return (founder, totals)
    }

    /// The user's place edits applied to a clustering: the final places (`kept`, indices into `places`), each raw
    /// place's index into `kept` (`finalOf`, -1 = forgotten) and the names the user gave (by raw place).
    static func applyEdits(_ edits: [PlaceEditRow], to places: [Place], radius: Double) -> (finalOf: [Int], kept: [Int], userNames: [Int: String]) {
        func nearest(_ lat: Double, _ lon: Double) -> Int? {
            var best: Int? = nil
            var bestD = radius
            for (k, p) in places.enumerated() {
                let d = Geo.distance(p.lat, p.lon, lat, lon)
                if d <= bestD { bestD = d; best = k }
            }
            return best
        }
        var target = Array(places.indices)  // the place a place's visits go to (itself unless merged)
        func resolve(_ p: Int) -> Int {
            var p = p
            while target[p] != p { p = target[p] }
            return p
        }
        var forgotten = Set<Int>()
        var userNames: [Int: String] = [:]
        for edit in edits {
            guard let a = nearest(edit.lat, edit.lon) else { continue }  // the place is gone (its visits changed)
            switch edit.action {
            case .rename:
                if let name = edit.name { userNames[a] = name }
            case .merge:
                guard let lat = edit.intoLat, let lon = edit.intoLon, let b = nearest(lat, lon) else { continue }
                let into = resolve(b)
                if into != a && resolve(a) == a { target[a] = into }  // never a cycle
            case .forget:
                forgotten.insert(a)
            }
        }
        // The final places: every place that was not merged into another, with the visits of those merged into it.
        var finalOf = [Int](repeating: -1, count: places.count)  // raw place → index into `kept`, -1 = forgotten
        var kept: [Int] = []
        for p in places.indices where resolve(p) == p && !forgotten.contains(p) {
            finalOf[p] = kept.count
            kept.append(p)
        }
        for p in places.indices { finalOf[p] = finalOf[resolve(p)] }
        return (finalOf, kept, userNames)
    }

    /// Country (code and English name) and locality of a centre. The country is the Natural Earth unit the point is
    /// in (nil at sea); the locality is the GeoNames city, town or village it is in or nearest to
    /// (`Geography.locality`), nil when that is more than `localityMaxM` away (open sea, deserts, ice).
    /// `offset` is where the centre lies from the locality's own point when that is at least `offsetMinM` away
    /// (" (8 km NW)", else empty): a city holds many places, and "near Beijing" alone named 285 of one user's 378.
    static func whereIs(_ lat: Double, _ lon: Double) -> (countryCode: String?, country: String?, locality: String?, offset: String) {
        let country = Geography.country(latitude: lat, longitude: lon)
        var locality: String? = nil
        var offset = ""
        if let place = Geography.locality(latitude: lat, longitude: lon), place.distanceMeters <= localityMaxM {
            let name = place.name.trimmingCharacters(in: " \t\r\n")
            locality = name.isEmpty ? nil : name
            offset = Self.offset(from: place.location.latitude, place.location.longitude, to: lat, lon)
        }
        return (country?.code, country?.name, locality, offset)
    }

    /// A place this far (metres) from its locality's point says how far and which way (1.5 km: about a town's core).
    static let offsetMinM = 1500.0

    /// " (8 km NW)": the distance (one decimal below 10 km) and the 8-point compass bearing from the locality's point
    /// to the centre, or "" when the centre is within `offsetMinM` of it.
    static func offset(from lat0: Double, _ lon0: Double, to lat: Double, _ lon: Double) -> String {
        let d = Geo.distance(lat0, lon0, lat, lon)
        guard d >= offsetMinM else { return "" }
        let dy = lat - lat0
        var dLon = lon - lon0
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        let bearing = Geo.planarBearing(east: dLon * Geo.cosLatitude(lat0), north: dy)
        let points = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
        let compass = points[Int((bearing + 22.5) / 45) % 8]
        let km = d / 1000
        let distance = km < 9.95 ? NumberText.fixed(km, decimals: 1) : String(Int(km.rounded()))
        return " (" + distance + " km " + compass + ")"
    }

    /// A locality farther than this from the centre is not named (50 km: beyond it "near X" misleads more than it
    /// helps; every inhabited area of Europe has a place of ≥ 1000 people closer).
    static let localityMaxM = 50_000.0

    static func coordinateName(_ lat: Double, _ lon: Double) -> String {
        func f(_ v: Double) -> String {
            let r = (v * 100_000).rounded() / 100_000
            var s = String(r)
            if let dot = s.firstIndex(of: ".") {
                let decimals = s.distance(from: dot, to: s.endIndex) - 1
                if decimals < 5 { s += String(repeating: "0", count: 5 - decimals) }
            }
            return s
        }
        return f(lat) + ", " + f(lon)
    }
}
