/// A program image as a loader produced it: bytes at flash addresses, with gaps.
/// Built only by the loaders (Intel HEX, ELF), which refuse overlapping data, so
/// every address holds at most one byte. `pages(of:)` is what a programmer writes.
public struct FirmwareImage: Sendable, Equatable {
    /// A run of bytes starting at a flash byte address; runs are sorted and disjoint.
    public struct Run: Sendable, Equatable {
        public var address: Int
        public var bytes: [UInt8]
        public var end: Int { address + bytes.count }
        public init(address: Int, bytes: [UInt8]) {
            self.address = address
            self.bytes = bytes
        }
    }

    /// Where the image came from, for messages ("firmware.hex", "the carried image").
    public var source: String
    public var runs: [Run]
    /// The part the file names (an ELF's machine and architecture); nil for Intel HEX,
    /// which does not say.
    public var declaredPart: AVRPart?

    public init(source: String, runs: [Run], declaredPart: AVRPart? = nil) {
        self.source = source
        self.runs = runs.sorted { $0.address < $1.address }
        self.declaredPart = declaredPart
    }

    /// Bytes of data in the image (gaps not counted).
    public var byteCount: Int { runs.reduce(0) { $0 + $1.bytes.count } }
    /// One past the highest address holding data (0 for an empty image).
    public var end: Int { runs.last?.end ?? 0 }
    public var isEmpty: Bool { byteCount == 0 }

    /// The image as whole pages of `part`, gaps and page tails filled with 0xFF (erased
    /// flash), pages with no data left out: what a bootloader is sent, page by page.
    public func pages(of part: AVRPart) -> [(address: Int, bytes: [UInt8])] {
        var pages: [Int: [UInt8]] = [:]
        for run in runs {
            for (offset, byte) in run.bytes.enumerated() {
                let address = run.address + offset
                let page = address - address % part.pageBytes
                pages[page, default: [UInt8](repeating: 0xFF, count: part.pageBytes)][address - page] = byte
            }
        }
        return pages.keys.sorted().map { ($0, pages[$0] ?? []) }
    }
}
