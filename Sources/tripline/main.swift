#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import TriplineCLI

// The arguments as bytes: Swift's `CommandLine.arguments` repairs bytes that are not UTF-8 (see `main(rawArguments:)`).
let raw: [[UInt8]] = (1..<Int(CommandLine.argc)).map { i in
    guard let argument = CommandLine.unsafeArgv[i] else { return [] }
    return UnsafeRawBufferPointer(start: argument, count: strlen(argument)).map { $0 }
}
exit(TriplineCLI.main(rawArguments: raw, context: .process()))
