import Testing
import TriplineCore
import TriplineTestSupport

/// The domain words stored as text (`AppEventKind`, `DeviceOrigin`): the text read back is the value written, and a
/// word with a case never comes back as `other` (`==` compares the text, so a `switch` is what tells them apart).
@Suite struct DomainWordsTests {
    static let kinds: [AppEventKind] = [.trip, .visit, .current, .tripProgress, .action, .transition, .waypoint, .routePoint, .unknown]

    @Test func everyAppEventKindReadsBackAsItself() {
        for kind in Self.kinds {
            let read = AppEventKind(rawValue: kind.rawValue)
            #expect(read == kind, "\(kind.rawValue)")
            if case .other = read { Issue.record("'\(kind.rawValue)' was read as .other") }
        }
        // The stored words of docs/SCHEMA.md.
        #expect(Self.kinds.map(\.rawValue) == ["trip", "visit", "current", "trip_progress", "action", "transition", "waypoint", "route_point", "unknown"])
        #expect(Set(Self.kinds.map(\.rawValue)).count == Self.kinds.count)
    }

    @Test func anyOtherWordIsKeptAsWritten() {
        for word in ["lwt", "paused_location_updates", "Trip", "", "trip "] {
            guard case .other(let kept) = AppEventKind(rawValue: word) else {
                Issue.record("'\(word)' was read as a kind of its own")
                continue
            }
            #expect(kept == word)
        }
    }

    static let origins: [DeviceOrigin] = [
        .deviceID, .deviceOption, .folder, .subfolder, .file, .stdin, .archive, .folderOfTheFile, .googleDefault,
        .googleDeviceTag(tag: "-551234567", base: "Takeout"), .path, .usernameDevice, .topic, .tid, .geoLifeUserFolder,
        .simulator, .synthetic, .benchmark,
    ]

    @Test func everyDeviceOriginReadsBackAsItself() {
        for origin in Self.origins {
            let read = DeviceOrigin(rawValue: origin.rawValue)
            #expect(read == origin, "\(origin.rawValue)")
            if case .other = read { Issue.record("'\(origin.rawValue)' was read as .other") }
        }
        #expect(Set(Self.origins.map(\.rawValue)).count == Self.origins.count)
        #expect(DeviceOrigin.deviceOption.rawValue == "--device")
        #expect(DeviceOrigin.googleDeviceTag(tag: "-551234567", base: "Takeout").rawValue
            == "deviceTag -551234567 in Records.json (Takeout is the tag with the most fixes)")
        #expect(DeviceOrigin(rawValue: "written by a newer tripline") == .other("written by a newer tripline"))
    }

    /// The origins that name a device from outside the data (the importer gives their app events to the file's one
    /// point device).
    @Test func fallbackOrigins() {
        #expect(Self.origins.filter(\.isFallback) == [.deviceOption, .folder, .subfolder, .file, .stdin, .archive, .folderOfTheFile, .googleDefault])
    }
}
