import CSQLite

/// Text bound for one step without SQLite copying it: each value is copied into this buffer and bound with
/// `SQLITE_STATIC`, which spares SQLite a malloc, a copy and a free per value (bulk inserts bind several short texts a
/// row). Call ``clear()`` before binding each row's texts; every text parameter bound through this buffer must then
/// be bound again for the row (or the statement reset with ``Statement/reset()``, which clears bindings) before the
/// next step, since the buffer is reused. A value that does not fit is bound with a copy (`SQLITE_TRANSIENT`).
/// Used by one thread at a time, like its statement.
public final class RowText {
    /// The buffer and, in its first word, how many bytes of it the current row uses (kept behind a pointer so the
    /// hot path pays no run-time exclusivity checks on class properties).
    private let storage: UnsafeMutableRawPointer
    private let capacity: Int

    public init(capacity: Int = 4096) {
        self.capacity = capacity
        storage = UnsafeMutableRawPointer.allocate(byteCount: capacity + 8, alignment: 8)
        storage.storeBytes(of: 0, as: Int.self)
    }

    deinit { storage.deallocate() }

    /// Starts a new row: the previous row's texts may be overwritten from now on.
    @inline(__always) public func clear() { storage.storeBytes(of: 0, as: Int.self) }

    /// Binds `value` (NULL when nil) to parameter `index` of `statement` for the next step.
    @inline(__always) public func bind(_ value: String?, to statement: Statement, at index: Int32) {
        guard var value else {
            sqlite3_bind_null(statement.handle, index)
            return
        }
        value.withUTF8 { bytes in bind(bytes: UnsafeRawBufferPointer(bytes), to: statement, at: index) }
    }

    /// Binds UTF-8 `bytes` as text to parameter `index` of `s` for the next step; returns SQLite's result code.
    @inline(__always) func bindChecked(bytes: UnsafeRawBufferPointer, to s: OpaquePointer, at index: Int32) -> Int32 {
        let used = storage.load(as: Int.self)
        let count = bytes.count
        guard count > 0, used + count <= capacity, let source = bytes.baseAddress else {
            return bindTextBytes(s, index, bytes.baseAddress, count)
        }
        let target = storage + 8 + used
        target.copyMemory(from: source, byteCount: count)
        storage.storeBytes(of: used + count, as: Int.self)
        return sqlite3_bind_text(s, index, target.assumingMemoryBound(to: CChar.self), Int32(count), nil)  // nil = SQLITE_STATIC
    }

    /// Binds UTF-8 `bytes` as text to parameter `index` of `statement` for the next step.
    @inline(__always) public func bind(bytes: UnsafeRawBufferPointer, to statement: Statement, at index: Int32) {
        let used = storage.load(as: Int.self)
        let count = bytes.count
        guard count > 0, used + count <= capacity, let source = bytes.baseAddress else {
            _ = bindTextBytes(statement.handle, index, bytes.baseAddress, count)
            return
        }
        let target = storage + 8 + used
        target.copyMemory(from: source, byteCount: count)
        storage.storeBytes(of: used + count, as: Int.self)
        sqlite3_bind_text(statement.handle, index, target.assumingMemoryBound(to: CChar.self), Int32(count), nil)  // nil destructor = SQLITE_STATIC
    }
}
