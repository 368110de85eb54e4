/// A JSON syntax error: where (byte offset into the input) and why.
public struct JSONError: Error, CustomStringConvertible, Sendable, Equatable {
    public var offset: Int
    public var message: String
    /// True when the input ended before the value was complete (a file cut mid-write).
    public var atEnd: Bool
    public var description: String { "byte \(offset): \(message)" }
}

/// The kind of a node on a ``JSONTape``.
public enum JSONKind: UInt8, Sendable {
    case null, bool, number, string, array, object
}

/// One node of a parsed value, in document order. Containers are followed by their children; `next` is the
/// index just past the node's whole subtree, so siblings are reached without walking children.
public struct JSONNode: Sendable {
    public var kind: JSONKind
    /// ``JSONNode/Flags`` bits.
    public var flags: UInt8
    /// Byte range in the input: for strings the bytes between the quotes, otherwise the whole token or container.
    public var start: Int
    public var end: Int
    /// Index of the node after this node's subtree.
    public var next: Int32
    /// Members of an object (pairs), elements of an array; for `bool`, 1 = true.
    public var count: Int32

    public enum Flags {
        /// A string that contains backslash escapes (decoding is needed).
        public static let escaped: UInt8 = 1
        /// A string with bytes that are not valid UTF-8, or an unpaired `\uD800`-style surrogate escape.
        public static let badUnicode: UInt8 = 2
        /// An object with the same key twice.
        public static let duplicateKey: UInt8 = 4
        /// A number written `NaN`, `Infinity` or `-Infinity` (accepted only by the lenient parser).
        public static let nonFinite: UInt8 = 8
        /// A number with a fraction or exponent.
        public static let fractional: UInt8 = 16
        /// A number node made by the direct Overland scanner (never on a tape) whose value was parsed while it was
        /// scanned: `next` (low half) and `count` (high half) hold the Double's bits. See ``JSONParser/double(_:)``.
        public static let valueInline: UInt8 = 32
    }
}

/// The nodes of one parsed value (reused between records to avoid allocation), plus what was questionable in it.
public struct JSONTape: Sendable {
    public var nodes: [JSONNode] = []
    /// Flags of every node on the tape OR-ed together: a record with `duplicateKey`, `badUnicode` or `nonFinite`
    /// anywhere is known without a walk.
    public var problems: UInt8 = 0

    public init() { nodes.reserveCapacity(256) }

    public mutating func removeAll() {
        nodes.removeAll(keepingCapacity: true)
        problems = 0
    }
}

extension JSONError {
    func atEndError(_ count: Int) -> JSONError {
        var copy = self
        copy.atEnd = true
        return copy
    }
}
