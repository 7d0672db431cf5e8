import Hex

/// Recognises text that is not UTF-8 from its first bytes, so a file saved as
/// UTF-16 or UTF-32 gets an error that says so instead of "unexpected character".
///
/// RFC 8259, section 8.1: "JSON text exchanged between systems that are not part
/// of a closed ecosystem MUST be encoded using UTF-8". A UTF-16 or UTF-32 file
/// shows itself by its byte-order mark or, without one, by zero bytes: a JSON
/// text starts with an ASCII character, which those encodings pad with zeros
/// (the detection RFC 4627, section 3, describes).
enum TextEncoding {
    struct Detected {
        /// "UTF-16 little-endian".
        var name: String
        /// Why we think so, for the message.
        var evidence: String
    }

    static let utf8ByteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    static func nonUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Detected? {
        func at(_ i: Int) -> UInt8? { i < bytes.count ? bytes[i] : nil }
        let marks: [(bytes: [UInt8], name: String)] = [
            ([0x00, 0x00, 0xFE, 0xFF], "UTF-32 big-endian"),
            ([0xFF, 0xFE, 0x00, 0x00], "UTF-32 little-endian"),
            ([0xFE, 0xFF], "UTF-16 big-endian"),
            ([0xFF, 0xFE], "UTF-16 little-endian"),
        ]
        for mark in marks where bytes.starts(with: mark.bytes) {
            let shown = Hex.bytes(mark.bytes, separator: " ")
            return Detected(name: mark.name, evidence: "it starts with the byte-order mark \(shown)")
        }
        guard let b0 = at(0), let b1 = at(1) else { return nil }
        let padding = "its first characters are padded with zero bytes"
        if let b2 = at(2), let b3 = at(3) {
            if b0 == 0, b1 == 0, b2 == 0, b3 != 0 { return Detected(name: "UTF-32 big-endian", evidence: padding) }
            if b0 != 0, b1 == 0, b2 == 0, b3 == 0 { return Detected(name: "UTF-32 little-endian", evidence: padding) }
        }
        if b0 == 0, b1 != 0 { return Detected(name: "UTF-16 big-endian", evidence: padding) }
        if b0 != 0, b1 == 0 { return Detected(name: "UTF-16 little-endian", evidence: padding) }
        return nil
    }
}
