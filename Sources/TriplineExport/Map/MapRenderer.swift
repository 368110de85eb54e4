#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineGeography
import TriplineStore


/// A rendered map page and what it shows.
public struct MapDocument: Sendable {
    /// The page: one self-contained HTML file in UTF-8.
    public var bytes: [UInt8]
    /// Trips and visits in the selection, and how many of them the map draws (a trip with neither points nor
    /// start and end coordinates cannot be drawn).
    public var tripsSelected: Int
    public var tripsDrawn: Int
    public var visitsSelected: Int
    public var visitsDrawn: Int
    /// Places labelled on the map.
    public var labels: Int
    /// Points read from `points` for the trips' geometry, and vertices written after simplification.
    public var pointsRead: Int
    public var verticesWritten: Int
    /// Base-layer parts drawn (land rings, coastline and border lines) and populated places handed to the script
    /// for city labels.
    public var baseShapes: Int = 0
    public var cityCandidates: Int = 0
    /// Stored rows and points left out for impossible values (non-finite or out-of-range coordinates, times,
    /// offsets, distances; only an edited database has them).
    public var skipped: Int = 0
}

/// Renders the offline HTML map of a selection of the database: an inline SVG in Web Mercator with trips
/// coloured by mode, visits sized by time spent, labelled top places, a scale bar, pan and zoom, a day / month
/// picker, and beside it the period's summary and a per-day distance chart.
///
/// The pipeline: ``MapLoader`` reads the selection (trips, legs, visits, places, days) and a bounded sample of the
/// trips' points → ``MapView/fit(xs:ys:parameters:)`` fits the opening view to the sample's quantile extent →
/// ``MapPage`` streams each trip's points again (``TripPointStream``), simplifies each leg with Douglas–Peucker at
/// ``MapParameters/tolerancePx``, rounds it to the grid and writes it, then the rest of the page.
/// The same database and parameters always give the same bytes.
public struct MapRenderer {
    public let store: Store
    public var parameters: MapParameters

    public init(store: Store, parameters: MapParameters = MapParameters()) {
        self.store = store
        self.parameters = parameters
    }

    /// Renders the page for `filter`.
    /// - Throws: ``MapError`` when the filter names an unknown device; ``DatabaseError`` when reading fails.
    /// - Complexity: O(points in the selected trips) time; memory O(pre-simplified vertices + trips + visits).
    public func render(filter: RecordFilter = RecordFilter()) throws -> MapDocument {
        let selection = try MapLoader(store: store, parameters: parameters).load(filter)
        var page = MapPage(selection: selection, parameters: parameters, points: try TripPointStream(store: store, zones: parameters.privacyZones))
        // The days' timelines are the `day` report's own entries (the exports' selection, local times and zones).
        let exporter = try Exporter(store: store, privacyZones: parameters.privacyZones)
        let days = page.dataDays()
        let timeline = try DayTimeline.entries(exporter: exporter, days: days, device: filter.device)
        page.timeline = days.compactMap { day in timeline[day].map { (day, $0) } }
        return try page.render()
    }

    /// Renders the page and writes it to `path` atomically (a temporary file in the same directory, renamed over
    /// `path`), so a reader never sees half a page.
    @discardableResult
    public func write(filter: RecordFilter = RecordFilter(), to path: String) throws -> MapDocument {
        let document = try render(filter: filter)
        try MapRenderer.writeAtomically(document.bytes, to: path)
        return document
    }

    /// Writes through ``ExportDestination``: the path must be new or a regular file (never a link, FIFO or device),
    /// the temporary file beside it is removed if the write fails or a signal ends the process.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        let destination = try ExportDestination(path: path, stdout: OutputStream(sink: { _ in }))
        do {
            try destination.writer.append(bytes: bytes)
            try destination.commit()
        } catch {
            destination.discard()
            throw error
        }
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line breaks.
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let end = scalars.lastIndex(where: { !isSpace($0) })!
        return String(scalars[start...end])
    }
}
