#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineCLI

/// A fresh temporary directory per test (tests never share files), inside one directory for the whole test process
/// that is removed when the process exits: `swift test` leaves nothing in `/tmp` (25,000 folders had piled up).
package func temporaryDirectory() throws -> String {
    try FileSystem.temporaryDirectory(prefix: "t", in: TestScratch.root)
}

/// The test process's scratch directory, created on first use (a `static let` is initialised once, thread-safely)
/// and removed at exit.
enum TestScratch {
    static let root: String = {
        let made = (try? FileSystem.temporaryDirectory(prefix: "tripline-test")) ?? "/tmp"
        if made != "/tmp" {
            chmod(made, 0o755)  // tests that run the binary as `nobody` share some folders inside it
            atexit { FileSystem.removeTree(TestScratch.root) }
        }
        return made
    }()
}

/// Runs the CLI in-process and returns its exit status, stdout and stderr.
package func runCLI(_ arguments: [String], environment: [String: String] = [:]) -> (status: Int32, stdout: String, stderr: String) {
    let out = CaptureBuffer()
    let err = CaptureBuffer()
    let context = CommandContext(stdout: .capturing(out), stderr: .capturing(err), environment: environment)
    let status = TriplineCLI.main(arguments, context: context)
    return (status, out.text, err.text)
}
