@testable import Flashing
import Testing

/// What a flash cut short left, in the order `FlashPlan` writes (the reset vector's
/// page last): the ranges the JSON record gives are the pages answered, merged.
@Suite("FlashLeft: what a flash cut short left")
struct FlashLeftTests {
    /// Pages 0x0000...0x0380 in the plan's order: 0x0080 up, then 0x0000.
    static let order: [(address: Int, bytes: [UInt8])] =
        (1..<8).map { ($0 * 128, [UInt8](repeating: 0, count: 128)) } + [(0, [UInt8](repeating: 0, count: 128))]

    @Test("pages answered so far are one range from 0x0080; a block half sent counts for nothing; all of them, with the reset vector's page last, one range from 0x0000")
    func rangesFollowTheOrderWritten() {
        #expect(FlashLeft.ranges(of: Self.order, done: 0).isEmpty)
        #expect(FlashLeft.ranges(of: Self.order, done: 3 * 128) == [0x0080...0x01FF])
        #expect(FlashLeft.ranges(of: Self.order, done: 3 * 128 + 64) == [0x0080...0x01FF])
        #expect(FlashLeft.ranges(of: Self.order, done: 7 * 128) == [0x0080...0x03FF])
        #expect(FlashLeft.ranges(of: Self.order, done: 8 * 128) == [0x0000...0x03FF])
    }

    @Test("partly written: the line names the ranges, says the reset vector's page is not written yet and what Caterina does without it")
    func partlyWrittenSaysWhatCaterinaDoes() {
        var left = FlashLeft(application: .partlyWritten, inBootloader: true, bootloader: "caterina", location: "/dev/ttyACM0")
        left.written = [0x0080...0x08FF]
        left.image = 0x0000...0x397F
        let line = left.description
        #expect(line.contains("0x0080...0x08FF of 0x0000...0x397F, 2176 bytes"), "\(line)")
        #expect(line.contains("the board stays in its Caterina bootloader at /dev/ttyACM0"), "\(line)")
        #expect(line.contains("with 0x0000 erased Caterina never starts an application by itself"), "\(line)")
        #expect(line.hasSuffix("run `hapbridge flash` again to finish"), "\(line)")
        #expect(!line.contains("\n"))
    }
}
