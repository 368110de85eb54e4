import Testing
@testable import TriplineStore
@testable import TriplinePasses
@testable import TriplineGeography
import TriplineTestSupport

/// Places and visits are named from the offline geography: country and locality pinned for known coordinates, and a
/// simulated trip abroad (Berlin → Paris by train) names both ends.
@Suite struct PlaceNamesTests {
    @Test(arguments: [
        (52.5219, 13.4132, "DE", "Germany", "Berlin"),
        (52.5400, 13.4200, "DE", "Germany", "Berlin"),  // Prenzlauer Berg: a district of Berlin, named Berlin
        (48.8606, 2.3376, "FR", "France", "Paris"),
        (47.3779, 8.5403, "CH", "Switzerland", "Zürich"),
        (45.4642, 9.1900, "IT", "Italy", "Milan"),
        (64.1466, -21.9426, "IS", "Iceland", "Reykjavík"),
        (-18.1416, 178.4415, "FJ", "Fiji", "Suva"),
    ])
    func knownCoordinates(lat: Double, lon: Double, code: String, country: String, locality: String) {
        let named = PlacesPass.whereIs(lat, lon)
        #expect(named.countryCode == code)
        #expect(named.country == country)
        #expect(named.locality == locality, "\(lat), \(lon)")
    }

    /// A place away from its locality's point says how far and which way, so that a city's many places differ.
    @Test func offsetFromTheLocalitysPoint() {
        #expect(PlacesPass.offset(from: 39.9042, 116.4074, to: 39.9042, 116.4150) == "")  // 650 m: no offset
        #expect(PlacesPass.offset(from: 39.9042, 116.4074, to: 39.9842, 116.3074) == " (12 km NW)")
        #expect(PlacesPass.offset(from: 52.5200, 13.4050, to: 52.5200, 13.4800) == " (5.1 km E)")
        #expect(PlacesPass.offset(from: 52.5200, 13.4050, to: 52.4900, 13.4050) == " (3.3 km S)")
        // Across the antimeridian the short way: Suva's point to a place east of 180°.
        #expect(PlacesPass.offset(from: -18.1416, 178.4415, to: -18.1416, -179.9) == " (175 km E)")
        #expect(PlacesPass.whereIs(39.9842, 116.3074).offset.hasSuffix(" km NW)"))
    }

    @Test func openSeaHasNoCountryNorLocality() {
        let named = PlacesPass.whereIs(35.0, -40.0)  // mid-Atlantic
        #expect(named.countryCode == nil && named.country == nil && named.locality == nil)
    }

    @Test func localityPrefersTheCityOverAVillageNextToThePoint() throws {
        // Berlin (3.4 M) covers its districts; a point 40 km out is in its own town.
        #expect(Geography.locality(latitude: 52.5219, longitude: 13.4132)?.name == "Berlin")
        let out = try #require(Geography.locality(latitude: 52.3906, longitude: 13.0645))  // Potsdam centre
        #expect(out.name == "Potsdam")
        let near = Geography.populatedPlaces(latitude: 52.5219, longitude: 13.4132, withinMeters: 5000)
        #expect(!near.isEmpty)
        #expect(zip(near, near.dropFirst()).allSatisfy { $0.distanceMeters <= $1.distanceMeters })
        #expect(near.allSatisfy { $0.distanceMeters <= 5000 })
    }

    @Test func placesInABoxAcrossTheAntimeridian() {
        // Chukotka and western Alaska: Anadyr (177.5° E) and Nome (165.4° W) on either side of ±180°.
        let bering = GeoBox(minLatitude: 60, minLongitude: 170, maxLatitude: 70, maxLongitude: -160)
        let found = Geography.populatedPlaces(in: bering, minimumPopulation: 3000, limit: 20)
        let names = Set(found.map(\.name))
        #expect(names.contains("Anadyr") && names.contains("Nome"), "\(names)")
        #expect(zip(found, found.dropFirst()).allSatisfy { $0.population >= $1.population })
        #expect(found.allSatisfy { $0.location.longitude >= 170 || $0.location.longitude <= -160 })
        #expect(found.allSatisfy { $0.population >= 3000 })
    }

    @Test func tripAbroadNamesBothEnds() throws {
        let store = try SampleTracks.tripAbroad()
        try rebuild(store, timezone: "Europe/Berlin")
        let places = try store.db.prepare("SELECT name, country_code, country, locality FROM places ORDER BY first_visit_ms")
        var rows: [[String?]] = []
        while try places.step() { rows.append((0..<4).map { places.text(Int32($0)) }) }
        #expect(rows.count == 2)
        #expect(rows.first == ["HomeNet", "DE", "Germany", "Berlin"])
        #expect(rows.last == ["near Paris", "FR", "France", "Paris"])
        #expect(try count(store, "SELECT count(*) FROM visits WHERE country IS NULL OR locality IS NULL") == 0)
        #expect(try count(store, "SELECT count(DISTINCT country_code) FROM visits") == 2)
    }
}
