import FirmwareImage
import Foundation
import Testing

extension EmulatedBoards {
    /// `hapbridge flash` stopped by a signal, through `--device` on an emulated bridge
    /// board (ENTER_BOOTLOADER, then its Caterina): the block in flight finishes, nothing
    /// starts after it (an erase least of all), the one `Error:` line and the JSON record
    /// say what the board holds and where it is, the status is 128 + N, and the board
    /// takes the next flash. The moment of the signal is a state the test polls for in
    /// the emulation's log (a `slow` board's first late block, a bootloader held back),
    /// never a time.
    @Suite
    struct FlashInterruptionTests {
        static var ready: Bool { FlashFromFirmwareTests.ready && ChildProcessPath.find("avrdude") != nil }

        /// Runs `script` (with $h the built hapbridge, in a scratch directory holding
        /// the log) under `emulate bridge --log log.jsonl`; the first flash's JSON record.
        func run(_ script: String) throws -> (run: Emulate.Run, record: [String: Any]?, dir: String) {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flash-signal-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let full = """
                h=$1; cd "$2" || exit 9
                # Polls the emulation's log for an event (bounded), as the test's only clock.
                await_event() { n=0; until grep -q "\\"event\\":\\"$1\\"" log.jsonl; do n=$((n + 1)); [ $n -lt 1200 ] || { echo "no $1 event"; exit 9; }; sleep 0.05; done; }
                \(script)
                """
            let run = try Emulate.bridge(.core, ["--log", dir + "/log.jsonl"], ["/bin/sh", "-c", full, "sh", Emulate.hapbridge, dir])
            let first = (try? String(contentsOfFile: dir + "/first.json", encoding: .utf8)) ?? ""
            let record = try? JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any]
            return (run, record, dir)
        }

        @Test(
            "SIGINT mid-write: the block in flight finishes and none after it, exit 130, the Error: line and the JSON say the application is erased and partly written (its reset vector page last, so not yet) with the ranges avrdude reads back, the board stays in Caterina, and flash again succeeds",
            .enabled(if: ready, "make -C Firmware firmware; avrdude"))
        func signalMidWrite() throws {
            let (run, record, dir) = try run("""
                "$h" emulate control fault slow 0x0800 >/dev/null
                "$h" flash --device usb:1-1 --json >first.json 2>first.err & pid=$!
                await_event fault
                kill -INT $pid; wait $pid; echo "first=$?"
                cat first.err >&2
                "$h" emulate control list
                avrdude -q -q -c avr109 -p atmega32u4 -P /dev/ttyACM0 -U flash:r:back.hex:i || echo "avrdude failed"
                # avrdude leaves the bootloader (E); with 0x0000 erased the board is back in it, on a new tty.
                n=0; until "$h" emulate control list | grep -q 'node=/dev/ttyACM1 bootloader=caterina'; do n=$((n + 1)); [ $n -lt 600 ] || break; sleep 0.05; done
                "$h" flash --device usb:1-1 >/dev/null 2>&1; echo "second=$?"
                """)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            #expect(run.status == 0, "\(run)")
            let lines = run.output.split(separator: "\n").map(String.init)
            #expect(lines.contains("first=130"), "\(run)")
            #expect(record?["ok"] as? Bool == false && record?["error"] as? String == "stopped" && record?["signal"] as? String == "SIGINT", "\(run)")
            #expect(record?["application"] as? String == "partly-written" && record?["inBootloader"] as? Bool == true, "\(run)")
            #expect(record?["bootloader"] as? String == "caterina" && record?["entry"] as? String == "enter-bootloader", "\(run)")
            let message = record?["message"] as? String ?? ""
            #expect(message.hasPrefix("stopped by SIGINT before the block at 0x"), "\(message)")
            #expect(message.contains("the board stays in its Caterina bootloader at /dev/ttyACM0") && message.contains("run `hapbridge flash` again to finish"), "\(message)")
            let errors = run.errors.split(separator: "\n").filter { $0.hasPrefix("Error:") }
            #expect(errors == ["Error: " + Substring(message)], "\(run)")
            #expect(lines.contains("1-1 serial=0001 plugged node=/dev/ttyACM0 bootloader=caterina"), "\(run)")
            // What it says it wrote is what the board holds: the image's bytes there, erased flash elsewhere.
            let written = (record?["written"] as? [[Int]] ?? []).compactMap { $0.count == 2 ? $0[0]...$0[1] : nil }
            try #require(written.count == 1, "\(String(describing: record))")
            #expect(written[0].lowerBound == 0x0080 && written[0].upperBound >= 0x087F, "the block at 0x0800 was in flight: \(written)")
            #expect(record?["writtenBytes"] as? Int == written[0].count)
            let image = try FirmwareImageFile.image(try Self.bytes(FlashFromFirmwareTests.firmwareHex), source: "fw", part: .atmega32u4)
            let pages = Dictionary(uniqueKeysWithValues: image.pages(of: .atmega32u4).map { ($0.address, $0.bytes) })
            var expected = [UInt8](repeating: 0xFF, count: AVRPart.atmega32u4.applicationBytes)
            for page in stride(from: written[0].lowerBound, through: written[0].upperBound, by: 128) {
                expected.replaceSubrange(page..<(page + 128), with: pages[page] ?? [])
            }
            // The application section of what avrdude read (the bootloader's own code follows it).
            let back = Array(try CaterinaTests.bytes(of: dir + "/back.hex").prefix(expected.count))
            #expect(back == Array(expected.prefix(back.count)), "the read-back differs from what the record says")
            #expect(Array(back.prefix(128)) == [UInt8](repeating: 0xFF, count: min(128, back.count)), "the reset vector's page is not written")
            #expect(lines.contains("second=0"), "\(run)")
        }

        @Test(
            "SIGTERM during the --device hand-over (ENTER_BOOTLOADER sent, the bootloader held back from the port): exit 143, the record says the board was sent to its bootloader with nothing erased and what Caterina does by itself; released, avrdude reads the firmware back intact and flash succeeds",
            .enabled(if: ready, "make -C Firmware firmware; avrdude"))
        func signalDuringHandOver() throws {
            let (run, record, dir) = try run("""
                "$h" emulate control hold >/dev/null
                "$h" flash --device usb:1-1 --json >first.json 2>first.err & pid=$!
                await_event held
                kill -TERM $pid; wait $pid; echo "first=$?"
                cat first.err >&2
                "$h" emulate control release >/dev/null
                avrdude -q -q -c avr109 -p atmega32u4 -P /dev/ttyACM0 -U flash:r:back.hex:i || echo "avrdude failed"
                # avrdude leaves the bootloader: the firmware comes back and is sent there again.
                n=0; until "$h" emulate control list | grep -q 'node=/dev/bus/usb'; do n=$((n + 1)); [ $n -lt 600 ] || break; sleep 0.05; done
                "$h" flash --device usb:1-1 >/dev/null 2>&1; echo "second=$?"
                """)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            #expect(run.status == 0, "\(run)")
            let lines = run.output.split(separator: "\n").map(String.init)
            #expect(lines.contains("first=143"), "\(run)")
            #expect(record?["error"] as? String == "stopped" && record?["signal"] as? String == "SIGTERM", "\(run)")
            #expect(record?["application"] as? String == "intact" && record?["inBootloader"] as? Bool == true && record?["erased"] as? Bool == false, "\(run)")
            let message = record?["message"] as? String ?? ""
            #expect(message.contains("the board was sent to its bootloader and nothing was erased") && message.contains("about 8 s"), "\(message)")
            #expect(run.errors.contains("Error: stopped by SIGTERM while usb:1-1's bootloader was awaited"), "\(run)")
            // Nothing was erased: the board's flash holds the firmware it ran (avrdude trims trailing 0xFF).
            let firmware = try CaterinaTests.bytes(of: FlashFromFirmwareTests.firmwareHex)
            let back = try CaterinaTests.bytes(of: dir + "/back.hex")
            #expect(!firmware.isEmpty && Array(back.prefix(firmware.count)) == firmware, "the application changed")
            #expect(lines.contains("second=0"), "\(run)")
        }

        static func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
    }
}
