import Foundation
import FoundationXML
import TestSupport
import Testing

/// Farm mode: one suite on every device a tag selects, each device in a task of its own
/// under its own lock, every result keyed by device, one record for the run and one per
/// device. Through the built executable: under `hapbridge emulate bridge --boards 4` (four
/// bridge boards on USB, ports 1-1 … 1-4) and on simulated boards. Every wait is a poll
/// for a state with a bound, never a sleep for timing.
@Suite("hapbridge run: farm mode (a suite on every device a tag selects, concurrently)")
struct RunFarmTests {
    static let boards = ["board-1", "board-2", "board-3", "board-4"]

    /// Four bridge boards, each tagged `farm`.
    static let farmBench = """
        bench: farm
        devices:
        \(boards.enumerated().map { "  - {name: \($0.element), address: \"usb:1-\($0.offset + 1)\", actuator: pmd-c10-100, tags: [farm]}" }.joined(separator: "\n"))

        """

    /// Bring-up, a test that holds the board while something happens beside the run, and
    /// one after it: each on every `farm` device. Diagnose only: nothing here plays, so
    /// nothing can be late on a busy machine.
    static let farmSuite = """
        suite: farm
        tests:
          - name: bring-up
            device: farm
            steps:
              - diagnose:
          - name: held
            device: farm
            steps:
              - wait: 10000
              - diagnose:
          - name: after
            device: farm
            steps:
              - diagnose:

        """

    static func load(_ path: String) throws -> [String: Any] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        return try #require(json as? [String: Any], "\(path)")
    }

    static func tests(_ record: [String: Any]) -> [[String: Any]] { (record["tests"] as? [[String: Any]]) ?? [] }

    static func counts(_ record: [String: Any]) -> [String: Int] {
        ((record["counts"] as? [String: Any]) ?? [:]).compactMapValues { ($0 as? Double).map { Int($0) } ?? ($0 as? Int) }
    }

    @Test(
        "Under emulate bridge --boards 4, a suite on a tag runs on all four boards at once: each result once per device; a second run on one board is refused naming the holder while the others run; unplugging one board mid-run ERRORs its tests only; the run's counts are the sum of the per-device records'",
        .enabled(if: FileManager.default.fileExists(atPath: Repo.hapbridge)))
    func fourEmulatedBoards() throws {
        let dir = try temporaryDirectory()
        try Self.farmBench.write(toFile: "\(dir)/farm.yaml", atomically: true, encoding: .utf8)
        try Self.farmSuite.write(toFile: "\(dir)/suite.yaml", atomically: true, encoding: .utf8)
        try "bench: solo\ndevices:\n  - {name: solo, address: \"usb:1-2\", actuator: pmd-c10-100, tags: [farm]}\n".write(toFile: "\(dir)/solo.yaml", atomically: true, encoding: .utf8)
        let h = Repo.hapbridge
        // The farm run starts; once board-3 has finished its bring-up (its progress line,
        // polled with a bound) it is in `held`'s ten-second wait, and the others are in
        // theirs or about to be: board-3 is unplugged through the emulation's control
        // socket, then a second run on board-2 is tried while the farm run holds it.
        let script = """
            "\(h)" run "\(dir)/farm.yaml" "\(dir)/suite.yaml" --json "\(dir)/run.json" --junit "\(dir)/run.xml" --lock-dir "\(dir)" --vanish-wait 1 2>"\(dir)/run.err" & a=$!
            n=0; until grep -q "bring-up \\[board-3\\]: " "\(dir)/run.err" 2>/dev/null || [ $n -gt 2400 ]; do n=$((n+1)); sleep 0.05; done
            "\(h)" emulate control unplug 1-3; echo "unplug=$?"
            "\(h)" run "\(dir)/solo.yaml" "\(dir)/suite.yaml" --lock-dir "\(dir)" 2>"\(dir)/second.err"; echo "second=$?"
            echo "farm-pid=$a"; wait $a; echo "farm=$?"
            """
        let run = try BoundedProcess.run(h, ["emulate", "bridge", "--boards", "4", "--firmware", "core", "--", "sh", "-c", script], hangGuardSeconds: 400)
        let progress = (try? String(contentsOfFile: "\(dir)/run.err", encoding: .utf8)) ?? ""
        let second = (try? String(contentsOfFile: "\(dir)/second.err", encoding: .utf8)) ?? ""
        let pid = run.output.split(separator: "\n").first { $0.hasPrefix("farm-pid=") }?.dropFirst("farm-pid=".count) ?? "?"
        #expect(!run.hung, "\(run.output)\n\(run.errors)\n\(progress)")
        #expect(run.output.contains("unplug=0") && run.output.contains("farm=9"), "an ERROR on one board makes the run's 9: \(run.output)\n\(progress)")

        // The lock: board-2 is held by the farm run, which the refusal names.
        #expect(run.output.contains("second=10"), "\(run.output)\n\(second)")
        #expect(second.hasPrefix("Error: solo (usb:1-2) is locked by ") && second.contains("(pid \(pid) on ") && second.contains("farm.yaml"), "\(second)")

        // Every test once per device, in the run's record.
        let record = try Self.load("\(dir)/run.json")
        let tests = Self.tests(record)
        #expect(tests.count == 12, "\(tests.map { "\($0["name"] ?? "?") [\($0["device"] ?? "?")]" })")
        for name in ["bring-up", "held", "after"] {
            let on = tests.filter { $0["name"] as? String == name }.compactMap { $0["device"] as? String }
            #expect(on.sorted() == Self.boards, "\(name): \(on)")
        }
        func verdict(_ name: String, _ device: String) -> String? {
            tests.first { $0["name"] as? String == name && $0["device"] as? String == device }?["verdict"] as? String
        }
        // The unplugged board ERRORs what ran after the unplug; the others pass it all.
        #expect(verdict("bring-up", "board-3") == "PASS", "before the unplug: \(progress)")
        #expect(verdict("held", "board-3") == "ERROR" && verdict("after", "board-3") == "ERROR", "\(progress)")
        let heldMessage = tests.first { $0["name"] as? String == "held" && $0["device"] as? String == "board-3" }?["message"] as? String ?? ""
        #expect(heldMessage.contains("board-3 (usb:1-3) vanished mid-test"), "\(heldMessage)")
        // The other boards are untouched by the unplug: none of their tests says a board
        // vanished, and each passes. Each board has a libusb event thread of its own
        // (`HILRunner.makeSlots`): with one for all four, on a host whose cores were busy
        // besides, a board's traffic could wait behind the others' long enough to miss
        // its 500 ms host-silence window (NAK NOT_OPEN; PROTOCOL.md, "Safety").
        func message(_ name: String, _ device: String) -> String {
            tests.first { $0["name"] as? String == name && $0["device"] as? String == device }?["message"] as? String ?? ""
        }
        for board in Self.boards where board != "board-3" {
            for name in ["bring-up", "held", "after"] {
                let said = message(name, board)
                #expect(!said.contains("vanished") && !said.contains("board-3"), "\(name) [\(board)]: \(said)")
                #expect(verdict(name, board) == "PASS", "\(name) [\(board)]: \(progress)")
            }
        }

        // One record per device beside the run's; the run's counts are their sum.
        var sum: [String: Int] = [:]
        for board in Self.boards {
            let own = try Self.load("\(dir)/run.\(board).json")
            #expect(Self.tests(own).count == 3 && Self.tests(own).allSatisfy { $0["device"] as? String == board }, "\(board)")
            #expect((own["devices"] as? [[String: Any]])?.map { $0["name"] as? String } == [board], "\(board)")
            let theirs = Self.tests(own).map { $0["verdict"] as? String ?? "?" }
            #expect(own["verdict"] as? String == (theirs.contains("ERROR") ? "ERROR" : "PASS"), "\(board): \(own["verdict"] ?? "?") of \(theirs)")
            sum.merge(Self.counts(own), uniquingKeysWith: +)
        }
        #expect(Self.counts(record) == sum && sum.values.reduce(0, +) == 12 && (sum["ERROR"] ?? 0) >= 2, "\(Self.counts(record)) vs \(sum)")

        // JUnit keys each testcase by its device: twelve names, none twice.
        let xml = try XMLDocument(contentsOf: URL(fileURLWithPath: "\(dir)/run.xml"))
        let names = try xml.nodes(forXPath: "//testcase").compactMap { ($0 as? XMLElement)?.attribute(forName: "name")?.stringValue }
        #expect(names.count == 12 && Set(names).count == 12 && names.contains("held [board-3]"), "\(names)")
    }

    @Test("Two simulated devices tagged alike: the suite runs on each; run.json → run.a.json and run.b.json, each that device's, their counts summing to the run's")
    func perDeviceRecordsBesideTheRunsOwn() throws {
        let dir = try temporaryDirectory()
        try """
            bench: pair
            devices:
              - {name: a, address: sim, actuator: pmd-c10-100, tags: [pair]}
              - {name: b, address: sim, actuator: pmd-c10-100, tags: [pair]}
              - {name: spare, address: sim, actuator: pmd-c10-100}

            """.write(toFile: "\(dir)/bench.yaml", atomically: true, encoding: .utf8)
        try "suite: s\ntests:\n  - name: calibrates\n    device: pair\n    steps:\n      - calibrate:\n  - name: on a alone\n    device: a\n    steps:\n      - diagnose:\n"
            .write(toFile: "\(dir)/suite.yaml", atomically: true, encoding: .utf8)
        let r = try runProcess(Repo.hapbridge, ["run", "\(dir)/bench.yaml", "\(dir)/suite.yaml", "--json", "\(dir)/run.json", "--lock-dir", dir])
        #expect(r.status == 0 && r.signal == nil, "\(r.stderr)")
        #expect(r.stderr.contains("[1/3] s › calibrates [a]: PASS") && r.stderr.contains("[2/3] s › calibrates [b]: PASS"), "\(r.stderr)")
        let record = try Self.load("\(dir)/run.json")
        #expect(Self.tests(record).map { "\($0["name"] ?? "") [\($0["device"] ?? "")]" } == ["calibrates [a]", "calibrates [b]", "on a alone [a]"])
        let a = try Self.load("\(dir)/run.a.json"), b = try Self.load("\(dir)/run.b.json")
        #expect(Self.tests(a).count == 2 && Self.tests(b).count == 1)
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/run.spare.json"), "a device no test ran on has no record")
        #expect(Self.counts(record) == Self.counts(a).merging(Self.counts(b), uniquingKeysWith: +))
    }

    @Test("A tag that is also a device's name is refused at its line; a test naming neither a device nor a tag lists both")
    func tagsAreCheckedBeforeAnythingRuns() throws {
        let dir = try temporaryDirectory()
        try "bench: x\ndevices:\n  - {name: a, address: sim, actuator: pmd-c10-100}\n  - name: b\n    address: sim\n    actuator: pmd-c10-100\n    tags: [a]\n"
            .write(toFile: "\(dir)/clash.yaml", atomically: true, encoding: .utf8)
        try "bench: x\ndevices:\n  - {name: a, address: sim, actuator: pmd-c10-100, tags: [farm]}\n".write(toFile: "\(dir)/ok.yaml", atomically: true, encoding: .utf8)
        try "suite: s\ntests:\n  - name: t\n    device: farms\n    steps:\n      - diagnose:\n".write(toFile: "\(dir)/typo.yaml", atomically: true, encoding: .utf8)
        let clash = try runProcess(Repo.hapbridge, ["run", "\(dir)/clash.yaml", "\(dir)/typo.yaml", "--lock-dir", dir])
        #expect(clash.status == 2 && clash.stderr.contains("clash.yaml:7: devices[1].tags: tag \"a\" is also a device's name"), "\(clash.stderr)")
        let typo = try runProcess(Repo.hapbridge, ["run", "\(dir)/ok.yaml", "\(dir)/typo.yaml", "--lock-dir", dir])
        #expect(typo.status == 2 && typo.stderr.contains("typo.yaml:4: tests[0].device: the bench \(dir)/ok.yaml has no device \"farms\" and no device tagged so (it has a; tags farm)"), "\(typo.stderr)")
    }
}
