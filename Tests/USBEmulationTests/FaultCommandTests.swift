import Testing
import USBEmulation

/// `emulate control fault [BOARD] KIND ADDRESS`: what it takes and what it refuses.
@Suite("control: fault")
struct FaultCommandTests {
    @Test("fault takes a kind and an address in hex or decimal, with or without a BOARD")
    func parses() throws {
        #expect(try ControlCommand(parsing: "fault unplug 0x1000") == .fault(nil, BootloaderFault(.unplug, at: 0x1000)))
        #expect(try ControlCommand(parsing: "fault 1-2 corrupt 4096") == .fault("1-2", BootloaderFault(.corrupt, at: 4096)))
        #expect(try ControlCommand(parsing: "fault SER-9 silence 0X7fff") == .fault("SER-9", BootloaderFault(.silence, at: 0x7FFF)))
        #expect(try ControlCommand(parsing: "fault slow 0x0800") == .fault(nil, BootloaderFault(.slow, at: 0x0800)))
    }

    @Test("hold and release take an optional BOARD")
    func holdAndRelease() throws {
        #expect(try ControlCommand(parsing: "hold") == .hold(nil))
        #expect(try ControlCommand(parsing: "release 1-2") == .release("1-2"))
        #expect { _ = try ControlCommand(parsing: "hold 1-1 1-2") } throws: { "\($0)".contains("hold takes at most one BOARD") }
    }

    @Test("fault refuses another kind, an address off the 32 KiB flash or not a number, and a missing address, each saying which")
    func refuses() {
        #expect { _ = try ControlCommand(parsing: "fault bogus 12") } throws: { "\($0)".contains("bogus is not unplug, silence, corrupt or slow") }
        #expect { _ = try ControlCommand(parsing: "fault unplug 0x8000") } throws: { "\($0)".contains("0x8000 is not a flash address") }
        #expect { _ = try ControlCommand(parsing: "fault unplug twelve") } throws: { "\($0)".contains("twelve is not a flash address") }
        #expect { _ = try ControlCommand(parsing: "fault unplug") } throws: { "\($0)".contains("unknown command") }
    }
}
