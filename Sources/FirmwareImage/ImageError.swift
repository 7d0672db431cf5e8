/// Why an image was refused before anything was erased: the file, where in it (a HEX
/// line, an ELF segment; nil when the rule is about the whole image) and the rule
/// broken, as one line a user can act on.
public struct ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Rule: String, Sendable {
        /// A record or header that is not what the format says (syntax, length, type).
        case malformed
        /// An Intel HEX record whose checksum does not match its bytes.
        case checksum
        /// Two records or segments give the same flash address.
        case overlap
        /// Data at or past the bootloader section, or outside flash.
        case tooLarge = "too-large"
        /// The file is built for another machine or AVR core / MCU.
        case wrongPart = "wrong-part"
        /// No data to write.
        case empty
        /// An ELF segment whose load address is in none of the AVR's address spaces.
        case outsideMemory = "outside-memory"
        /// Nothing (or erased flash) at the reset vector, 0x0000, where the MCU starts.
        case noResetVector = "no-reset-vector"
    }

    public var source: String
    /// "line 12", "program header 2": where the rule was broken.
    public var location: String?
    public var rule: Rule
    /// What was found and what the rule is.
    public var detail: String

    public init(source: String, location: String? = nil, rule: Rule, detail: String) {
        self.source = source
        self.location = location
        self.rule = rule
        self.detail = detail
    }

    public var description: String {
        "\(source)\(location.map { " \($0)" } ?? ""): \(detail)"
    }
}
