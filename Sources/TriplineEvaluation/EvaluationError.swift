/// An input of an evaluation that cannot be used: a corpus folder that is not one, a file of a corpus that did not
/// import, a line of a tuning grid. Says which file, folder or line and what is wrong.
public enum EvaluationError: Error, CustomStringConvertible, Equatable {
    /// A corpus file the importer could not read (`path`, the importer's own message).
    case importFailed(path: String, message: String?)
    /// A folder given as GeoLife users that is neither a user folder nor a folder of them.
    case notGeoLife(folder: String, exists: Bool)
    /// A line of a leave-one-user-out grid that is not `pass.key=v1,v2,…`.
    case gridLine(Int, String)
    /// A database that holds none of a truth file's devices (their names).
    case noTruthDevice([String])

    public var description: String {
        switch self {
        case .importFailed(let path, let message): return "\(path): \(message ?? "could not be imported")"
        case .notGeoLife(let folder, false): return "\(folder): no such GeoLife user folder"
        case .notGeoLife(let folder, true): return "\(folder): neither a GeoLife user folder (Trajectory/, labels.txt) nor a folder of them"
        case .gridLine(let n, let text): return "grid line \(n): '\(text)' is not pass.key=v1,v2,…"
        case .noTruthDevice(let names):
            return "the database holds none of the truth's devices (\(names.joined(separator: ", "))): nothing to score; "
                + "import the simulation's archives into it (or give the database they went into)"
        }
    }
}
