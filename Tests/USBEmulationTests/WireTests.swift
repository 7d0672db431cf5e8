import BridgeProtocol
import CHapbridgeProtocol
import Foundation
import Hex
import SimavrBridgeDevice
import Testing

extension EmulatedBoards {
    /// What goes over the wire is the firmware's on every backing: the core board answers
    /// endpoint 0 and fills bulk IN as the ATmega32U4 port's usb.c does on the ELF (and on
    /// a board), so what works on core works on a board. The probe's `chapter9`,
    /// `halt-rounds` and `burst` (Tests/USBEmulationProbe/wire.c) drive real libusb.
    @Suite
    struct WireTests {
        /// The lines of one run that carry replies.
        static func transcript(_ run: Emulate.Run) -> [String] {
            run.output.split(separator: "\n").map(String.init).filter { $0.hasPrefix("control ") || $0.hasPrefix("frame ") }
        }

        @Test("The chapter-9 conversation (standard requests, then HELLO, QUEUE_STATUS and a NAK) gets the same reply bytes on every backing")
        func theConversationIsTheSameOnEveryBacking() throws {
            var transcripts: [Emulate.Backing: [String]] = [:]
            for backing in Emulate.backings {
                let run = try Emulate.bridge(backing, [], [Emulate.probe, "chapter9"])
                #expect(run.status == 0, "\(backing): \(run)")
                transcripts[backing] = Self.transcript(run)
                let replies = Dictionary(run.records("control").map { ($0["name"] ?? "", $0) }, uniquingKeysWith: { a, _ in a })
                func expect(_ name: String, _ result: String, _ data: String? = nil, _ why: String) {
                    #expect(replies[name]?["result"] == result, "\(backing) \(name): \(why)")
                    if let data { #expect(replies[name]?["data"] == data, "\(backing) \(name): \(why)") }
                }
                // USB 2.0 9.4.5: endpoint 0 has a status, whichever direction names it.
                expect("status-ep-0x00", "ok", "0000", "GET_STATUS of endpoint 0 is answered")
                expect("status-ep-0x80", "ok", "0000", "GET_STATUS of endpoint 0 is answered")
                expect("status-device", "ok", "0000", "bus powered, no remote wakeup")
                expect("status-interface-0", "ok", "0000", "the interface has a status")
                // Request Errors: what the device lacks.
                for absent in ["status-ep-0x01-absent", "status-ep-0x82-absent", "status-ep-0x83-absent", "status-interface-absent",
                    "status-other-recipient", "descriptor-configuration-index-1", "descriptor-configuration-index-255",
                    "descriptor-device-index-1", "descriptor-string-absent", "descriptor-device-qualifier", "get-interface-absent",
                    "set-halt-ep-0x01-absent", "set-halt-ep-0x82-absent", "clear-halt-ep-0x01-absent", "set-configuration-absent",
                    "vendor-in", "vendor-out"]
                {
                    expect(absent, "stall", nil, "a request for what the device lacks STALLs")
                }
                expect("descriptor-device", "ok", Hex.bytes(USBIdentity.deviceDescriptor, case: .lower), "usb_identity.h's device descriptor")
                expect("descriptor-configuration", "ok", Hex.bytes(USBIdentity.configurationDescriptor, case: .lower), "usb_identity.h's configuration")
                expect("status-bulk-in-halted", "ok", "0100", "SET_FEATURE(ENDPOINT_HALT) shows in GET_STATUS")
                expect("status-bulk-in-cleared", "ok", "0000", "CLEAR_FEATURE(ENDPOINT_HALT) clears it")
                #expect(run.records("frame").map { $0["name"] } == ["hello", "queue-status", "unknown-type"], "\(backing): \(run)")
            }
            guard let core = transcripts[.core], let elf = transcripts[.elf] else { return }  // no ELF built (and not required)
            #expect(core.count == elf.count && core.count > 50, "core \(core.count) lines, ELF \(elf.count)")
            for (c, e) in zip(core, elf) { #expect(c == e, "core and ELF differ") }
        }

        @Test("After SET_FEATURE(ENDPOINT_HALT) and a clear-halt on bulk IN, the next reads succeed: 15 rounds, 0 EPIPE", arguments: Emulate.backings)
        func clearHaltLeavesNoStallBehind(_ backing: Emulate.Backing) throws {
            let run = try Emulate.bridge(backing, [], [Emulate.probe, "halt-rounds", "15"])
            #expect(run.status == 0, "\(run)")
            let halt = run.record("halt")
            #expect(halt["rounds"] == "15", "\(run)")
            #expect(halt["stalled"] == "15", "a halted bulk IN STALLs the read: \(run)")
            #expect(halt["failed_rounds"] == "0", "\(run)")
            #expect(halt["epipe_reads"] == "0", "\(run)")
        }

        /// usb.c's CLEAR_FEATURE(ENDPOINT_HALT) resets the endpoint (UERST: "reset the
        /// selected endpoint FIFO", ATmega32U4 datasheet, UERST, as LUFA's
        /// USB_Device_ClearSetFeature does) besides its data toggle (USB 2.0 §9.4.5), so
        /// the packet in the bank is lost and the ring's bytes are not.
        @Test(
            "After a clear-halt the reply that sat in bulk IN's bank is gone and the one in the port's ring comes, the same on every backing",
            arguments: Emulate.backings)
        func aClearHaltDropsTheBankAndKeepsTheRing(_ backing: Emulate.Backing) throws {
            let run = try Emulate.bridge(backing, [], [Emulate.probe, "halt-pending"])
            #expect(run.status == 0, "\(run)")
            let pending = run.record("pending")
            #expect(pending["stalled"] == "1", "the halted endpoint STALLs the read: \(run)")
            #expect(pending["banked_reply"] == "0", "the bank is reset with the halt: \(run)")
            #expect(pending["ring_reply"] == "1", "the ring keeps its reply: \(run)")
            #expect(pending["epipe_reads"] == "0", "\(run)")
        }

        /// Replies to a burst that fits one 64-byte packet: as many as the port's ring
        /// takes whole (usb_send drops a frame that does not fit); the bank takes its
        /// first packet only after the packet's frames are all handled.
        static func ringHolds(replyPayload: UInt32) -> Int {
            Int(HB_USB_IN_RING_BYTES) / Int(replyPayload + HB_FRAME_OVERHEAD)
        }

        @Test(
            "Eight requests in one transfer get the replies the port's ring holds, the same on every backing",
            arguments: [
                // 8 × 6 bytes, one packet: 25-byte replies, 5 fit 128 bytes.
                (HB_T_QUEUE_STATUS_REQ, ringHolds(replyPayload: HB_QUEUE_STATUS_LEN)),
                // 8 × 6 bytes: 17-byte replies, 7 fit.
                (HB_T_CHIP_STATUS_REQ, ringHolds(replyPayload: HB_CHIP_STATUS_LEN)),
                // 8 × 12 bytes, two packets: 50-byte replies; 2 fit the ring from the first
                // packet (100 bytes), the bank takes 64, 1 more fits from the second: 3.
                (HB_T_HELLO, 3),
                // 8 × 10 bytes: 18-byte replies; 6 from the first packet (108 bytes), the bank
                // takes 64, both from the second fit: all 8.
                (HB_T_SYNC, 8),
            ])
        func aBurstGetsWhatTheRingHolds(_ type: UInt32, _ expected: Int) throws {
            var counts: [Emulate.Backing: String] = [:]
            for backing in Emulate.backings {
                let run = try Emulate.bridge(backing, [], [Emulate.probe, "burst", String(format: "0x%02x", type), "8"])
                #expect(run.status == 0, "\(backing): \(run)")
                counts[backing] = run.record("burst")["replies"]
                #expect(counts[backing] == String(expected), "\(backing): \(run)")
            }
            #expect(Set(counts.values).count == 1, "every backing the same: \(counts)")
        }
    }

    /// usbutils' tree views read sysfs only: the root hub, every board below it, their
    /// interfaces and endpoints.
    @Suite
    struct SysfsToolsTests {
        @Test("lsusb -t shows the root hub and each board on its port, with no error", arguments: Emulate.backings)
        func lsusbTree(_ backing: Emulate.Backing) throws {
            let run = try Emulate.bridge(backing, ["--boards", "2"], ["lsusb", "-t"])
            #expect(run.status == 0, "\(run)")
            #expect(run.errors.isEmpty, "\(run)")
            #expect(run.output.contains("/:  Bus 01.Port 1: Dev 1, Class=root_hub, Driver=hapbridge-emulate/126p, 480M"), "\(run)")
            #expect(run.output.contains("|__ Port 1: Dev 2, If 0,"), "\(run)")
            #expect(run.output.contains("|__ Port 2: Dev 3, If 0,"), "\(run)")
            #expect(run.output.components(separatedBy: ", 12M").count - 1 == 2, "two full-speed boards: \(run)")
        }

        @Test("usb-devices lists the root hub and the board: identity, strings, interface and both bulk endpoints", arguments: Emulate.backings)
        func usbDevices(_ backing: Emulate.Backing) throws {
            let run = try Emulate.bridge(backing, ["--serial", "TREE-1"], ["usb-devices"])
            #expect(run.status == 0, "\(run)")
            #expect(run.errors.isEmpty, "\(run)")
            let text = run.output
            #expect(text.contains("T:  Bus=01 Lev=00 Prnt=00 Port=00 Cnt=00 Dev#=  1 Spd=480 MxCh=126"), "\(run)")
            #expect(text.contains("P:  Vendor=1d6b ProdID=0002"), "\(run)")
            #expect(text.contains("T:  Bus=01 Lev=01 Prnt=01 Port=00 Cnt=01 Dev#=  2 Spd=12 "), "\(run)")
            #expect(text.contains(String(format: "P:  Vendor=%04x ProdID=%04x", USBIdentity.vendorID, USBIdentity.productID)), "\(run)")
            #expect(text.contains("S:  Product=\(USBIdentity.product)"))
            #expect(text.contains("S:  SerialNumber=TREE-1"))
            #expect(text.contains("I:  If#= 0 Alt= 0 #EPs= 2 Cls=ff(vend.)"), "\(run)")
            #expect(text.contains(String(format: "E:  Ad=%02x(I) Atr=02(Bulk) MxPS=  %d Ivl=0ms", USBIdentity.bulkIn, USBIdentity.bulkPacketSize)), "\(run)")
            #expect(text.contains(String(format: "E:  Ad=%02x(O) Atr=02(Bulk) MxPS=  %d Ivl=0ms", USBIdentity.bulkOut, USBIdentity.bulkPacketSize)), "\(run)")
        }
    }
}
