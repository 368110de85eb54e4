/// Text formatted in memory, with ``ByteWriter``'s byte-level number, time and escape formatting, where nothing
/// can fail: a buffer in memory grows instead of flushing to a sink, so none of its appends throws, and its
/// signatures say so (callers write no `try?` that would hide a failure if there ever were one).
///
/// A ``ByteWriter`` writes to a file descriptor or a stream that can fail (a full disk, a closed pipe), so its
/// appends throw; this is the other case, kept as its own type: the text of a SQL function's result, a GPX
/// description's number, a GeoPackage time column, a quoted string.
public final class TextBuffer {
    /// A memory ``ByteWriter``: its appends reserve room by growing the buffer, never by flushing, so they never
    /// throw (``ByteWriter/makeRoom(_:)``).
    private let writer: ByteWriter

    public init(capacity: Int = 256) {
        writer = ByteWriter.memory(capacity: capacity)
    }

    /// Runs one append of the memory writer, which cannot fail.
    @inline(__always)
    private func infallible(_ append: () throws -> Void) {
        do {
            try append()
        } catch {
            preconditionFailure("a ByteWriter in memory grows instead of flushing, so it cannot fail: \(error)")
        }
    }

    /// The text written since the last ``clear()``.
    public var text: String { writer.withBytes { String(decoding: $0, as: UTF8.self) } }

    /// The bytes written since the last ``clear()``.
    public var bytes: [UInt8] { writer.bytes }

    /// Forgets what was written.
    public func clear() { writer.clear() }

    /// One byte.
    public func append(_ byte: UInt8) { infallible { try writer.append(byte) } }

    /// A literal's UTF-8 bytes.
    public func append(_ literal: StaticString) { infallible { try writer.append(literal) } }

    /// A string's UTF-8 bytes, unescaped.
    public func append(raw string: String) { infallible { try writer.append(raw: string) } }

    /// A number with at most `decimals` decimals, no exponent (``ByteWriter/append(fixed:decimals:)``).
    public func append(fixed value: Double, decimals: Int) { infallible { try writer.append(fixed: value, decimals: decimals) } }

    /// A local day as `YYYY-MM-DD` (``ByteWriter/append(date:)``).
    public func append(date day: Int) { infallible { try writer.append(date: day) } }

    /// A time as ISO 8601 at an offset (``ByteWriter/append(time:offset:)``).
    public func append(time ms: Int64, offset: UTCOffset?) { infallible { try writer.append(time: ms, offset: offset) } }

    /// Text escaped for a format (``ByteWriter/append(escaped:_:)``).
    public func append(escaped text: String, _ escaping: TextEscaping) { infallible { try writer.append(escaped: text, escaping) } }

    /// A JSON string literal, or `null` (``ByteWriter/append(jsonString:)``).
    public func append(jsonString text: String?) { infallible { try writer.append(jsonString: text) } }
}
