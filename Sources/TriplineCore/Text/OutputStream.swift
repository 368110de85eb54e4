#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Where a command writes. Passed in (never a mutable static), so tests can run commands in-process and capture output.
public final class OutputStream: TextOutputStream {
    private let sink: (UnsafeRawBufferPointer) -> Void
    /// Whether this stream is an interactive terminal (progress lines and aligned tables are for terminals).
    public let isTerminal: Bool

    public init(isTerminal: Bool = false, sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.sink = sink
        self.isTerminal = isTerminal
        self.errorBox = ErrorBox()
    }

    /// The first write error on this stream (errno), if any: a full disk or a closed pipe behind standard output.
    public var writeError: Int32? { errorBox.code }
    private let errorBox: ErrorBox
    private final class ErrorBox { var code: Int32? }

    /// A stream over a file descriptor (1 = stdout, 2 = stderr). A failed write is remembered in ``writeError``.
    public static func fileDescriptor(_ fd: Int32) -> OutputStream {
        let box = ErrorBox()
        let stream = OutputStream(isTerminal: FileSystem.isTerminal(fd), errorBox: box) { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    if box.code == nil { box.code = errno }
                    return
                }
                offset += n
            }
        }
        return stream
    }

    private init(isTerminal: Bool, errorBox: ErrorBox, sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.sink = sink
        self.isTerminal = isTerminal
        self.errorBox = errorBox
    }

    /// A stream that collects what is written into a buffer (for tests).
    public static func capturing(_ buffer: CaptureBuffer) -> OutputStream {
        OutputStream { buffer.bytes.append(contentsOf: $0) }
    }

    public func write(_ string: String) {
        var string = string
        string.withUTF8 { sink(UnsafeRawBufferPointer($0)) }
    }

    public func write(bytes: UnsafeRawBufferPointer) {
        sink(bytes)
    }
}

/// The bytes a capturing ``OutputStream`` collected.
public final class CaptureBuffer {
    public var bytes: [UInt8] = []
    public init() {}
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
