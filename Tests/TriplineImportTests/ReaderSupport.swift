import TriplineImport
import TriplineTestSupport

/// Reader-test shorthands: text as bytes, a read context with a fixed now, and detection plus parsing in one.
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

func context(_ device: String = "dev", path: String? = nil) -> ReadContext {
    ReadContext(path: path ?? device, fallbackDevice: (device, .deviceOption), nowMs: testNow)
}

func parse(_ text: String, _ device: String = "dev", path: String? = nil) -> ParseOutput {
    FormatDetector.parse(bytes(text), context: context(device, path: path))
}
