import BridgeProtocol
import CHapbridgeProtocol
import DRV2605
import Foundation
import Testing
import USBEmulation

extension EmulatedBoards {
    /// A real libusb client exchanging protocol frames with emulated boards over their
    /// bulk endpoints.
    @Suite
    struct ProtocolOverUSBTests {
        @Test("HELLO over bulk OUT gets HELLO_REPLY over bulk IN, with the board's serial", arguments: Emulate.backings)
        func helloGetsAReply(_ backing: Emulate.Backing) throws {
            let run = try Emulate.bridge(backing, ["--serial", "HELLO-7"], [Emulate.probe, "hello"])
            #expect(run.status == 0, "\(run)")
            let reply = run.record("hello-reply")
            #expect(reply["protocol"]?.hasPrefix("\(HB_PROTO_VERSION_MAJOR).") == true, "\(run)")
            // PROTOCOL.md, Board identity: "HELLO_REPLY and the USB iSerialNumber string
            // descriptor carry the same serial."
            #expect(reply["serial"] == "HELLO-7")
            #expect(run.record("board")["serial"] == "HELLO-7")
        }

        @Test("Two boards get their own serial numbers and bus-port paths, and each answers on its own", arguments: Emulate.backings)
        func twoBoards(_ backing: Emulate.Backing) throws {
            let listed = try Emulate.bridge(backing, ["--serial", "TWO-A", "--serial", "TWO-B"], [Emulate.probe, "list"])
            #expect(listed.status == 0, "\(listed)")
            let boards = listed.records("board").sorted { ($0["port"] ?? "") < ($1["port"] ?? "") }
            #expect(boards.map { $0["bus"] } == ["1", "1"])
            #expect(boards.map { $0["port"] } == ["1", "2"])
            #expect(boards.map { $0["serial"] } == ["TWO-A", "TWO-B"])
            #expect(Set(boards.compactMap { $0["address"] }).count == 2)

            let second = try Emulate.bridge(backing, ["--boards", "2", "--serial", "TWO-A"], [Emulate.probe, "hello", "--serial", "0002"])
            #expect(second.status == 0, "\(second)")
            #expect(second.record("board")["port"] == "2")
            #expect(second.record("hello-reply")["serial"] == "0002")
        }

        @Test("Host silence: the board stops the actuator one keep-alive after the last frame, and says so", arguments: Emulate.backings)
        func hostSilenceStopsTheActuator(_ backing: Emulate.Backing) throws {
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("emulate-silence-\(UUID().uuidString).jsonl").path
            defer { try? FileManager.default.removeItem(atPath: log) }
            let keepAlive = 50
            let run = try Emulate.bridge(backing, ["--log", log], [Emulate.probe, "silence", String(keepAlive)])
            #expect(run.status == 0, "\(run)")
            // PROTOCOL.md, Safety: "Host silence: no CRC-valid frame for the keep-alive
            // timeout → stop, flush, EVENT_STOPPED HOST_SILENT".
            #expect(run.record("stopped")["reason"] == String(HB_STOP_HOST_SILENT))
            let events = try EmulationLog.entries(atPath: log)
            let lastFrame = try #require(events.last { $0.event == "bulk_out" }?.board_us)
            let stopAt = try #require(UInt32(run.record("stopped")["at_us"] ?? ""))
            let silence = Double(stopAt) - lastFrame
            #expect(silence >= Double(keepAlive * 1000), "stopped \(silence) µs after the last frame")
            // The core stops on its deadline; the AVR port polls for it from its main loop.
            #expect(silence <= Double(keepAlive * 1000 + 1000), "stopped \(silence) µs after the last frame")
            // The stop reached the chip between the keep-alive's expiry and the reported
            // stop (the AVR port stamps EVENT_STOPPED after its writes): RTP_INPUT 0 and
            // MODE standby, logged with both clocks.
            let expiry = lastFrame + Double(keepAlive * 1000)
            let writes = events.filter { $0.event == "i2c" && $0.op == "w" && (expiry...Double(stopAt)).contains($0.board_us ?? -1) }
                .compactMap(\.decodedBytes)
            #expect(writes.contains([RegisterAddress.rtpInput.rawValue, 0]))
            #expect(writes.contains { $0.count == 2 && $0[0] == RegisterAddress.mode.rawValue && ModeRegister(rawValue: $0[1]).standby })
            #expect(events.filter { $0.event == "i2c" }.allSatisfy { $0.host_us > 0 })
        }
    }
}
