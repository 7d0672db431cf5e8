import Hex

/// Intel HEX as avr-objcopy, the Arduino IDE and avrdude write it: records
/// `:LLAAAATT<data>CC`, types 00 (data), 01 (end of file), 02 (extended segment
/// address), 03 / 05 (start address, ignored: the AVR starts at 0), 04 (extended linear
/// address). Every record is checked (syntax, length, checksum) and no two records may
/// give the same address: a file that breaks a rule is refused with its line number,
/// before anything is erased.
public enum IntelHex {
    /// The image in `bytes` (the file's contents); `source` names the file in errors.
    public static func parse(_ bytes: [UInt8], source: String) throws(ImageError) -> FirmwareImage {
        var runs: [FirmwareImage.Run] = []
        /// For each run, the line that gave its first byte (for overlap messages).
        var runLines: [Int] = []
        var base = 0
        var ended = false
        var lineNumber = 0
        for rawLine in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = Array(rawLine)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            // Blank lines (the final newline, an editor's trailing one) carry nothing.
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            func fail(_ rule: ImageError.Rule, _ detail: String) -> ImageError {
                ImageError(source: source, location: "line \(lineNumber)", rule: rule, detail: detail)
            }
            if ended { throw fail(.malformed, "a record after the end-of-file record (type 01): the file was joined or damaged") }
            guard line.first == UInt8(ascii: ":") else {
                throw fail(.malformed, "an Intel HEX record starts with ':' (is this an Intel HEX file?)")
            }
            let digits = line.dropFirst()
            guard let record = Hex.decode(ascii: digits) else {
                throw fail(.malformed, "a record is an even number of hex digits after ':'")
            }
            guard record.count >= 5 else { throw fail(.malformed, "a record has at least 5 bytes (length, address, type, checksum), this one \(record.count)") }
            let length = Int(record[0])
            guard record.count == length + 5 else {
                throw fail(.malformed, "the record says \(length) data bytes but holds \(record.count - 5)")
            }
            let sum = record.dropLast().reduce(UInt8(0), &+)
            let expected = 0 &- sum
            guard record[record.count - 1] == expected else {
                throw fail(.checksum, "checksum \(Hex.digits(record[record.count - 1], width: 2)) does not match the record's bytes (they need \(Hex.digits(expected, width: 2)))")
            }
            let offset = Int(record[1]) << 8 | Int(record[2])
            let data = Array(record[4..<(4 + length)])
            switch record[3] {
            case 0x00:
                guard !data.isEmpty else { continue }
                let address = base + offset
                // A record does not wrap inside its 64 KiB segment on an AVR: refuse it.
                guard offset + data.count <= 0x10000 else { throw fail(.malformed, "the record runs past its 64 KiB segment") }
                if let clash = runs.indices.first(where: { runs[$0].address < address + data.count && address < runs[$0].end }) {
                    throw fail(.overlap, "data at \(Hex.literal(address, width: 4))...\(Hex.literal(address + data.count - 1, width: 4)) overlaps data line \(runLines[clash]) already gave")
                }
                if let last = runs.last, last.end == address {
                    runs[runs.count - 1].bytes += data
                } else {
                    runs.append(.init(address: address, bytes: data))
                    runLines.append(lineNumber)
                }
            case 0x01:
                guard length == 0 else { throw fail(.malformed, "an end-of-file record (type 01) has no data") }
                ended = true
            case 0x02, 0x04:
                guard length == 2 else { throw fail(.malformed, "an extended address record (type \(Hex.digits(record[3], width: 2))) has 2 data bytes") }
                let value = Int(data[0]) << 8 | Int(data[1])
                base = record[3] == 0x02 ? value << 4 : value << 16
            case 0x03, 0x05:
                guard length == 4 else { throw fail(.malformed, "a start address record (type \(Hex.digits(record[3], width: 2))) has 4 data bytes") }
            default:
                throw fail(.malformed, "unknown record type \(Hex.digits(record[3], width: 2)) (Intel HEX has 00 to 05)")
            }
        }
        guard ended else {
            throw ImageError(source: source, rule: .malformed, detail: "no end-of-file record (:00000001FF): the file is cut short")
        }
        return FirmwareImage(source: source, runs: runs)
    }

    /// The image as Intel HEX (16-byte data records, extended linear address records
    /// past 64 KiB, the end-of-file record): what tests compare avrdude's read-back with.
    public static func text(of image: FirmwareImage) -> String {
        var lines: [String] = []
        var upper = 0
        func record(_ type: UInt8, _ offset: Int, _ data: [UInt8]) -> String {
            let bytes = [UInt8(data.count), UInt8(offset >> 8 & 0xFF), UInt8(offset & 0xFF), type] + data
            return ":" + Hex.bytes(bytes + [0 &- bytes.reduce(UInt8(0), &+)])
        }
        for run in image.runs {
            var address = run.address
            var rest = run.bytes[...]
            while !rest.isEmpty {
                if address >> 16 != upper {
                    upper = address >> 16
                    lines.append(record(0x04, 0, [UInt8(upper >> 8 & 0xFF), UInt8(upper & 0xFF)]))
                }
                let count = min(16, rest.count, 0x10000 - address & 0xFFFF)
                lines.append(record(0x00, address & 0xFFFF, Array(rest.prefix(count))))
                rest = rest.dropFirst(count)
                address += count
            }
        }
        lines.append(":00000001FF")
        return lines.joined(separator: "\n") + "\n"
    }
}
