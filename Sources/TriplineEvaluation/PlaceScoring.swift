import TriplineCore
import TriplineStore
import TriplineSimulator

/// How well a rebuild's places are the places of a reference (Google's place ids, the simulation's truth places):
/// is one place one place (docs/PASSES.md, "places", issue 29 item 1).
///
/// Each reference visit is given the rebuilt visit of its device that overlaps it longest in time (none when no
/// rebuilt visit overlaps it), and so that visit's place. Then:
/// - a reference place with at least ``minVisits`` matched visits is **one place** when all of them are in one
///   rebuilt place;
/// - a rebuilt place is **mixed** when its matched visits are of two reference places or more;
/// - **purity** = Σ over rebuilt places of the matched visits of its most frequent reference place / matched visits;
///   **completeness** = Σ over reference places of its matched visits in its most frequent rebuilt place / matched
///   visits (cluster purity and inverse purity, by visit).
public struct PlaceAgreement: Sendable, CustomStringConvertible {
    /// Reference places with at least ``minVisits`` matched visits, and those all in one rebuilt place.
    public var referencePlaces = 0
    public var onePlace = 0
    /// Rebuilt places holding a matched visit, and those holding visits of two reference places or more.
    public var rebuiltPlaces = 0
    public var mixed = 0
    public var referenceVisits = 0
    public var matchedVisits = 0
    var pureVisits = 0
    var completeVisits = 0

    /// A reference place is judged once it has this many matched visits (the "3 visits or more").
    public static let minVisits = 3

    public init() {}

    public var onePlaceShare: Double { referencePlaces == 0 ? .nan : Double(onePlace) / Double(referencePlaces) }
    public var mixedShare: Double { rebuiltPlaces == 0 ? .nan : Double(mixed) / Double(rebuiltPlaces) }
    public var purity: Double { matchedVisits == 0 ? .nan : Double(pureVisits) / Double(matchedVisits) }
    public var completeness: Double { matchedVisits == 0 ? .nan : Double(completeVisits) / Double(matchedVisits) }

    /// Adds another device's (or corpus's) counts.
    public static func + (a: PlaceAgreement, b: PlaceAgreement) -> PlaceAgreement {
        var s = a
        s.referencePlaces += b.referencePlaces; s.onePlace += b.onePlace
        s.rebuiltPlaces += b.rebuiltPlaces; s.mixed += b.mixed
        s.referenceVisits += b.referenceVisits; s.matchedVisits += b.matchedVisits
        s.pureVisits += b.pureVisits; s.completeVisits += b.completeVisits
        return s
    }

    public var description: String {
        func f(_ v: Double) -> String { v.isNaN ? "n/a" : NumberText.fixed(v, decimals: 3) }
        return "one place \(onePlace)/\(referencePlaces) (\(f(onePlaceShare))), mixed \(mixed)/\(rebuiltPlaces) (\(f(mixedShare))), "
            + "purity \(f(purity)), completeness \(f(completeness)), visits matched \(matchedVisits)/\(referenceVisits)"
    }

    /// A visit: its place (a reference key or a rebuilt place id) and its time span.
    public struct Visit: Sendable {
        public var place: String
        public var startMs: Int64
        public var endMs: Int64
        public init(place: String, startMs: Int64, endMs: Int64) {
            self.place = place
            self.startMs = startMs
            self.endMs = endMs
        }
    }

    /// The agreement of one device's rebuilt visits with its reference visits (each list of one device).
    public static func of(reference: [Visit], rebuilt: [Visit]) -> PlaceAgreement {
        var out = PlaceAgreement()
        out.referenceVisits = reference.count
        let found = rebuilt.sorted { ($0.startMs, $0.endMs, $0.place) < ($1.startMs, $1.endMs, $1.place) }
        let starts = found.map(\.startMs)
        let longest = found.map { $0.endMs - $0.startMs }.max() ?? 0
        // reference place → rebuilt place → matched visits
        var table: [String: [String: Int]] = [:]
        for r in reference {
            // The rebuilt visits starting before r ends and no earlier than the longest one before r starts.
            var hi = starts.count
            var lo = 0
            while lo < hi { let m = (lo + hi) / 2; if starts[m] < r.endMs { lo = m + 1 } else { hi = m } }
            var best: (overlap: Int64, place: String)? = nil
            var k = lo - 1
            while k >= 0 && found[k].startMs >= r.startMs - longest {
                let o = min(found[k].endMs, r.endMs) - max(found[k].startMs, r.startMs)
                if o > 0 && (best == nil || o > best!.overlap || (o == best!.overlap && found[k].place < best!.place)) {
                    best = (o, found[k].place)
                }
                k -= 1
            }
            guard let best else { continue }
            out.matchedVisits += 1
            table[r.place, default: [:]][best.place, default: 0] += 1
        }
        var byRebuilt: [String: [String: Int]] = [:]
        for (ref, row) in table {
            let n = row.values.reduce(0, +)
            out.completeVisits += row.values.max() ?? 0
            if n >= minVisits {
                out.referencePlaces += 1
                if row.count == 1 { out.onePlace += 1 }
            }
            for (place, c) in row { byRebuilt[place, default: [:]][ref] = c }
        }
        for (_, row) in byRebuilt {
            out.rebuiltPlaces += 1
            if row.count > 1 { out.mixed += 1 }
            out.pureVisits += row.values.max() ?? 0
        }
        return out
    }

    // MARK: Reading a store

    /// The rebuilt visits of a device (place id as text), those with a place.
    public static func rebuiltVisits(device: Int64, store: Store) throws -> [Visit] {
        try store.visits(device: device).compactMap { v in v.placeID.map { Visit(place: String($0), startMs: v.startMs, endMs: v.endMs) } }
    }

    /// Google's own visits of a device (`hierarchyLevel` 0, with a place id), as the import stored them (app events
    /// `visit` of a `google/…` import): Google's place id and time span.
    public static func googleVisits(device: Int64, store: Store) throws -> [Visit] {
        try store.googlePlaceVisits(device: device).map { Visit(place: $0.placeID, startMs: $0.startMs, endMs: $0.endMs) }
    }

    /// The agreement of every device of the store with Google's place ids.
    public static func againstGoogle(store: Store) throws -> PlaceAgreement {
        var total = PlaceAgreement()
        for device in try devices(store) {
            total = total + of(reference: try googleVisits(device: device, store: store), rebuilt: try rebuiltVisits(device: device, store: store))
        }
        return total
    }

    /// The agreement with a simulation's truth places: each simulated device's true stays of 5 minutes or more
    /// (as ``SimulationEvaluation/score(_:store:devices:)`` scores visits) against its rebuilt visits.
    ///
    /// `recorded`: only the true stays the device could show, those that ``Observability/hidden(trips:stays:records:)``
    /// does not hide (a stay hidden in one silence with a trip no record saw, such as a shop visit and the walk to the
    /// next shop with no fix at either, cannot be a visit of its own).
    public static func againstTruth(_ truth: SimulationTruth, store: Store, recorded: Bool = false) throws -> PlaceAgreement {
        var total = PlaceAgreement()
        for name in Set(truth.stays.map(\.device)).sorted() {
            guard let device = try SimulationEvaluation.resolveDevice(name, store: store) else { continue }
            var silences: [(Int64, Int64)] = []
            if recorded {
                let records = try store.recordTimes(device: device).sorted()
                silences = Observability.hidden(trips: truth.trips.filter { $0.device == name },
                                                stays: truth.stays.filter { $0.device == name }, records: records).silences
            }
            /// Within a silence that hides a trip, with no record of its own.
            func hidden(_ s: TruthStay) -> Bool { silences.contains { $0.0 < s.startMs && $0.1 > s.endMs } }
            let reference = truth.stays.filter { $0.device == name && $0.durationS >= 300 && !hidden($0) }
                .map { Visit(place: String($0.placeID), startMs: $0.startMs, endMs: $0.endMs) }
            total = total + of(reference: reference, rebuilt: try rebuiltVisits(device: device, store: store))
        }
        return total
    }

    static func devices(_ store: Store) throws -> [Int64] {
        try store.deviceNames().keys.sorted()
    }
}

/// How places of one device crowd each other: places sharing a display name with another place of their device,
/// and places with another place of their device within ``nearM``.
public struct PlaceCrowding: Sendable, CustomStringConvertible {
    public var places = 0
    public var sharingName = 0
    public var withNeighbour = 0

    /// The distance: two places this close are suspect (metres).
    public static let nearM = 150.0

    public init() {}

    /// Adds another store's counts.
    public static func + (a: PlaceCrowding, b: PlaceCrowding) -> PlaceCrowding {
        var s = a
        s.places += b.places
        s.sharingName += b.sharingName
        s.withNeighbour += b.withNeighbour
        return s
    }

    public var description: String { "places \(places), sharing a name \(sharingName), another within \(Int(Self.nearM)) m \(withNeighbour)" }

    public static func of(store: Store) throws -> PlaceCrowding {
        var out = PlaceCrowding()
        var rows: [(device: Int64, name: String, lat: Double, lon: Double)] = []
        try store.forEachPlace(device: nil) { rows.append(($0.row.deviceID, $0.row.name, $0.row.lat, $0.row.lon)) }
        rows.sort { ($0.device, $0.name, $0.lat, $0.lon) < ($1.device, $1.name, $1.lat, $1.lon) }
        out.places = rows.count
        var names: [String: Int] = [:]
        for r in rows { names["\(r.device)\u{1}\(r.name)", default: 0] += 1 }
        out.sharingName = rows.filter { names["\($0.device)\u{1}\($0.name)"]! > 1 }.count
        // Sorted by latitude: only the places within `nearM` of latitude are compared.
        let byLat = rows.sorted { $0.lat < $1.lat }
        let dLat = nearM / 111_000
        for (k, r) in byLat.enumerated() {
            var near = false
            var j = k - 1
            while !near && j >= 0 && r.lat - byLat[j].lat <= dLat {
                near = byLat[j].device == r.device && Geo.distance(r.lat, r.lon, byLat[j].lat, byLat[j].lon) <= nearM
                j -= 1
            }
            j = k + 1
            while !near && j < byLat.count && byLat[j].lat - r.lat <= dLat {
                near = byLat[j].device == r.device && Geo.distance(r.lat, r.lon, byLat[j].lat, byLat[j].lon) <= nearM
                j += 1
            }
            if near { out.withNeighbour += 1 }
        }
        return out
    }
}
