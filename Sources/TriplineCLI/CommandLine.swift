#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore


/// What a command runs with: its output streams and environment.
public struct CommandContext {
    public var stdout: OutputStream
    public var stderr: OutputStream
    public var environment: [String: String]
    /// The directory Tripline's resources (Queries/, SampleData/) are looked up in first, when set.
    public var resourceRoot: String?
    /// `TRIPLINE_*` variables whose value is not UTF-8, shown escaped (`TRIPLINE_DB` would name another file):
    /// ``TriplineCLI/main(rawArguments:context:)`` refuses to run with one.
    public var environmentNotUTF8: [String] = []

    public init(stdout: OutputStream, stderr: OutputStream, environment: [String: String], resourceRoot: String? = nil) {
        self.stdout = stdout
        self.stderr = stderr
        self.environment = environment
        self.resourceRoot = resourceRoot
    }

    /// The process's own streams and environment.
    public static func process() -> CommandContext {
        var environment: [String: String] = [:]
        var pointer = environ
        var notUTF8: [String] = []
        while let entry = pointer.pointee {
            let bytes = UnsafeRawBufferPointer(start: entry, count: strlen(entry))
            let text = String(decoding: bytes, as: UTF8.self)
            if text.hasPrefix("TRIPLINE_"), String(validating: bytes, as: UTF8.self) == nil {
                notUTF8.append(Terminal.escapedPathBytes(Array(bytes)))
            }
            if let eq = text.firstIndex(of: "=") {
                environment[String(text[..<eq])] = String(text[text.index(after: eq)...])
            }
            pointer += 1
        }
        var context = CommandContext(stdout: .fileDescriptor(1), stderr: .fileDescriptor(2), environment: environment)
        context.environmentNotUTF8 = notUTF8
        return context
    }
}

/// An option a command accepts.
public struct OptionSpec: Sendable {
    /// Long name without dashes, such as `db`.
    public var name: String
    /// Short name without the dash, such as `o`.
    public var short: Character?
    /// The value's placeholder (`PATH`); nil for a flag that takes no value.
    public var valueName: String?
    public var help: String
    /// Whether the option may be given more than once (its values are collected).
    public var repeatable: Bool

    public init(_ name: String, short: Character? = nil, value: String? = nil, repeatable: Bool = false, help: String) {
        self.name = name
        self.short = short
        self.valueName = value
        self.help = help
        self.repeatable = repeatable
    }

    var isFlag: Bool { valueName == nil }
}

/// A positional argument a command accepts.
public struct ArgumentSpec: Sendable {
    public var name: String
    public var help: String
    public var optional: Bool
    public var variadic: Bool

    public init(_ name: String, optional: Bool = false, variadic: Bool = false, help: String) {
        self.name = name
        self.help = help
        self.optional = optional
        self.variadic = variadic
    }
}

/// The parsed command line of one command.
public struct ParsedArguments {
    public var options: [String: [String]] = [:]
    public var flags: Set<String> = []
    public var positionals: [String] = []

    /// The last value given for `name`, if any.
    public func value(_ name: String) -> String? { options[name]?.last }
    public func values(_ name: String) -> [String] { options[name] ?? [] }
    public func flag(_ name: String) -> Bool { flags.contains(name) }
}

/// A bad command line: printed as `Error: …`, the usage, and a pointer to `--help`; exit status 64.
public struct UsageError: Error, CustomStringConvertible {
    public var message: String
    public var command: String?
    public init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }
    public var description: String { message }
}

/// A failure that stops a command: printed as `Error: …`; exit status 1.
public struct CommandFailure: Error, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One subcommand: its name, help text, options and what it does.
public struct CommandSpec {
    public var name: String
    public var abstract: String
    public var discussion: String?
    public var arguments: [ArgumentSpec]
    public var options: [OptionSpec]
    public var run: (ParsedArguments, CommandContext) throws -> Int32

    public init(
        name: String, abstract: String, discussion: String? = nil, arguments: [ArgumentSpec] = [], options: [OptionSpec] = [],
        run: @escaping (ParsedArguments, CommandContext) throws -> Int32
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options + [OptionSpec("help", short: "h", help: "Show help information.")]
        self.run = run
    }

    var usageLine: String {
        var parts = ["tripline", name]
        if options.contains(where: { $0.name != "help" }) { parts.append("[<options>]") }
        for argument in arguments {
            var text = "<\(argument.name)>"
            if argument.variadic { text += " ..." }
            parts.append(argument.optional ? "[\(text)]" : text)
        }
        return parts.joined(separator: " ")
    }

    /// The help text, in swift-argument-parser's layout.
    public var help: String {
        var text = "OVERVIEW: \(abstract)\n"
        if let discussion { text += "\n\(discussion)\n" }
        text += "\nUSAGE: \(usageLine)\n"
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in arguments { text += HelpFormatter.row("<\(argument.name)>", argument.help) }
        }
        text += "\nOPTIONS:\n"
        for option in options {
            var left = option.short.map { "-\($0), " } ?? ""
            left += "--\(option.name)"
            if let valueName = option.valueName { left += " <\(valueName)>" }
            text += HelpFormatter.row(left, option.help)
        }
        return text
    }

    /// Parses `args` (the words after the command's name).
    // Long by design: one pass over the words (long and short options, values, `--`, positionals) sharing the cursor.
    public func parse(_ args: [String]) throws -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        var onlyPositionals = false
        func option(named name: String) throws -> OptionSpec {
            if let spec = options.first(where: { $0.name == name }) { return spec }
            var message = "Unknown option '--\(name)'"
            if let suggestion = HelpFormatter.closest(name, in: options.map(\.name)) {
                message += ". Did you mean '--\(suggestion)'?"
            }
            throw UsageError(message, command: self.name)
        }
        func store(_ spec: OptionSpec, _ value: String?) throws {
            if spec.isFlag {
                if value != nil { throw UsageError("Option '--\(spec.name)' takes no value", command: name) }
                result.flags.insert(spec.name)
                return
            }
            guard let value else {
                throw UsageError("Missing value for '--\(spec.name) <\(spec.valueName!)>'", command: name)
            }
            // An empty value is a script's unset variable (`--db "$DB"`, `-o "$OUT"`), never a name: taken as absent it
            // chose the default database, taken as a path it was the current folder or, for `simulate -o ""`, the root.
            guard !value.isEmpty else {
                throw UsageError("'--\(spec.name)' was given an empty value (an unset variable?); give a \(spec.valueName!) or leave the option out",
                                 command: name)
            }
            if !spec.repeatable, result.options[spec.name] != nil {
                throw UsageError("Option '--\(spec.name)' given more than once", command: name)
            }
            result.options[spec.name, default: []].append(value)
        }
        while index < args.count {
            let word = args[index]
            index += 1
            if onlyPositionals || word == "-" || !word.hasPrefix("-") {
                result.positionals.append(word)
                continue
            }
            if word == "--" {
                onlyPositionals = true
                continue
            }
            if word.hasPrefix("--") {
                let body = word.dropFirst(2)
                let name: String
                var inline: String?
                if let eq = body.firstIndex(of: "=") {
                    name = String(body[..<eq])
                    inline = String(body[body.index(after: eq)...])
                } else {
                    name = String(body)
                }
                let spec = try option(named: name)
                if !spec.isFlag, inline == nil {
                    guard index < args.count else {
                        throw UsageError("Missing value for '--\(spec.name) <\(spec.valueName!)>'", command: self.name)
                    }
                    inline = args[index]
                    index += 1
                }
                try store(spec, inline)
            } else {
                // Short options: -o FILE, -oFILE, -h.
                let letters = Array(word.dropFirst())
                guard let first = letters.first, let spec = options.first(where: { $0.short == first }) else {
                    throw UsageError("Unknown option '\(word)'", command: name)
                }
                if spec.isFlag {
                    guard letters.count == 1 else { throw UsageError("Unknown option '\(word)'", command: name) }
                    try store(spec, nil)
                } else if letters.count > 1 {
                    try store(spec, String(letters.dropFirst()))
                } else {
                    guard index < args.count else {
                        throw UsageError("Missing value for '-\(first) <\(spec.valueName!)>'", command: name)
                    }
                    try store(spec, args[index])
                    index += 1
                }
            }
        }
        if result.flag("help") { return result }
        let required = arguments.filter { !$0.optional }.count
        if result.positionals.count < required {
            let missing = arguments.filter { !$0.optional }[result.positionals.count]
            throw UsageError("Missing expected argument '<\(missing.name)>'", command: name)
        }
        if !(arguments.last?.variadic ?? false), result.positionals.count > arguments.count {
            throw UsageError("Unexpected argument '\(result.positionals[arguments.count])'", command: name)
        }
        return result
    }
}

enum HelpFormatter {
    static func row(_ left: String, _ right: String) -> String {
        let pad = 26
        let lines = right.split(separator: "\n", omittingEmptySubsequences: false)
        var text = "  " + left
        if left.count + 2 >= pad {
            text += "\n" + String(repeating: " ", count: pad)
        } else {
            text += String(repeating: " ", count: pad - left.count - 2)
        }
        text += lines.first.map(String.init) ?? ""
        for line in lines.dropFirst() { text += "\n" + String(repeating: " ", count: pad) + line }
        return text + "\n"
    }

    /// The candidate closest to `word` by edit distance, when it is close enough to be a likely typo.
    static func closest(_ word: String, in candidates: [String]) -> String? {
        var best: (String, Int)?
        for candidate in candidates {
            let d = editDistance(Array(word), Array(candidate))
            if d <= max(2, word.count / 3), best == nil || d < best!.1 { best = (candidate, d) }
        }
        return best?.0
    }

    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
