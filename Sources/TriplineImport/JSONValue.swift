/// A parsed JSON value as a plain Swift tree, for tests, tools and small documents (not for hot loops).
public indirect enum JSONValue: Equatable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Members in document order; duplicate keys are resolved last-wins (the earlier member is removed).
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y || (x.isNaN && y.isNaN)
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            // Key order is not significant.
            guard x.count == y.count else { return false }
            let sx = x.sorted { $0.0 < $1.0 }
            let sy = y.sorted { $0.0 < $1.0 }
            return zip(sx, sy).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let d): return "\(d)"
        case .string(let s): return "\"\(s)\""
        case .array(let a): return "[" + a.map(\.description).joined(separator: ",") + "]"
        case .object(let o): return "{" + o.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
        }
    }

    /// Parses a complete document strictly (RFC 8259: one value, only whitespace around it).
    /// - Throws: ``JSONError`` naming the byte offset and the reason.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 512) throws(JSONError) -> JSONValue {
        let result: Result<JSONValue, JSONError> = bytes.withUnsafeBytes { raw in
            var parser = JSONParser(raw, maxDepth: maxDepth, lenient: false)
            var tape = JSONTape()
            do throws(JSONError) {
                try parser.parseValue(into: &tape)
                parser.skipWhitespace()
                guard parser.atEnd else { throw parser.fail("unexpected data after the JSON value") }
            } catch {
                return .failure(error)
            }
            var index = 0
            return .success(build(parser, tape, &index))
        }
        return try result.get()
    }

    static func build(_ p: JSONParser, _ tape: JSONTape, _ index: inout Int) -> JSONValue {
        let node = tape.nodes[index]
        index += 1
        switch node.kind {
        case .null: return .null
        case .bool: return .bool(node.count == 1)
        case .number: return .number(p.double(node))
        case .string: return .string(p.string(node))
        case .array:
            var items: [JSONValue] = []
            for _ in 0..<node.count { items.append(build(p, tape, &index)) }
            return .array(items)
        case .object:
            var members: [(String, JSONValue)] = []
            for _ in 0..<node.count {
                let key = p.string(tape.nodes[index])
                index += 1
                let value = build(p, tape, &index)
                if node.flags & JSONNode.Flags.duplicateKey != 0 { members.removeAll { $0.0 == key } }
                members.append((key, value))
            }
            return .object(members)
        }
    }
}
