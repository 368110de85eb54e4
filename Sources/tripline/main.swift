#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import TriplineCLI

exit(TriplineCLI.main(Array(CommandLine.arguments.dropFirst()), context: .process()))
