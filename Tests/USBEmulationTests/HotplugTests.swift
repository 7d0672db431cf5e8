import Foundation
import Testing
import USBEmulation

extension EmulatedBoards {
    /// Unplugging and plugging back while COMMAND runs, as libusb sees it: a transfer in
    /// flight ends with NO_DEVICE, hotplug reports the board leaving and arriving, and
    /// the board boots afresh with a new device address.
    @Suite
    struct HotplugTests {
        @Test("Unplug through the control socket: NO_DEVICE and 'left'; replug: 'arrived', and HELLO works again", arguments: Emulate.backings)
        func unplugAndReplugThroughTheControlSocket(_ backing: Emulate.Backing) throws {
            let run = try Emulate.bridge(backing, [], [Emulate.probe, "unplug-replug"])
            try expectUnplugAndReplug(run)
        }

        @Test("SIGUSR1 unplugs the first board and SIGUSR2 plugs it back in")
        func signalsUnplugAndReplug() throws {
            let run = try Emulate.bridge(.core, [], [Emulate.probe, "signal-replug"])
            try expectUnplugAndReplug(run)
            #expect(run.records("signal").map { $0["sent"] } == ["SIGUSR1", "SIGUSR2"])
        }

        func expectUnplugAndReplug(_ run: Emulate.Run) throws {
            #expect(run.status == 0, "\(run)")
            #expect(run.record("pending-transfer")["status"] == "LIBUSB_TRANSFER_NO_DEVICE", "\(run)")
            #expect(run.record("bulk-after-unplug")["result"] == "LIBUSB_ERROR_NO_DEVICE")
            #expect(run.records("hotplug").map { $0["event"] } == ["left", "arrived"])
            let boards = run.records("board")
            try #require(boards.count == 2, "\(run)")
            #expect(boards[0]["port"] == boards[1]["port"])
            #expect(boards[0]["address"] != boards[1]["address"], "a replugged device gets a new address, as on Linux")
            #expect(run.record("hello-reply")["protocol"] != nil)
        }

        @Test(
            "ENTER_BOOTLOADER: the ACK reaches the host, the board leaves the bus, its Caterina takes the port, and when avrdude leaves it (E) the firmware comes back and answers HELLO",
            .enabled(if: ChildProcessPath.find("avrdude") != nil, "avrdude"), arguments: Emulate.backings)
        func bootloaderJump(_ backing: Emulate.Backing) throws {
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("emulate-boot-\(UUID().uuidString).jsonl").path
            defer { try? FileManager.default.removeItem(atPath: log) }
            // The probe follows the board (left, then arrived again); meanwhile the
            // bootloader is awaited on the control socket (bounded) and left by avrdude,
            // whose avr109 programmer ends every session with E.
            let h = Emulate.hapbridge
            let script = """
                \(Emulate.probe) bootloader & probe=$!
                tries=0
                until \(h) emulate control list | grep -q 'bootloader=caterina'; do
                    tries=$((tries + 1)); [ $tries -lt 2000 ] || { echo "no bootloader"; exit 9; }
                done
                \(h) emulate control list
                avrdude -q -q -c avr109 -p atmega32u4 -P /dev/ttyACM0 -n || exit 8
                wait $probe
                """
            let run = try Emulate.bridge(backing, ["--log", log], ["sh", "-c", script])
            #expect(run.status == 0, "\(run)")
            // PROTOCOL.md: ENTER_BOOTLOADER is acknowledged before the board leaves.
            #expect(run.record("ack")["type"] == "0x08")
            #expect(run.output.contains("1-1 serial=0001 plugged node=/dev/ttyACM0 bootloader=caterina"), "\(run)")
            #expect(run.records("hotplug").map { $0["event"] } == ["left", "arrived"])
            #expect(run.records("hello-reply").count == 2)
            let events = try EmulationLog.entries(atPath: log).map(\.event).filter { ["plug", "unplug", "reboot", "bootloader"].contains($0) }
            #expect(events.prefix(5) == ["plug", "unplug", "bootloader", "unplug", "plug"], "\(events)")
        }

        @Test("hapbridge emulate control lists, adds and unplugs boards; a bad command fails with the list of commands")
        func controlClient() throws {
            let script = """
                set -e
                hapbridge=\(Emulate.hapbridge)
                $hapbridge emulate control add --serial ADDED-3
                $hapbridge emulate control unplug 1-1
                $hapbridge emulate control list
                \(Emulate.probe) list
                if $hapbridge emulate control frobnicate; then exit 9; fi
                """
            let run = try Emulate.bridge(.core, ["--boards", "2"], ["sh", "-c", script])
            #expect(run.status == 0, "\(run)")
            #expect(run.output.contains("ok plugged 1-3 serial=ADDED-3 plugged"))
            #expect(run.output.contains("ok unplugged 1-1 serial=0001 unplugged"))
            #expect(run.output.contains("1-1 serial=0001 unplugged"))
            #expect(run.output.contains("1-2 serial=0002 plugged node=/dev/bus/usb/001/"))
            #expect(run.records("board").compactMap { $0["serial"] }.sorted() == ["0002", "ADDED-3"])
            #expect(run.output.contains("error unknown command \"frobnicate\""))
        }
    }
}
