@preconcurrency import Glibc

/// A candidate a learned decision judged during a rebuild, as its training export logs it (``CandidateLog``).
public protocol LoggedCandidate: Sendable {
    var startMs: Int64 { get }
    var endMs: Int64 { get }
}

/// Collects the candidates of a learned decision during a rebuild (`evaluate --dump-trip-cuts`, `--dump-pauses`): a
/// development aid, never set by `rebuild`. Passes of several devices may add at once.
public final class CandidateLog<Entry: LoggedCandidate>: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var rows: [Entry] = []

    public init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }

    func add(_ entry: Entry) {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        rows.append(entry)
    }

    /// The candidates logged so far, in time order; the log is emptied.
    public func take() -> [Entry] {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        let out = rows.sorted { ($0.startMs, $0.endMs) < ($1.startMs, $1.endMs) }
        rows.removeAll()
        return out
    }
}
