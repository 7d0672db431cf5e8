import BridgeProtocol
import Foundation
import Testing

extension EmulatedBoards {
    /// Boards that misbehave (a board that answers garbage or speaks protocol 1.0 gets
    /// a clear error): each as libusb meets it (the C probe), then as hapbridge's own
    /// path to a board does (`bridge-session-probe`: DeviceCatalog, USBBridgeTransport,
    /// BridgeSession) and the error it gives.
    @Suite
    struct MisbehavingBoardTests {
        static let bridgeID = String(format: "%04x:%04x", USBIdentity.vendorID, USBIdentity.productID)

        static func hex(_ type: FrameType) -> String { String(format: "0x%02x", type.rawValue) }

        // MARK: a board that answers garbage

        @Test("A noise board enumerates as a bridge board: the VID:PID, strings and serial of usb_identity.h")
        func noiseBoardLooksLikeABridgeBoard() throws {
            let run = try Emulate.bridge(.noise, ["--serial", "NOISE-1"], [Emulate.probe, "list"])
            #expect(run.status == 0, "\(run)")
            #expect(run.records("board").map { $0["serial"] } == ["NOISE-1"], "\(run)")
        }

        @Test("A noise board answers HELLO with bulk IN bytes that never hold the frame magic, so never a frame")
        func noiseHasNoFrames() throws {
            let run = try Emulate.bridge(.noise, [], [Emulate.probe, "noise", "4096"])
            #expect(run.status == 0, "\(run)")
            let noise = run.record("noise")
            #expect(noise["bytes"] == "4096", "\(run)")
            // PROTOCOL.md, Validation: "Magic. Bytes are skipped until 0xA5."
            #expect(noise["magic"] == "0")
            #expect(noise["frames"] == "0")
        }

        @Test("hapbridge against a noise board: notHapbridge, saying how many bytes were not frames and what to do")
        func noiseGivesNotHapbridge() throws {
            let run = try Emulate.bridge(.noise, [], [Emulate.sessionProbe])
            #expect(run.status == 1, "\(run)")
            let error = run.record("error")
            #expect(error["during"] == "hello", "\(run)")
            #expect(error["kind"] == "notHapbridge")
            let message = error["message"] ?? ""
            #expect(message.contains("bytes that were not hapbridge frames and no HELLO_REPLY"), "\(run)")
            #expect(message.contains("is it running hapbridge firmware? (`hapbridge flash` installs it)"))
        }

        // MARK: protocol 1.0

        @Test("A 1.0 board answers a 1.1 host's HELLO at minor 0 with the 18-byte reply, as firmware 0.1")
        func legacyHello() throws {
            let run = try Emulate.bridge(.core, ["--protocol", "1.0"], [Emulate.probe, "hello"])
            #expect(run.status == 0, "\(run)")
            // PROTOCOL.md, Version negotiation: "a 1.0 host (minor 0, whose decoder requires
            // exactly 18 bytes) gets the 18-byte reply of 1.0". A 1.0 board has no other.
            #expect(run.record("hello-length")["bytes"] == "18", "\(run)")
            let reply = run.record("hello-reply")
            #expect(reply["protocol"] == "1.0")
            #expect(reply["firmware"] == "0.1")
            #expect(reply["serial"] == "-")
        }

        @Test("A 1.0 board's device descriptor says firmware 0.1 (bcdDevice 0.01)")
        func legacyDescriptor() throws {
            let run = try Emulate.bridge(.core, ["--protocol", "1.0"], ["lsusb", "-v", "-d", Self.bridgeID])
            #expect(run.status == 0, "\(run)")
            #expect(run.output.split(separator: "\n").contains { $0.contains("bcdDevice") && $0.hasSuffix(" 0.01") }, "\(run)")
        }

        /// What each protocol's board answers to 1.1's frames and to the SYNC after them.
        static let laterFrames: [(version: String, answers: [[String: String]])] = [
            (
                "1.0",
                [FrameType.i2cRead, .i2cWrite, .replaceFrom].map {
                    ["sent": hex($0), "type": "nak", "reason": String(NakReason.unknownType.rawValue), "nak_type": hex($0)]
                } + [["sent": hex(.sync), "type": hex(.syncReply)]]
            ),
            (
                "1.1",
                [
                    ["sent": hex(.i2cRead), "type": hex(.i2cResult)], ["sent": hex(.i2cWrite), "type": hex(.i2cResult)],
                    ["sent": hex(.replaceFrom), "type": hex(.replaced)], ["sent": hex(.sync), "type": hex(.syncReply)],
                ]
            ),
        ]

        @Test(
            "1.1's I2C_READ, I2C_WRITE and REPLACE_FROM: NAK UNKNOWN_TYPE naming each on a 1.0 board, answered on a 1.1 one; the session goes on",
            arguments: laterFrames.indices)
        func laterFramesOnEachProtocol(_ i: Int) throws {
            let (version, answers) = Self.laterFrames[i]
            let run = try Emulate.bridge(.core, ["--protocol", version], [Emulate.probe, "later-frames"])
            #expect(run.status == 0, "\(run)")
            // PROTOCOL.md, Version negotiation: "a 1.0 board answers them `NAK UNKNOWN_TYPE`,
            // which tells the host the board's firmware predates them". The SYNC after them
            // is answered, not refused for a sequence gap: the numbering went on.
            #expect(run.records("answer") == answers, "protocol \(version)\n\(run)")
        }

        @Test("hapbridge on a 1.0 board: identity protocol 1.0 / firmware 0.1, and a register read is firmwareTooOld")
        func legacyGivesFirmwareTooOld() throws {
            let run = try Emulate.bridge(.core, ["--protocol", "1.0"], [Emulate.sessionProbe])
            #expect(run.status == 1, "\(run)")
            let identity = run.record("identity")
            #expect(identity["protocol"] == "1.0", "\(run)")
            #expect(identity["firmware"] == "0.1")
            #expect(identity["register_access"] == "no")
            let error = run.record("error")
            #expect(error["during"] == "read")
            #expect(error["kind"] == "firmwareTooOld")
            #expect(error["message"] == "firmware 0.1 (protocol 1.0) cannot read registers: run `hapbridge flash` to update the board")
        }

        @Test("--protocol 1.0 is the core's alone: with --firmware elf it is a usage error that says so")
        func legacyNeedsTheCore() throws {
            let run = try Emulate.run([Emulate.hapbridge, "emulate", "bridge", "--firmware", "elf", "--protocol", "1.0", "--", "true"])
            #expect(run.status == 2, "\(run)")
            #expect(run.errors.contains("--protocol 1.0 needs --firmware core"), "\(run)")
        }

        // MARK: refused access

        @Test("--deny-access: libusb_open fails with LIBUSB_ERROR_ACCESS while the board is still listed", arguments: Emulate.backings)
        func refusedAccessAtLibUSB(_ backing: Emulate.Backing) throws {
            let run = try Emulate.bridge(backing, ["--deny-access"], ["sh", "-c", "\(Emulate.probe) open && lsusb -d \(Self.bridgeID)"])
            #expect(run.status == 0, "\(run)")
            #expect(run.record("open")["result"] == "LIBUSB_ERROR_ACCESS", "\(run)")
            #expect(run.output.contains("ID \(Self.bridgeID)"), "\(run)")
        }

        @Test("hapbridge against a refused node: accessDenied naming the node and the udev rule to install")
        func refusedAccessGivesTheUdevAdvice() throws {
            let run = try Emulate.bridge(.core, ["--deny-access"], [Emulate.sessionProbe])
            #expect(run.status == 1, "\(run)")
            let error = run.record("error")
            #expect(error["during"] == "open", "\(run)")
            #expect(error["kind"] == "device.accessDenied")
            let message = error["message"] ?? ""
            #expect(message.hasPrefix("permission denied opening /dev/bus/usb/001/"), "\(run)")
            #expect(message.contains("(usb:1-1): install Hardware/udev/60-hapbridge.rules"))
        }

        @Test("--deny-access leaves nothing behind: the testbed with its read-only nodes is gone after the run")
        func refusedAccessCleansUp() throws {
            let run = try Emulate.bridge(.core, ["--deny-access"], ["sh", "-c", "echo \"$UMOCKDEV_DIR\""])
            #expect(run.status == 0, "\(run)")
            let testbed = run.output.trimmingCharacters(in: .whitespacesAndNewlines)
            try #require(!testbed.isEmpty, "\(run)")
            #expect(!FileManager.default.fileExists(atPath: testbed))
        }

        // MARK: the same path on a board that behaves

        @Test("hapbridge on a working board: identity protocol 1.1 and the chip's STATUS read", arguments: Emulate.backings)
        func workingBoard(_ backing: Emulate.Backing) throws {
            let run = try Emulate.bridge(backing, ["--serial", "GOOD-1"], [Emulate.sessionProbe])
            #expect(run.status == 0, "\(run)")
            let identity = run.record("identity")
            #expect(identity["protocol"] == "\(HostFrameEncoder.protocolMajor).\(HostFrameEncoder.protocolMinor)", "\(run)")
            #expect(identity["serial"] == "GOOD-1")
            #expect(identity["register_access"] == "yes")
            #expect(run.record("register")["value"]?.hasPrefix("0x") == true, "\(run)")
        }
    }
}
