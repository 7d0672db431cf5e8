/// Hexadecimal text, the one way hapbridge writes and reads it: register values and I2C
/// addresses in messages ("0x5A"), flash addresses ("0x7000"), USB IDs as lsusb writes
/// them ("2341:0036"), byte lists ("1E 95 87"), and the byte strings of the simavr
/// harness's line protocol, the emulation log and umockdev's records ("a0ff").
///
/// Every form is a width and a case: the width is the fewest digits written (zeros in
/// front; a wider value keeps every digit, so nothing is ever cut), the case is the
/// letters' (upper in hapbridge's own messages; lower where the other side writes it so:
/// lsusb's IDs, sysfs, the harness). Reading takes either case and nothing else: no
/// sign, no prefix, no spaces, so text a device or a file gave is never half-read.
public enum Hex {
    /// The case of the letters A–F.
    public enum Case: Sendable {
        case upper, lower
    }

    /// `value`'s digits, at least `width` of them: `digits(0x3C, width: 2)` is "3C",
    /// `digits(0x36, width: 4, case: .lower)` "0036", `digits(0x7F, case: .lower)` "7f".
    /// A negative value is its magnitude's digits after a "-".
    public static func digits(_ value: some BinaryInteger, width: Int = 1, case letters: Case = .upper) -> String {
        let magnitude = String(value.magnitude, radix: 16, uppercase: letters == .upper)
        let padded = String(repeating: "0", count: max(0, width - magnitude.count)) + magnitude
        return value < 0 ? "-" + padded : padded
    }

    /// `value` as a C literal writes it: "0x" and its digits, at least `width` of them
    /// (`literal(0x5A, width: 2)` is "0x5A", `literal(0x7000, width: 4)` "0x7000").
    public static func literal(_ value: some BinaryInteger, width: Int = 1, case letters: Case = .upper) -> String {
        value < 0 ? "-0x" + digits(value.magnitude, width: width, case: letters) : "0x" + digits(value, width: width, case: letters)
    }

    /// Two digits for each byte, `separator` between them: `bytes([0x1E, 0x95, 0x87],
    /// separator: " ")` is "1E 95 87", `bytes([0xA0, 0xFF], case: .lower)` "a0ff".
    public static func bytes(_ bytes: some Sequence<UInt8>, separator: String = "", case letters: Case = .upper) -> String {
        let alphabet = letters == .upper ? upperDigits : lowerDigits
        var out: [UInt8] = []
        let separator = Array(separator.utf8)
        for b in bytes {
            if !out.isEmpty { out += separator }
            out.append(alphabet[Int(b >> 4)])
            out.append(alphabet[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` writes as pairs of digits, either case, nothing between them
    /// (what `bytes(_:)` writes); nil unless the text is only hex digits, an even number.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        decode(ascii: text.utf8)
    }

    /// As `decode(_:)`, over the text's bytes (an Intel HEX record as read from its file).
    public static func decode(ascii text: some Collection<UInt8>) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 2)
        var high: UInt8?
        for c in text {
            guard let v = nibble(c) else { return nil }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return out
    }

    /// The whole number `text` writes in hex digits, either case: "5a" is 90. Nil for an
    /// empty text, anything but digits (no sign, no "0x", no spaces, unlike `Int(_:radix:)`,
    /// which takes a sign) or a value `T` cannot hold.
    public static func value<T: FixedWidthInteger>(_ text: some StringProtocol, as type: T.Type = T.self) -> T? {
        guard !text.isEmpty else { return nil }
        var result: T = 0
        for c in text.utf8 {
            guard let v = nibble(c) else { return nil }
            let (shifted, over) = result.multipliedReportingOverflow(by: 16)
            let (sum, carry) = shifted.addingReportingOverflow(T(v))
            guard !over, !carry else { return nil }
            result = sum
        }
        return result
    }

    /// One digit's value, either case; nil for any other byte.
    public static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static let upperDigits = Array("0123456789ABCDEF".utf8)
    private static let lowerDigits = Array("0123456789abcdef".utf8)
}
