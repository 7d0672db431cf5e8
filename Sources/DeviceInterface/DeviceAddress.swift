internal import CHapbridgeProtocol

/// Where a device is, as a user writes it on the command line or in a HIL script.
///
/// ```
/// sim                   the simulated bridge board (in process)
/// usb                   the only (or first) bridge board on USB
/// usb:SERIAL            the bridge board with this serial number
/// usb:BUS-PORT[.PORT]   the bridge board on this USB port (as `lsusb -t` and sysfs
///                       name it: 1-2, 3-1.4); stays the same across re-plugging into
///                       the same socket, unlike the device number
/// SCHEME, SCHEME:SERIAL a hosted adapter (`hostedSchemes`), the DRV2605 on its I2C
///                       (the firmware core hosted in process): the first one plugged
///                       in, or the one with this serial
/// ```
/// A serial number that looks like a port path can be written `usb:serial=1-2`.
public enum DeviceAddress: Sendable, Hashable, CustomStringConvertible {
    case simulated
    case usb(USBSelector)
    /// An I2C adapter with no microcontroller, whose firmware core runs in this process:
    /// `scheme` is one of `hostedSchemes` (as parsed, in lower case), `serial` nil for the
    /// first one plugged in.
    case hosted(scheme: String, serial: String?)

    /// The schemes of the hosted adapters, the one list the parser, the descriptions and
    /// the error text take them from: `DeviceCatalog.hostedAdapters` must register an
    /// adapter for each, and no other (DevicesTests checks both ways). Lower case, and
    /// never `sim`, `simulated` or `usb`.
    public static let hostedSchemes = ["ftdi"]

    public enum USBSelector: Sendable, Hashable {
        /// The only board, or the first one found.
        case any
        case serial(String)
        /// Bus number and the chain of port numbers from the root hub.
        case port(bus: UInt8, ports: [UInt8])
    }

    public var description: String {
        switch self {
        case .simulated: "sim"
        case .usb(.any): "usb"
        case .usb(.serial(let s)): Self.looksLikePortPath(s) ? "usb:serial=\(s)" : "usb:\(s)"
        case .usb(.port(let bus, let ports)): "usb:\(Self.portPath(bus: bus, ports: ports))"
        case .hosted(let scheme, let serial): serial.map { "\(scheme):\($0)" } ?? scheme
        }
    }

    /// The sysfs / `lsusb -t` name of a port: "1-2.3".
    public static func portPath(bus: UInt8, ports: [UInt8]) -> String {
        "\(bus)-" + ports.map(String.init).joined(separator: ".")
    }

    /// Parses an address; the error says what was expected.
    public init(parsing text: String) throws(DeviceAddressError) {
        let (scheme, rest): (Substring, Substring?) = {
            guard let colon = text.firstIndex(of: ":") else { return (Substring(text), nil) }
            return (text[..<colon], text[text.index(after: colon)...])
        }()
        switch scheme.lowercased() {
        case "sim", "simulated":
            guard rest == nil else { throw .init(text, "`sim` takes no argument") }
            self = .simulated
        case "usb":
            guard let rest else { self = .usb(.any); return }
            if rest.hasPrefix("serial=") {
                let serial = rest.dropFirst("serial=".count)
                guard Self.isValidSerial(serial) else { throw .init(text, Self.serialRule) }
                self = .usb(.serial(String(serial)))
            } else if rest.hasPrefix("path=") || Self.looksLikePortPath(rest) {
                let path = rest.hasPrefix("path=") ? rest.dropFirst("path=".count) : rest
                guard let (bus, ports) = Self.parsePortPath(path) else {
                    throw .init(text, "a port path is BUS-PORT[.PORT...] with numbers 1-255, e.g. usb:1-2 or usb:3-1.4")
                }
                self = .usb(.port(bus: bus, ports: ports))
            } else {
                guard Self.isValidSerial(rest) else { throw .init(text, Self.serialRule) }
                self = .usb(.serial(String(rest)))
            }
        case let other:
            guard let hosted = Self.hostedSchemes.first(where: { $0 == other }) else { throw .init(text, Self.expected) }
            if let rest {
                guard Self.isValidSerial(rest) else { throw .init(text, Self.serialRule) }
                self = .hosted(scheme: hosted, serial: String(rest))
            } else {
                self = .hosted(scheme: hosted, serial: nil)
            }
        }
    }

    /// "expected sim, usb, usb:SERIAL, usb:BUS-PORT[.PORT] or ftdi[:SERIAL]": every form
    /// an address takes, the hosted ones from `hostedSchemes`.
    static let expected: String = {
        let forms = ["sim", "usb", "usb:SERIAL", "usb:BUS-PORT[.PORT]"] + hostedSchemes.map { "\($0)[:SERIAL]" }
        return "expected " + forms.dropLast().joined(separator: ", ") + " or " + (forms.last ?? "")
    }()

    /// The rule a serial number in an address follows: a bridge board's, as the protocol
    /// header defines it (`HB_SERIAL_MAX_LEN`, `hb_serial_char_ok`) and `BoardSerialNumber`
    /// holds boards to, so that every serial a board can report is an address that
    /// selects it and nothing else is.
    static let maximumSerialLength = Int(HB_SERIAL_MAX_LEN)

    static func isValidSerial(_ s: Substring) -> Bool {
        (1...maximumSerialLength).contains(s.utf8.count) && s.utf8.allSatisfy { hb_serial_char_ok($0) }
    }

    /// "a serial number is 1-20 characters of 0-9 A-Z a-z - . _"
    static let serialRule = "a serial number is 1-\(maximumSerialLength) characters of \(serialCharacters)"

    /// The header's character set in words, read from its predicate rather than
    /// restated: runs of three or more as ranges ("0-9"), then the single characters.
    static let serialCharacters: String = {
        var ranges: [String] = [], singles: [String] = []
        var byte: UInt8 = 0
        while byte < 0x80 {
            guard hb_serial_char_ok(byte) else { byte += 1; continue }
            var last = byte
            while last < 0x7F, hb_serial_char_ok(last + 1) { last += 1 }
            let (first, end) = (String(UnicodeScalar(byte)), String(UnicodeScalar(last)))
            switch last - byte {
            case 0: singles.append(first)
            case 1: singles += [first, end]
            default: ranges.append("\(first)-\(end)")
            }
            byte = last + 1
        }
        return (ranges + singles).joined(separator: " ")
    }()

    static func looksLikePortPath(_ s: some StringProtocol) -> Bool {
        guard let dash = s.firstIndex(of: "-"), dash != s.startIndex else { return false }
        return s.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "-" || $0 == ".") }
    }

    static func parsePortPath(_ s: Substring) -> (UInt8, [UInt8])? {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let bus = UInt8(parts[0]), bus > 0 else { return nil }
        let ports = parts[1].split(separator: ".", omittingEmptySubsequences: false).map { UInt8($0) }
        guard !ports.isEmpty, ports.count <= 7, ports.allSatisfy({ ($0 ?? 0) > 0 }) else { return nil }
        return (bus, ports.compactMap { $0 })
    }
}

/// An address that does not parse, with the rule it broke.
public struct DeviceAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    public var text: String
    public var rule: String
    init(_ text: String, _ rule: String) {
        self.text = text
        self.rule = rule
    }
    /// The address as given, cut past `echoLimit` characters with its length said.
    public var description: String { "bad device address \(Self.echo(text)): \(rule)" }

    public static let echoLimit = 64

    /// `"usb:abc"`, or `"usb:aaaa…" (1000 characters)` past the limit.
    static func echo(_ text: String) -> String {
        guard text.count > echoLimit else { return "\"\(text)\"" }
        return "\"\(text.prefix(echoLimit))…\" (\(text.count) characters)"
    }
}
