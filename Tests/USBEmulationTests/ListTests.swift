import Foundation
import Testing

/// `hapbridge list` across a bus of emulated boards, through real libusb: every board
/// by its port with its kind, and a port that keeps its address when the device on it
/// re-enumerates. (How fast: `EngineBenchmarks --discovery-only`; the bound here is
/// only a hang guard.)
extension EmulatedBoards {
    @Suite
    struct ListTests {
        static func boards(_ json: Substring) throws -> [[String: Any]] {
            let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
            #expect(object?["schema"] as? String == "hapbridge-list/1")
            return try #require(object?["boards"] as? [[String: Any]], "not a list: \(json)")
        }

        // Gated: in a debug build 126 idle core boards need more than this machine's two
        // cores (each steps its DRV2605 model every 100 µs), and the run passed its 300 s
        // hang guard. HAPBRIDGE_FULL_BUS=1 runs it (release: scripts/test -c release).
        @Test(
            "a full bus (126 boards): list shows every one once, by port, with its own serial and kind bridge-firmware",
            .enabled(if: ProcessInfo.processInfo.environment["HAPBRIDGE_FULL_BUS"] == "1", "HAPBRIDGE_FULL_BUS=1 (CPU-bound in debug)"))
        func fullBus() throws {
            let run = try Emulate.run(
                [Emulate.hapbridge, "emulate", "bridge", "--firmware", "core", "--boards", "126", "--", Emulate.hapbridge, "list", "--json"],
                hangGuardSeconds: 300)
            #expect(run.status == 0, "\(run.errors)")
            let boards = try Self.boards(Substring(run.output))
            #expect(boards.count == 126)
            #expect(boards.map { $0["address"] as? String } == (1...126).map { "usb:1-\($0)" })
            let serials = boards.map { $0["serial"] as? String ?? "-" }
            #expect(serials == (1...126).map { String(repeating: "0", count: max(0, 4 - "\($0)".count)) + "\($0)" })
            #expect(boards.allSatisfy { $0["kind"] as? String == "bridge-firmware" && $0["usbID"] as? String == "1209:0001" })
            // Every board is asked HELLO. 126 core boards each step their DRV2605 model every
            // 100 µs of real time, more than two cores do in a debug build, so a board may
            // answer late there ("no-answer"); anything else is a fault.
            let faults = boards.filter { !["ok", "no-answer"].contains($0["status"] as? String ?? "") }
            #expect(faults.isEmpty, "\(faults.prefix(3))")
            #expect(boards.contains { $0["status"] as? String == "ok" && $0["protocol"] as? String == "1.1" })
        }

        @Test("list --json of 30 boards is one whole JSON document (past the 4,096 characters a printed line is cut at), every board ok")
        func longListIsWholeJSON() throws {
            let run = try Emulate.run(
                [Emulate.hapbridge, "emulate", "bridge", "--firmware", "core", "--boards", "30", "--", Emulate.hapbridge, "list", "--json"],
                hangGuardSeconds: 300)
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.utf8.count > 4_096)
            let boards = try Self.boards(Substring(run.output))
            #expect(boards.map { $0["address"] as? String } == (1...30).map { "usb:1-\($0)" })
            #expect(boards.allSatisfy { $0["status"] as? String == "ok" }, "\(boards.filter { $0["status"] as? String != "ok" }.prefix(3))")
        }

        @Test("a board another program holds (its interface claimed: EBUSY) is listed as busy, in the table and in JSON, with what holds it; released, it is ok again")
        func busyBoard() throws {
            // The holder keeps the interface until its standard input (a FIFO this script
            // holds open) ends; it says "holding" once it has claimed it.
            let script = #"""
                h=$1 probe=$2
                cd "$(mktemp -d)" && mkfifo hold.in || exit 9
                "$probe" hold <hold.in >hold.out & holder=$!
                exec 3>hold.in
                n=0; until grep -q '^holding' hold.out; do n=$((n + 1)); [ $n -lt 600 ] || { echo "never holding"; exit 9; }; sleep 0.05; done
                "$h" list; "$h" list --json; "$h" info >/dev/null; echo "info=$?"
                exec 3>&-; wait $holder
                "$h" list --json
                """#
            let run = try Emulate.bridge(.core, [], ["/bin/sh", "-c", script, "sh", Emulate.hapbridge, Emulate.probe])
            #expect(run.status == 0, "\(run)")
            let lines = run.output.split(separator: "\n")
            try #require(lines.count == 5, "\(run)")
            #expect(lines[1].hasPrefix("usb:1-1") && lines[1].contains("busy: the bridge board at usb:1-1 is in use by another program"), "\(run)")
            let held = try #require(try Self.boards(lines[2]).first)
            #expect(held["status"] as? String == "busy" && (held["message"] as? String)?.contains("in use by another program") == true, "\(held)")
            // The command that needs the board says why it cannot have it.
            #expect(lines[3] == "info=1" && run.errors.contains("Error: the bridge board at usb:1-1 is in use by another program"), "\(run)")
            #expect(try Self.boards(lines[4]).first?["status"] as? String == "ok", "\(run)")
        }

        @Test("a board unplugged and plugged back keeps its port's address (a new device number); the table shows its KIND")
        func portKeepsItsAddress() throws {
            let script = """
                "$1" list --json && "$1" emulate control unplug 1-2 >/dev/null && "$1" emulate control replug 1-2 >/dev/null \
                && "$1" list --json && "$1" list
                """
            let run = try Emulate.bridge(.core, ["--boards", "2", "--serial", "HB-P1", "--serial", "HB-P2"], ["/bin/sh", "-c", script, "sh", Emulate.hapbridge])
            #expect(run.status == 0, "\(run)")
            let lines = run.output.split(separator: "\n")
            try #require(lines.count >= 5, "\(run)")
            let before = try Self.boards(lines[0])
            let after = try Self.boards(lines[1])
            let port2 = { (boards: [[String: Any]]) in boards.first { $0["address"] as? String == "usb:1-2" } }
            let was = try #require(port2(before))
            let now = try #require(port2(after), "port 1-2 lost its address: \(after)")
            #expect(was["serial"] as? String == "HB-P2" && now["serial"] as? String == "HB-P2")
            #expect(now["kind"] as? String == "bridge-firmware" && now["status"] as? String == "ok")
            #expect(was["deviceNumber"] as? Double != now["deviceNumber"] as? Double, "a replug enumerates afresh")
            // The other board is untouched.
            #expect(port2(before).map { _ in before.count } == 2 && after.count == 2)
            #expect(lines[2].hasPrefix("ADDRESS") && lines[2].contains("KIND") && lines[3].contains("bridge-firmware"), "\(run)")
        }
    }
}
