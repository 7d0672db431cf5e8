import Foundation
import Testing

/// Never brick, on Atmel's DFU bootloader (`emulate dfu --fault KIND@ADDRESS`): an
/// interrupted write leaves the board in its bootloader, `flash` says so and what to
/// do, and running `flash` again succeeds. (Caterina's cases: NeverBrickTests.)
@Suite("Never brick on Atmel DFU", .serialized)
struct DFUNeverBrickTests {
    /// `hapbridge flash` twice, each status and output on lines of their own. After
    /// `unplug` the emulation plugs the board back in 0.3 s later (as the user would),
    /// at the next address: the script awaits it there (at most 5 s) before the second.
    static func twice(awaitingReplug: Bool) -> String {
        """
        "$HB" flash >first.txt 2>&1; echo "first=$?"
        \(awaitingReplug ? "for i in $(seq 50); do lsusb -d 03eb:2ff4 2>/dev/null | grep -q 'Device 003' && break; sleep 0.1; done" : "")
        "$HB" flash >second.txt 2>&1; echo "second=$?"; cat first.txt second.txt
        """
    }

    func run(_ fault: String) throws -> DFURun.Result? {
        guard FileManager.default.fileExists(atPath: DFURun.firmwareHex) else {
            if DFURun.firmwareRequired { Issue.record("\(DFURun.firmwareHex) not built") }
            return nil
        }
        let dir = try DFURun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        return try DFURun.emulate("HB='\(DFURun.hapbridge)'\n" + Self.twice(awaitingReplug: fault.hasPrefix("unplug")), in: dir, options: ["--fault", fault])
    }

    @Test("unplugged mid-write: exit 8, one line saying the board went away, its application partly written, and to flash again; plugged back in its bootloader, flash succeeds")
    func unplugged() throws {
        guard let r = try run("unplug@0x1000") else { return }
        #expect(r.output.contains("first=8") && r.output.contains("second=0"), "\(r)")
        #expect(r.output.contains("went away (unplugged or reset); its application is only partly written") && r.output.contains("run `hapbridge flash` again"), "\(r)")
        #expect(r.output.contains("verified") && r.output.contains("the application started"), "\(r)")
    }

    @Test("a block never answered: exit 8 after the timeout, the board stays in its bootloader, and flash again succeeds")
    func silent() throws {
        guard let r = try run("silence@0x1000") else { return }
        #expect(r.output.contains("first=8") && r.output.contains("second=0"), "\(r)")
        #expect(r.output.contains("did not answer") && r.output.contains("the board stays in its bootloader"), "\(r)")
    }

    @Test("a byte stored wrong: verify fails with exit 7 naming the address, the application is not started, and flash again succeeds")
    func corrupted() throws {
        guard let r = try run("corrupt@0x1000") else { return }
        #expect(r.output.contains("first=7") && r.output.contains("second=0"), "\(r)")
        #expect(r.output.contains("verify failed at 0x1000") && r.output.contains("the board stays in its bootloader"), "\(r)")
        // One start in all: the second flash's; the failed one left the board in its bootloader.
        #expect(r.output.components(separatedBy: "the application started").count == 2, "\(r)")
    }

    @Test("--fault that is not KIND@ADDRESS is a usage error naming the rule (status 2)")
    func badFault() throws {
        let dir = try DFURun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for bad in ["corrupt", "melt@0x10", "corrupt@0x9000"] {
            let r = try DFURun.emulate("true", in: dir, options: ["--fault", bad])
            #expect(r.status == 2 && r.errors.contains("--fault"), "\(bad): \(r)")
        }
    }
}
