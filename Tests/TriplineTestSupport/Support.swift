import TriplineCore
import TriplineCLI

/// A fresh temporary directory per test, removed by the OS's tmp cleaning; tests never share files.
package func temporaryDirectory() throws -> String {
    try FileSystem.temporaryDirectory(prefix: "tripline-test")
}

/// Runs the CLI in-process and returns its exit status, stdout and stderr.
package func runCLI(_ arguments: [String], environment: [String: String] = [:]) -> (status: Int32, stdout: String, stderr: String) {
    let out = CaptureBuffer()
    let err = CaptureBuffer()
    let context = CommandContext(stdout: .capturing(out), stderr: .capturing(err), environment: environment)
    let status = TriplineCLI.main(arguments, context: context)
    return (status, out.text, err.text)
}
