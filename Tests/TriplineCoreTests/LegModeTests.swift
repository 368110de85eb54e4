import Testing
import TriplineCore

/// The modes the rebuild names are one type (issue 24, domain words as types), whose raw values are the words stored
/// in `legs.mode` and `trips.mode` and written by the exports: they must not change.
@Suite struct LegModeTests {
    @Test func rawValuesAreTheStoredWords() {
        #expect(LegMode.allCases.map(\.rawValue) == ["walk", "run", "cycle", "car", "bus", "train", "vehicle", "plane", "boat", "unknown"])
    }

    @Test func classes() {
        #expect(LegMode.allCases.filter { $0.coarse == .foot } == [.walk, .run])
        #expect(LegMode.allCases.filter { $0.coarse == .bicycle } == [.cycle])
        #expect(LegMode.allCases.filter(\.isMotorised) == [.car, .bus, .train, .vehicle, .plane, .boat])
        #expect(LegMode.unknown.coarse == nil)
        #expect(LegMode.Coarse.allCases.map(\.rawValue) == ["foot", "bicycle", "motorized"])
    }
}
