import Testing
@testable import TriplineStore
import TriplineTestSupport

/// `RowText`: texts bound without SQLite's copy must arrive intact, row after row, including values too long for its
/// buffer (bound with a copy instead), empty strings, NULLs and non-ASCII text.
@Suite struct RowTextTests {
    @Test func textsOfEachRowArriveIntact() throws {
        let dir = try temporaryDirectory()
        let store = try Store(path: dir + "/t.sqlite")
        #expect(try store.db.scalarInt("PRAGMA page_size") == Int64(Store.pageSize))
        try store.db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT, c TEXT)")
        let insert = try store.db.prepare("INSERT INTO t(id, a, b, c) VALUES (?, ?, ?, ?)")
        let texts = RowText(capacity: 64)
        var expected: [(String?, String?, String?)] = []
        try store.db.transaction {
            for i in 0..<200 {
                let a: String? = i % 7 == 0 ? nil : "driving-\(i)"
                let b: String? = i % 5 == 0 ? "" : "Zürich café \(i) ☕"
                // Every 10th row has a value longer than the buffer; the others nearly fill it together.
                let c: String? = i % 10 == 3 ? String(repeating: "x\(i % 10)", count: 100) : "{\"speed_accuracy\":\(i)}"
                texts.clear()
                insert.bindInt(Int64(i), at: 1)
                texts.bind(a, to: insert, at: 2)
                texts.bind(b, to: insert, at: 3)
                texts.bind(c, to: insert, at: 4)
                _ = try insert.step()
                insert.reset()
                expected.append((a, b, c))
            }
        }
        let read = try store.db.prepare("SELECT id, a, b, c FROM t ORDER BY id")
        var n = 0
        while try read.step() {
            let i = read.int(0)
            #expect(read.text(1) == expected[i].0, "row \(i) a")
            #expect(read.text(2) == expected[i].1, "row \(i) b")
            #expect(read.text(3) == expected[i].2, "row \(i) c")
            n += 1
        }
        #expect(n == 200)
    }
}
