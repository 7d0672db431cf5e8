import Foundation

/// The frames Firmware/PROTOCOL.md prints, read from the document when a test runs, so
/// an edit of its worked examples that breaks one fails here (the C suite reads them
/// the same way: Firmware/tests/test_protocol_doc.c). A frame is a run of two-digit
/// hex tokens that starts with the magic `A5`, in inline code or a code block; it may
/// cross a line break.
struct ProtocolDocument {
    struct Frame {
        var bytes: [UInt8]
        var line: Int
        /// The frame type byte (after magic, length and sequence).
        var type: UInt8? { bytes.count > 3 ? bytes[3] : nil }
    }

    enum LoadError: Error, CustomStringConvertible {
        case unreadable(path: String)
        case noFrames(path: String)
        var description: String {
            switch self {
            case .unreadable(let path): "\(path): cannot read the protocol document"
            case .noFrames(let path): "\(path): no frame (a run of hex bytes starting A5) found"
            }
        }
    }

    /// Firmware/PROTOCOL.md of this package, found from this file.
    static let path = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Firmware/PROTOCOL.md").path

    let frames: [Frame]

    init(path: String = ProtocolDocument.path) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw LoadError.unreadable(path: path) }
        let text = Array(data)
        var frames: [Frame] = []
        var line = 1
        var i = 0
        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        let ends: Set<UInt8> = [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "`")]
        // A two-digit token at `at`, ending at whitespace, a backtick or the end.
        func token(_ at: Int) -> UInt8? {
            guard at + 1 < text.count, let hi = hex(text[at]), let lo = hex(text[at + 1]) else { return nil }
            guard at + 2 == text.count || ends.contains(text[at + 2]) else { return nil }
            return hi << 4 | lo
        }
        while i < text.count {
            if text[i] == UInt8(ascii: "\n") { line += 1 }
            let boundary = i == 0 || ends.contains(text[i - 1])
            guard boundary, token(i) == 0xA5 else {
                i += 1
                continue
            }
            var frame = Frame(bytes: [], line: line)
            var j = i
            while let v = token(j) {
                frame.bytes.append(v)
                j += 2
                if j >= text.count || text[j] == UInt8(ascii: "`") { break }
                while j < text.count, text[j] == UInt8(ascii: " ") || text[j] == UInt8(ascii: "\n") {
                    if text[j] == UInt8(ascii: "\n") { line += 1 }
                    j += 1
                }
            }
            frames.append(frame)
            i = max(j, i + 1)
        }
        guard !frames.isEmpty else { throw LoadError.noFrames(path: path) }
        self.frames = frames
    }

    /// The first printed frame of a type.
    func first(type: UInt8) -> Frame? { frames.first { $0.type == type } }
}
