#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Tripline

exit(TriplineCLI.main(Array(CommandLine.arguments.dropFirst()), context: .process()))
