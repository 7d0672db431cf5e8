import Glibc
import Hex

/// Command-line arguments (and other byte strings from the system, such as file
/// names) as Swift strings that say exactly which bytes they were.
///
/// A file name on Linux is bytes, not text: `x\xE9.ahap` (Latin-1 é) is a valid name
/// that is not UTF-8. `CommandLine.arguments` repairs such bytes to U+FFFD, so the
/// program would open, or create, another file than the one named. Here each byte of
/// an invalid sequence becomes a scalar of its own in the last 128 code points of
/// plane 16's private use area (U+10FF80 + byte − 0x80, as Python's surrogateescape
/// does with lone surrogates, which Swift strings cannot hold), and `bytes(of:)`
/// turns it back into that byte. A valid argument that itself holds one of those
/// scalars has its UTF-8 bytes escaped the same way, so decoding is exact for every
/// byte string: `bytes(of: string(from: b)) == b`.
public enum ArgumentText {
    /// The scalar that stands for byte 0x00 (only bytes 0x80...0xFF are ever escaped:
    /// ASCII is always valid UTF-8).
    static let escapeBase: UInt32 = 0x10FF00
    static let escapes: ClosedRange<UInt32> = 0x10FF80...0x10FFFF

    /// The process's arguments (the program's name first), decoded as above.
    public static func commandLineArguments() -> [String] {
        (0..<Int(CommandLine.argc)).map { index in
            guard let pointer = CommandLine.unsafeArgv[index] else { return "" }
            return string(from: Array(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))))
        }
    }

    /// The process's environment, decoded the same way: a directory named by a variable
    /// (`XDG_CONFIG_HOME`, `HOME`) is the bytes it holds. The first of a repeated name wins,
    /// as with getenv.
    public static func environment() -> [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
            if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
                let name = string(from: Array(bytes[..<equals]))
                if result[name] == nil { result[name] = string(from: Array(bytes[(equals + 1)...])) }
            }
            entry += 1
        }
        return result
    }

    /// `bytes` as a string: valid UTF-8 as itself, every other byte escaped.
    public static func string(from bytes: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            if let (scalar, length) = decodeScalar(bytes, at: index), !escapes.contains(scalar.value) {
                scalars.append(scalar)
                index += length
            } else {
                // An invalid sequence escapes byte by byte; a valid escape scalar escapes all
                // of its (four) bytes, so that no scalar in `escapes` is ever literal.
                let length = decodeScalar(bytes, at: index)?.length ?? 1
                for byte in bytes[index..<index + length] { scalars.append(escape(byte)) }
                index += length
            }
        }
        return String(scalars)
    }

    /// The bytes `text` stands for: the inverse of `string(from:)`.
    /// `text`'s bytes as a C string that `free` releases (an argv entry for exec or
    /// spawn); a NUL inside ends it, as it would in any argv.
    public static func cString(_ text: String) -> UnsafeMutablePointer<CChar>? {
        let bytes = bytes(of: text)
        guard let out = malloc(bytes.count + 1)?.assumingMemoryBound(to: CChar.self) else { return nil }
        for (i, b) in bytes.enumerated() { out[i] = CChar(bitPattern: b) }
        out[bytes.count] = 0
        return out
    }

    public static func bytes(of text: String) -> [UInt8] {
        guard text.unicodeScalars.contains(where: { escapes.contains($0.value) }) else { return Array(text.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if let byte = escapedByte(scalar) { out.append(byte) } else { out += Array(String(scalar).utf8) }
        }
        return out
    }

    /// The byte an escape scalar stands for; nil for any other scalar.
    public static func escapedByte(_ scalar: Unicode.Scalar) -> UInt8? {
        escapes.contains(scalar.value) ? UInt8(truncatingIfNeeded: scalar.value - escapeBase) : nil
    }

    /// `bytes` for a message: valid UTF-8 as itself, every other byte as `\xE9`.
    /// (Terminal controls are the caller's to escape, with the rest of its line.)
    public static func display(_ bytes: [UInt8]) -> String { display(string(from: bytes)) }

    /// A decoded string for a message: its escape scalars as `\xE9`.
    public static func display(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { escapes.contains($0.value) }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if let byte = escapedByte(scalar) { out += "\\x" + Hex.digits(byte, width: 2) } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    private static func escape(_ byte: UInt8) -> Unicode.Scalar {
        // 0x10FF80...0x10FFFF are valid scalars; the fallback is unreachable.
        Unicode.Scalar(escapeBase + UInt32(byte)) ?? "\u{FFFD}"
    }

    /// One well-formed UTF-8 scalar at `index` (RFC 3629: no overlong forms, no
    /// surrogates, nothing past U+10FFFF) and its length; nil when the bytes there are
    /// not one.
    static func decodeScalar(_ bytes: [UInt8], at index: Int) -> (scalar: Unicode.Scalar, length: Int)? {
        let lead = bytes[index]
        if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
        let length: Int
        let second: ClosedRange<UInt8>
        switch lead {
        case 0xC2...0xDF: (length, second) = (2, 0x80...0xBF)
        case 0xE0: (length, second) = (3, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (length, second) = (3, 0x80...0xBF)
        case 0xED: (length, second) = (3, 0x80...0x9F)
        case 0xF0: (length, second) = (4, 0x90...0xBF)
        case 0xF1...0xF3: (length, second) = (4, 0x80...0xBF)
        case 0xF4: (length, second) = (4, 0x80...0x8F)
        default: return nil
        }
        guard index + length <= bytes.count, second.contains(bytes[index + 1]) else { return nil }
        var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard offset == 1 || (0x80...0xBF).contains(byte) else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }
}
