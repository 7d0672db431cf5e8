import Foundation
import Testing
import USBEmulation

extension EmulatedBoards {
    /// A play's start reaches the board in time for its stamps, whatever the board is
    /// doing and however far the emulation has fallen behind the wall clock. Each play
    /// opens an engine, whose chip setup is a block of ~10 frames sharing one stamp.
    /// The board's own count of commands started late (QUEUE_STATUS, the play's
    /// `--record`) is the witness: the board's clock, not the host's, so a busy machine
    /// changes nothing here unless the host itself sent a command after its stamp (then
    /// the host's count says so, and the board's count proves nothing either way).
    @Suite
    struct OnTimeStartTests {
        /// The record's count of underruns, and whether the host sent anything late.
        static func lateness(_ path: String) throws -> (underruns: Int, hostLate: Bool) {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            let stats = try #require(json["statistics"] as? [String: Any], "\(json)")
            let underruns = try #require(stats["underruns"] as? Int, "\(stats)")
            return (underruns, (stats["late"] as? Int ?? 0) > 0)
        }

        /// Under the ELF with the LIS3DH fitted, the firmware reads the sensor's FIFO in
        /// its main loop (up to ~1.1 ms), between two bulk OUT packets: the setup block
        /// of a start used to come in partly after its stamp, and the commands taken in
        /// after the queue had run dry started late (1–8 underruns in 4 of 10 HIL runs
        /// on a loaded machine). Five plays, five engine starts, none late.
        @Test(
            "with the board streaming its accelerometer, every play's chip setup is taken in before its stamp: no command starts late",
            arguments: Emulate.backings)
        func startsOnTimeWhileTheSensorStreams(_ backing: Emulate.Backing) throws {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("on-time-start-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let h = Emulate.hapbridge
            let plays = 5
            let script = (1...plays).map { i in
                "\(h) play ios.notification.success --device usb --actuator pmd-c10-100 --record '\(dir.path)/\(i).json'; echo play-status=$?"
            }.joined(separator: "\n")
            let run = try Emulate.bridge(backing, ["--accelerometer"], ["bash", "-c", script])
            #expect(run.status == 0, "\(run)")
            for i in 1...plays {
                let (underruns, hostLate) = try Self.lateness("\(dir.path)/\(i).json")
                if !hostLate { #expect(underruns == 0, "play \(i): \(underruns) commands started late by the board\n\(run)") }
            }
        }

        /// A simulation starved of CPU falls behind the wall clock, then runs its backlog
        /// at ~2x real time: `emulate control stall` stops it outright (SIGSTOP) for
        /// 400 ms, the play's HELLO and SYNCs wait meanwhile, and before the harness
        /// carried out each host line at the simulated time it was sent, they reached the
        /// firmware that far early in its clock: the host fitted the lag as the clocks'
        /// offset and its stamps landed late once the simulation caught up (17
        /// underruns). The witness is the host's clock itself: the offset `play` states
        /// against the one the emulation's log shows (each chip write's board_us beside
        /// the host_us it was logged at), which must agree within the error `play`
        /// states. Not the board's count of late starts: beside busy cores a submit
        /// through the emulated usbfs (a socket round trip to the emulation, queued
        /// behind the event thread's reaps) can take ~2 ms, and the setup block's last
        /// frames then start late with the clock read right (6 and 9 underruns, offsets
        /// 545 and 307 µs off within ±828 and ±677 µs) — a wait a real board's submit
        /// does not have, so those late starts are said, not asserted.
        @Test(
            "a play that opens while the ELF is stalled and then catching up reads the board's clock right: the simulation's lag never reaches the board's clock as the host reads it")
        func startsOnTimeAfterTheSimulationFellBehind() throws {
            guard Emulate.backings.contains(.elf) else { return }  // the ELF is not built (scripts/test requires it)
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("on-time-lag-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let h = Emulate.hapbridge
            let record = dir.appendingPathComponent("record.json").path
            let script = """
                \(h) emulate control stall 400 || exit 1
                \(h) play ios.notification.success --device usb --actuator pmd-c10-100 --record '\(record)'
                echo play-status=$?
                """
            let log = dir.appendingPathComponent("log.jsonl").path
            let run = try Emulate.bridge(.elf, ["--log", log], ["bash", "-c", script])
            #expect(run.status == 0, "\(run)")
            #expect(run.output.contains("ok stalled 1-1 for 400 ms"), "\(run)")
            let stated = try #require(Self.statedClock(run.output), "play states its clock: \(run)")
            let logged = try #require(try Self.loggedOffset(log), "the log has chip writes after the stall")
            #expect(
                abs(stated.offset - logged) <= stated.error + Self.logTolerance,
                "the host read the board's clock \(stated.offset - logged) µs off (its stated error ±\(stated.error) µs)\n\(run)")
            let (underruns, _) = try Self.lateness(record)
            if underruns > 0 { print("OnTimeStartTests: \(underruns) late starts with the clock read \(stated.offset - logged) µs off (±\(stated.error))") }
        }

        /// How far a chip write's host_us in the log may trail the write: the harness
        /// reports it after the simulated write (~100 µs slices), and the emulation logs
        /// it as its line comes in.
        static let logTolerance = 1_000.0

        /// The clock `play` states: "clock: board − host offset X µs, …, error ±E µs".
        static func statedClock(_ output: String) -> (offset: Double, error: Double)? {
            guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("clock: board − host offset ") }) else { return nil }
            let numbers = line.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "±" }).compactMap { Double($0) }
            guard numbers.count >= 3 else { return nil }
            return (numbers[0], numbers[2])
        }

        /// The board − host offset the emulation's log shows after the stall: the median
        /// over the chip writes of board_us − host_us.
        static func loggedOffset(_ path: String) throws -> Double? {
            var stalledAt: Int64?
            var offsets: [Double] = []
            for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let event = object["event"] as? String, let host = (object["host_us"] as? NSNumber)?.int64Value
                else { continue }
                if event == "stall" { stalledAt = host }
                if event == "i2c", object["op"] as? String == "w", let stalled = stalledAt, host > stalled,
                    let board = (object["board_us"] as? NSNumber)?.doubleValue
                {
                    offsets.append(board - Double(host))
                }
            }
            return offsets.isEmpty ? nil : offsets.sorted()[offsets.count / 2]
        }
    }
}
