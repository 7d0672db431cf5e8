import Foundation
import Testing

/// The product on an emulated bridge board, through real libusb: `hapbridge` itself
/// (list, info, play, calibrate, diagnose) and the engine as a long-lived client
/// (`usb-engine-probe`), with the emulation's log as the board's own record.
extension EmulatedBoards {
    @Suite
    struct ProductOverUSBTests {
        static let hapbridge = Emulate.hapbridge
        static let engineProbe = Emulate.products + "/usb-engine-probe"

        /// A scratch directory, removed by the caller.
        static func scratch() throws -> URL {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("hapbridge-usb-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }

        static func json(_ text: String) throws -> [String: Any] {
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
            return try #require(object as? [String: Any], "not a JSON object: \(text)")
        }

        @Test("list shows the board libusb enumerates: its port, serial, firmware, protocol 1.1, chip and bootloader", arguments: Emulate.backings)
        func listShowsTheBoard(_ backing: Emulate.Backing) throws {
            let run = try Emulate.bridge(backing, ["--serial", "HB-LIST-1"], [Self.hapbridge, "list", "--json"])
            #expect(run.status == 0, "\(run)")
            let boards = try #require(try Self.json(run.output)["boards"] as? [[String: Any]])
            try #require(boards.count == 1, "\(run)")
            let b = boards[0]
            #expect(b["address"] as? String == "usb:1-1" && b["serial"] as? String == "HB-LIST-1")
            #expect(b["status"] as? String == "ok" && b["protocol"] as? String == "1.1" && b["chip"] as? String == "DRV2605L")
            #expect(b["firmware"] as? String != nil && b["queueCapacity"] as? Double == 96)
            // Each backing reports the bootloader its jump leads to, Caterina, found as the
            // firmware finds it: the ELF scans its boot section, the core's is scanned by the
            // same C function over the Caterina image the emulation carries.
            #expect(b["bootloader"] as? String == "caterina", "\(run)")
            // The board runs the firmware this hapbridge carries: nothing to update.
            #expect(b["firmwareUpdate"] is NSNull && b["message"] is NSNull, "\(run)")
        }

        @Test("list and info say when a board's firmware is older than this hapbridge's, and that flash updates it")
        func olderFirmwareIsPointedToFlash() throws {
            // `--protocol 1.0`: the core answering as firmware 0.1 does.
            let list = try Emulate.bridge(.core, ["--protocol", "1.0"], [Self.hapbridge, "list", "--json"])
            let board = try #require((try Self.json(list.output)["boards"] as? [[String: Any]])?.first, "\(list)")
            #expect(board["firmware"] as? String == "0.1" && board["status"] as? String == "ok", "\(list)")
            #expect(board["firmwareUpdate"] as? String == "0.2", "\(list)")
            #expect((board["message"] as? String)?.contains("`hapbridge flash --device usb:1-1` updates it") == true, "\(list)")
            let table = try Emulate.bridge(.core, ["--protocol", "1.0"], [Self.hapbridge, "list"])
            #expect(table.output.contains("firmware 0.1 is older than this hapbridge's 0.2"), "\(table)")
            let info = try Emulate.bridge(.core, ["--protocol", "1.0"], [Self.hapbridge, "info", "--device", "usb"])
            #expect(info.status == 0 && info.output.contains("note: firmware 0.1 is older than this hapbridge's 0.2: `hapbridge flash"), "\(info)")
        }

        @Test("info reads the board's identity and the DRV2605's registers through the bridge", arguments: Emulate.backings)
        func infoReadsRegisters(_ backing: Emulate.Backing) throws {
            let run = try Emulate.bridge(backing, [], [Self.hapbridge, "info", "--device", "usb", "--json"])
            #expect(run.status == 0, "\(run)")
            let info = try Self.json(run.output)
            #expect(info["address"] as? String == "usb:1-1" && info["protocol"] as? String == "1.1")
            let registers = try #require(info["registers"] as? [String: Double], "\(run)")
            // STATUS: DEVICE_ID 7 (DRV2605L) in bits 7:5; the firmware left the chip in standby (MODE 0x40).
            #expect(registers["STATUS"].map { Int($0) >> 5 } == 7 && registers["MODE"] == 0x40)
            #expect((info["capabilities"] as? [String])?.contains("register-access") == true)
        }

        @Test("two boards: an address picks one by serial or port; no address is an error naming both", arguments: [Emulate.Backing.core])
        func twoBoardsAreChosenByAddress(_ backing: Emulate.Backing) throws {
            let options = ["--boards", "2", "--serial", "HB-A", "--serial", "HB-B"]
            let bySerial = try Emulate.bridge(backing, options, [Self.hapbridge, "info", "--device", "usb:HB-B", "--json"])
            #expect(bySerial.status == 0, "\(bySerial)")
            #expect(try Self.json(bySerial.output)["address"] as? String == "usb:1-2")
            let byPort = try Emulate.bridge(backing, options, [Self.hapbridge, "info", "--device", "usb:1-1", "--json"])
            #expect(try Self.json(byPort.output)["serial"] as? String == "HB-A")
            let none = try Emulate.bridge(backing, options, [Self.hapbridge, "info"])
            #expect(none.status == 1)
            #expect(none.errors.contains("2 bridge boards found; pick one with --device") && none.errors.contains("usb:1-1")
                && none.errors.contains("usb:HB-B"), "\(none)")
        }

        @Test("hapbridge itself against boards that misbehave: each a clear one-line error, never a hang")
        func misbehavingBoardsGetClearErrors() throws {
            let denied = try Emulate.bridge(.core, ["--deny-access"], [Self.hapbridge, "list", "--json"])
            let board = try #require((try Self.json(denied.output)["boards"] as? [[String: Any]])?.first, "\(denied)")
            #expect(board["status"] as? String == "access-denied", "\(denied)")
            #expect((board["message"] as? String)?.contains("install Hardware/udev/60-hapbridge.rules") == true)
            let deniedInfo = try Emulate.bridge(.core, ["--deny-access"], [Self.hapbridge, "info", "--device", "usb"])
            #expect(deniedInfo.status == 1 && deniedInfo.errors.contains("permission denied") && deniedInfo.errors.contains("udev"), "\(deniedInfo)")

            let noise = try Emulate.bridge(.noise, [], [Self.hapbridge, "info", "--device", "usb"])
            #expect(noise.status == 1 && noise.errors.contains("that were not hapbridge frames"), "\(noise)")

            let old = try Emulate.bridge(.core, ["--protocol", "1.0"], [Self.hapbridge, "calibrate", "--device", "usb", "--actuator", "pmd-c10-100"])
            #expect(old.status == 1 && old.errors.contains("cannot read registers: run `hapbridge flash`"), "\(old)")
            let oldList = try Emulate.bridge(.core, ["--protocol", "1.0"], [Self.hapbridge, "list", "--json"])
            let oldBoard = try #require((try Self.json(oldList.output)["boards"] as? [[String: Any]])?.first, "\(oldList)")
            #expect(oldBoard["protocol"] as? String == "1.0" && oldBoard["serial"] as? String != nil)
        }

        /// PROTOCOL.md, "Stamped commands": "A stamp is when the chip takes the command:
        /// the STOP of the I2C write that carries it".
        @Test("play on the firmware ELF: every RTP's write reaches its STOP, where the chip takes it, within 10 µs of its stamp, nothing late")
        func playLandsEveryRTPAtItsStamp() throws {
            guard Emulate.backings.contains(.elf) else { return }
            let dir = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            let log = dir.appendingPathComponent("log.jsonl").path, record = dir.appendingPathComponent("record.json").path
            let run = try Emulate.bridge(
                .elf, ["--log", log], [Self.hapbridge, "play", Emulate.packageRoot + "/Examples/Beethoven5.ahap", "--device", "usb", "--actuator", "pmd-c10-100", "--record", record])
            // A host too loaded to send every command before its stamp (the ELF under simavr
            // beside a whole test run) makes the play say so, exit 4: no firmware can land a
            // command that reached it after its stamp. The precision is pinned when it did.
            if run.status == 4 {
                #expect(run.errors.contains("played late: "), "\(run)")
                return
            }
            #expect(run.status == 0, "\(run)")
            let sent = try #require(try Self.json(String(contentsOfFile: record, encoding: .utf8))["commands"] as? [[String: Any]])
            // An RTP that is the first command of its stamp is an event and latches on it;
            // one behind others of the same stamp (the set-up block's closing RTP 0) waits
            // for their bus writes, one after another, as PROTOCOL.md says.
            let stamps = sent.enumerated().compactMap { i, c -> Double? in
                guard c["kind"] as? String == "rtp", let t = c["board_us"] as? Double else { return nil }
                return i > 0 && sent[i - 1]["board_us"] as? Double == t ? nil : t
            }
            let writes = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap { line -> Double? in
                guard let e = try? Self.json(String(line)), e["event"] as? String == "i2c", e["op"] as? String == "w",
                    (e["bytes"] as? String)?.hasPrefix("02") == true
                else { return nil }
                return e["board_stop_us"] as? Double
            }
            #expect(stamps.count > 20, "\(run)")
            var errors: [Double] = []
            for stamp in stamps {
                // The write that ended at or just after the stamp.
                guard let w = writes.first(where: { $0 >= stamp - 1 }) else {
                    Issue.record("no RTP_INPUT write for the stamp \(stamp)")
                    continue
                }
                errors.append(w - stamp)
            }
            #expect(errors.allSatisfy { abs($0) <= 10 }, "worst \(errors.map(abs).max() ?? 0) µs")
            #expect(run.output.contains(" 0 late") && run.output.contains(" 0 rejected"), "\(run)")
        }

        @Test("calibrate and diagnose run through the bridge; the stored calibration makes play drive the LRA in closed loop")
        func calibrateDiagnoseAndClosedLoopOverUSB() throws {
            // The core backing; the ELF drives the same chip model and is held to the
            // same answers in OneChipModelOverUSBTests.
            let dir = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            let env = ["env", "XDG_CONFIG_HOME=\(dir.path)"]
            let calibrate = try Emulate.bridge(.core, [], env + [Self.hapbridge, "calibrate", "--device", "usb", "--actuator", "pmd-c10-100"])
            #expect(calibrate.status == 0 && calibrate.output.contains("auto-calibration: PASS"), "\(calibrate)")
            #expect(calibrate.output.contains("stored for `play` (closed loop): \(dir.path)/hapbridge/calibration/0001@pmd-c10-100.json"))
            let diagnose = try Emulate.bridge(.core, [], [Self.hapbridge, "diagnose", "--device", "usb", "--actuator", "pmd-c10-100"])
            #expect(diagnose.status == 0 && diagnose.output.contains("diagnostic: PASS"), "\(diagnose)")
            let play = try Emulate.bridge(.core, [], env + [Self.hapbridge, "play", "impact.heavy", "--device", "usb", "--actuator", "pmd-c10-100"])
            #expect(play.ranToTheEnd && play.output.contains("drive: closed loop") && play.output.contains("closed loop,"), "\(play)")
        }

        @Test("sweep on a bridge board without an accelerometer: refused before anything is driven, with the reason (status 1)")
        func sweepNeedsAnAccelerationSource() throws {
            let sweep = try Emulate.bridge(.core, [], [Self.hapbridge, "sweep", "--device", "usb", "--actuator", "pmd-c10-100"])
            #expect(sweep.status == 1 && sweep.errors.contains("gives no acceleration (no accelerometer or simulated sled)"), "\(sweep)")
            #expect(!sweep.errors.contains("sweep 1/"), "nothing driven: \(sweep)")
        }

        @Test("unplugged mid-play: play stops with the reason and status 3", arguments: Emulate.backings)
        func unplugMidPlayIsReported(_ backing: Emulate.Backing) throws {
            let dir = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            let out = dir.appendingPathComponent("play.txt").path
            let buzz = dir.appendingPathComponent("buzz.ahap").path
            try #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":20}}]}"#.write(
                toFile: buzz, atomically: true, encoding: .utf8)
            let script = """
                "$0" play "\(buzz)" --device usb --actuator pmd-c10-100 >"\(out)" 2>&1 & p=$!
                until grep -q '^playing' "\(out)"; do sleep 0.02; done
                "$0" emulate control unplug >/dev/null; wait $p; echo "status=$?"; cat "\(out)"
                """
            let run = try Emulate.bridge(backing, [], ["sh", "-c", script, Self.hapbridge])
            #expect(run.output.contains("status=3"), "\(run)")
            #expect(run.output.contains("stopped early") && run.output.contains("device disconnected"), "\(run)")
        }

        @Test(
            "cable pulled from a powered board mid-play: play stops with device disconnected, and the firmware's host-silence watchdog stops the actuator within its keep-alive, in board time",
            arguments: Emulate.backings)
        func theWatchdogStopsAnOrphanedBoard(_ backing: Emulate.Backing) throws {
            let dir = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            let out = dir.appendingPathComponent("play.txt").path, log = dir.appendingPathComponent("log.jsonl").path
            let buzz = dir.appendingPathComponent("buzz.ahap").path
            try #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":20}}]}"#.write(
                toFile: buzz, atomically: true, encoding: .utf8)
            // Detach once the buzz drives the chip (a non-zero RTP_INPUT in the log), then
            // wait for the firmware to act on its own: one more MODE = STANDBY write.
            let driving = #"grep -Eq '"bytes":"02(0[1-9a-f]|[1-9a-f][0-9a-f])"'"#
            let standbys = #"grep -c '"bytes":"0140"'"#
            let script = """
                "$0" play "\(buzz)" --device usb --actuator pmd-c10-100 >"\(out)" 2>&1 & p=$!
                until \(driving) "\(log)"; do sleep 0.02; done
                before=$(\(standbys) "\(log)"); "$0" emulate control detach >/dev/null
                wait $p; echo "status=$?"; cat "\(out)"
                until [ "$(\(standbys) "\(log)")" -gt "$before" ]; do sleep 0.02; done
                """
            let run = try Emulate.bridge(backing, ["--log", log], ["sh", "-c", script, Self.hapbridge])
            #expect(run.output.contains("status=3") && run.output.contains("device disconnected"), "\(run)")
            let entries = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap { try? Self.json(String($0)) }
            // The last frame the firmware took from the host, on its own clock.
            let lastHost = try #require(entries.last { $0["event"] as? String == "bulk_out" }?["board_us"] as? Double)
            // The stop (PROTOCOL.md "The stop"): RTP_INPUT = 0, GO = 0, MODE = STANDBY, after it.
            let writes = entries.filter { $0["event"] as? String == "i2c" && $0["op"] as? String == "w" }
            let stop = try #require(
                writes.first { ($0["board_us"] as? Double ?? 0) > lastHost && ($0["bytes"] as? String) == "0200" }?["board_us"] as? Double,
                "no RTP_INPUT = 0 after the host fell silent: \(run)")
            #expect(writes.contains { ($0["board_us"] as? Double ?? 0) >= stop && ($0["bytes"] as? String) == "0140" }, "MODE = STANDBY follows")
            // Silent for the keep-alive (500 ms), then stopped at the next poll (≤ 1 ms).
            let silence = stop - lastHost
            #expect(silence >= 500_000 && silence <= 502_000, "stopped \(silence) µs after the last host frame")
        }

        @Test("unplugged and plugged back: the engine stops with deviceDisconnected, calls its reset handler, starts and plays again", arguments: Emulate.backings)
        func replugCallsTheResetHandlerAndPlaysAgain(_ backing: Emulate.Backing) throws {
            let dir = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            let out = dir.appendingPathComponent("probe.txt").path
            let script = """
                "\(Self.engineProbe)" replug 30 >"\(out)" 2>/dev/null & p=$!
                until grep -q '^playing' "\(out)"; do sleep 0.02; done
                "$0" emulate control unplug >/dev/null
                until grep -q '^stopped' "\(out)"; do sleep 0.02; done
                "$0" emulate control replug >/dev/null; wait $p; echo "status=$?"; cat "\(out)"
                """
            let run = try Emulate.bridge(backing, [], ["sh", "-c", script, Self.hapbridge])
            #expect(run.output.contains("status=0"), "\(run)")
            let lines = run.output.split(separator: "\n").map(String.init)
            #expect(lines.contains("stopped reason=device disconnected") && lines.contains("reset") && lines.contains("started-again")
                && lines.contains("finished"), "\(run)")
        }

        // How many reads fit in and whether the stream stayed on time are this machine's
        // pace: a benchmark's figures (EngineBenchmarks, "register reads … while it
        // streams"). The test pins what holds on any machine.
        @Test(
            "register reads through the engine's bus during a 10,000-event stream over emulated USB: every read answered with its register's value, the stream played to its end, any refusal only QUEUE_FULL and sent again"
        )
        func registerReadsWhileStreaming() throws {
            let run = try Emulate.bridge(.core, [], [Self.engineProbe, "reads", "10000"])
            #expect(run.status == 0, "\(run)")
            let line = try #require(run.output.split(separator: "\n").map(String.init).first { $0.hasPrefix("reads=") }, "\(run)")
            let fields = Dictionary(uniqueKeysWithValues: Emulate.words(line).compactMap { w -> (String, String)? in
                let kv = w.split(separator: "=", maxSplits: 1).map(String.init)
                return kv.count == 2 ? (kv[0], kv[1]) : nil
            })
            let reads = Int(fields["reads"] ?? "") ?? 0
            #expect(reads > 0, "\(line)")
            #expect(fields["answered"] == fields["reads"] && fields["wrong"] == "0", "\(line)")
            // A board that fell behind under a loaded test run may refuse a frame
            // (QUEUE_FULL): the link sends it again. Any other refusal is a failure.
            #expect(fields["rejected"] == fields["queueFull"], "\(line)")
            #expect(Int(fields["sent"] ?? "") ?? 0 >= 10_000 && fields["running"] == "true", "\(line)")
        }
    }
}
