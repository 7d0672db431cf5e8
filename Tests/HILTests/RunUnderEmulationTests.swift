import Foundation
import FoundationXML
import Testing
import TestSupport

/// `hapbridge run` on a bridge board: Examples/hil/bench-usb.yaml and suite-usb.yaml
/// under `hapbridge emulate bridge`, through the built executables, as a user runs
/// them. The flash step sends the running firmware into its Caterina bootloader, which
/// the emulation puts on the same port, programs and verifies it and follows it back;
/// unplug and replug go through the emulation's control socket.
@Suite("hapbridge run under emulate bridge: flash, unplug, replug")
struct RunUnderEmulationTests {
    static let bench = Repo.path("Examples/hil/bench-usb.yaml")
    static let suite = Repo.path("Examples/hil/suite-usb.yaml")
    static let carried = Repo.path("Firmware/build/hapbridge-32u4.hex")
    static let elf = Repo.path("Firmware/build/hapbridge-32u4.elf")
    static let harness = Repo.path("Firmware/build/host/sim-harness")
    static var ready: Bool { FileManager.default.fileExists(atPath: carried) }

    enum Backing: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case core, elf
        var testDescription: String { "--firmware \(rawValue)" }
        var arguments: [String] {
            switch self {
            case .core: ["--firmware", "core"]
            case .elf: ["--firmware", "elf", "--elf", RunUnderEmulationTests.elf, "--harness", RunUnderEmulationTests.harness]
            }
        }
    }

    /// The core always; the ELF when `make -C Firmware firmware sim` built it
    /// (HAPBRIDGE_REQUIRE_SIMAVR=1, as scripts/test sets, makes it required).
    static let backings: [Backing] =
        FileManager.default.isExecutableFile(atPath: harness) || ProcessInfo.processInfo.environment["HAPBRIDGE_REQUIRE_SIMAVR"] == "1" ? [.core, .elf] : [.core]

    struct Outputs {
        var run: BoundedProcess
        var record: [String: Any]
        var junit: XMLDocument
        var tests: [String: [String: Any]]
        var refusedImage: String

        /// The steps of a test's last attempt.
        func steps(_ test: String) -> [[String: Any]] {
            ((tests[test]?["attempts"] as? [[String: Any]])?.last?["steps"] as? [[String: Any]]) ?? []
        }
    }

    /// The example suite, then a script of our own whose flash step names an image
    /// that is not one (it must ERROR naming the file and the rule, and erase nothing).
    func runSuite(_ backing: Backing) throws -> Outputs {
        let dir = try temporaryDirectory()
        let refused = "\(dir)/not-firmware.hex"
        try ":020000040000FA\n:10000000ZZ\n:00000001FF\n".write(toFile: refused, atomically: true, encoding: .utf8)
        try "suite: refused\ntests:\n  - name: a refused image\n    steps:\n      - flash: {image: not-firmware.hex}\n      - diagnose:\n"
            .write(toFile: "\(dir)/refused.yaml", atomically: true, encoding: .utf8)
        let command = [
            Repo.hapbridge, "run", Self.bench, Self.suite, "\(dir)/refused.yaml", "--json", "\(dir)/run.json", "--junit", "\(dir)/run.xml",
            "--vanish-wait", "1", "--lock-dir", dir,
        ]
        let run = try BoundedProcess.run(Repo.hapbridge, ["emulate", "bridge"] + backing.arguments + ["--"] + command, hangGuardSeconds: 240)
        #expect(!run.hung, "hung: \(run.errors)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/run.json")))
        let record = try #require(json as? [String: Any], "\(run.errors)")
        let tests = Dictionary(((record["tests"] as? [[String: Any]]) ?? []).map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        let junit = try XMLDocument(xmlString: try String(contentsOfFile: "\(dir)/run.xml", encoding: .utf8))
        return Outputs(run: run, record: record, junit: junit, tests: tests, refusedImage: refused)
    }

    @Test(
        "flash (the carried firmware, written and verified, the firmware back on usb:1-1) → diagnose PASS; unplug → a step on the gone board ERRORs after the bounded wait; unplug → replug → play PASS; a refused image ERRORs naming the file, erasing nothing",
        .enabled(if: ready, "make -C Firmware firmware"), arguments: backings)
    func flashUnplugReplug(_ backing: Backing) throws {
        let o = try runSuite(backing)
        // On a machine too busy to keep the board's time (the ELF under simavr beside a
        // whole test run), the last play is an ERROR that says it played late: late is
        // never success. What this test pins is the replug before it.
        let back = o.steps("back after replug")
        let playedLate = back.last?["verdict"] as? String == "ERROR" && (back.last?["message"] as? String)?.hasPrefix("played late: ") == true
        #expect(o.run.status == 9, "an ERROR outranks the rest: \(o.run.errors)")
        #expect(o.tests["flash and bring-up"]?["verdict"] as? String == "PASS", "\(o.run.errors)")
        #expect(o.tests["unplugged mid-test"]?["verdict"] as? String == "ERROR", "\(o.run.errors)")
        #expect(o.tests["back after replug"]?["verdict"] as? String == (playedLate ? "ERROR" : "PASS"), "\(o.run.errors)")
        #expect(o.tests["a refused image"]?["verdict"] as? String == "ERROR", "\(o.run.errors)")
        let summary = playedLate ? "4 tests: 1 passed, 0 marginal, 0 failed, 3 errors, 0 skipped" : "4 tests: 2 passed, 0 marginal, 0 failed, 2 errors, 0 skipped"
        #expect(o.run.errors.contains(summary), "\(o.run.errors)")

        // The flash: what hapbridge flash --device does, its byte counts as figures.
        let flash = try #require(o.steps("flash and bring-up").first)
        #expect(flash["step"] as? String == "flash" && flash["verdict"] as? String == "PASS", "\(flash)")
        let figures = Dictionary(((flash["figures"] as? [[String: Any]]) ?? []).map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        let written = try #require(figures["written"]?["value"] as? Double), verified = try #require(figures["verified"]?["value"] as? Double)
        #expect(written == verified && written > 10_000 && written.truncatingRemainder(dividingBy: 128) == 0, "whole 128-byte pages: \(figures)")
        #expect(figures["written"]?["unit"] as? String == "bytes")
        let said = flash["message"] as? String ?? ""
        #expect(said.contains("hapbridge-32u4.hex through caterina on /dev/ttyACM") && said.contains("firmware 0.2 answers (it ran 0.2)"), "\(said)")
        // Its progress in the live output: the bootloader and each phase.
        #expect(o.run.errors.contains("step 1 flash (carried firmware): sent into its bootloader: caterina on /dev/ttyACM"), "\(o.run.errors)")
        #expect(o.run.errors.contains("step 1 flash (carried firmware): verify  done: \(Int(verified))/\(Int(verified)) bytes"), "\(o.run.errors)")
        let diagnose = try #require(o.steps("flash and bring-up").last)
        #expect(diagnose["verdict"] as? String == "PASS", "the flashed board is brought up: \(diagnose)")

        // Unplugged through the emulation's control socket; the step after it finds the
        // board gone, waits --vanish-wait for it and ERRORs; the test stops there.
        let gone = o.steps("unplugged mid-test")
        #expect(gone.count == 2, "\(gone)")
        #expect((gone.first?["message"] as? String)?.hasPrefix("unplugged (emulation control 1-1 at ") == true, "\(gone)")
        let vanished = gone.last?["message"] as? String ?? ""
        #expect(gone.last?["verdict"] as? String == "ERROR" && vanished.contains("dut (usb:1-1) vanished mid-test and did not come back within 1 s"), "\(vanished)")

        // The next test starts on the bench as set up: the runner plugs the board back
        // in first; then it is unplugged, replugged and awaited, and plays.
        #expect(o.run.errors.contains("back after replug #1: dut (usb:1-1) plugged back in"), "\(o.run.errors)")
        #expect(back.map { $0["step"] as? String } == ["unplug", "wait", "replug", "play"] && back.dropLast(playedLate ? 1 : 0).allSatisfy { $0["verdict"] as? String == "PASS" }, "\(back)")
        #expect((back[2]["message"] as? String)?.contains("back on USB after") == true, "\(back)")

        // A refused image: ERROR naming the file and the rule, before any board is touched.
        let refused = o.steps("a refused image")
        #expect(refused.count == 1, "nothing after the ERROR ran: \(refused)")
        let why = refused.first?["message"] as? String ?? ""
        #expect(why.hasPrefix("flash: \(o.refusedImage) line 2: ") && why.hasSuffix("(nothing was erased)"), "\(why)")

        // The JUnit XML: four test cases, the two ERRORs as errors.
        let suites = o.junit.rootElement()?.elements(forName: "testsuite") ?? []
        #expect(suites.count == 2)
        let cases = suites.flatMap { $0.elements(forName: "testcase") }
        #expect(cases.count == 4)
        let errored = cases.filter { !$0.elements(forName: "error").isEmpty }.compactMap { $0.attribute(forName: "name")?.stringValue }
        #expect(Set(errored) == Set(["unplugged mid-test [dut]", "a refused image [dut]"] + (playedLate ? ["back after replug [dut]"] : [])), "\(errored)")
    }

    @Test(
        "On a bench that declares a uhubctl hub port, unplug and replug run `uhubctl -l 1-1 -p 2 -a off|on` (a stand-in uhubctl switches the emulated board); with no switchable port they are SKIP with why",
        .enabled(if: ready, "make -C Firmware firmware"))
    func hubPortAndNone() throws {
        let dir = try temporaryDirectory()
        // The stand-in for Debian's uhubctl: logs its arguments and switches the board
        // through the emulation's control socket, as the hub would cut its power.
        let fake = """
            #!/bin/sh
            echo "$*" >> "\(dir)/uhubctl.log"
            case "$*" in
              *"-a off"*) exec "\(Repo.hapbridge)" emulate control --socket "$HUB_SOCKET" unplug 1-1 ;;
              *"-a on"*) exec "\(Repo.hapbridge)" emulate control --socket "$HUB_SOCKET" replug 1-1 ;;
            esac
            exit 1
            """
        try FileManager.default.createDirectory(atPath: "\(dir)/bin", withIntermediateDirectories: true)
        try fake.write(toFile: "\(dir)/bin/uhubctl", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: "\(dir)/bin/uhubctl")
        let device = "  - {name: dut, address: \"usb:1-1\", actuator: pmd-c10-100"
        try "bench: hub\ndevices:\n\(device), power: {uhubctl: {location: \"1-1\", port: 2}}}\n".write(toFile: "\(dir)/hub.yaml", atomically: true, encoding: .utf8)
        try "bench: none\ndevices:\n\(device)}\n".write(toFile: "\(dir)/none.yaml", atomically: true, encoding: .utf8)
        try "suite: s\ntests:\n  - name: switched\n    steps:\n      - unplug:\n      - replug:\n      - diagnose:\n"
            .write(toFile: "\(dir)/t.yaml", atomically: true, encoding: .utf8)
        let h = Repo.hapbridge
        let script = """
            export HUB_SOCKET="$HAPBRIDGE_EMULATE_CONTROL"; unset HAPBRIDGE_EMULATE_CONTROL
            PATH="\(dir)/bin:$PATH" "\(h)" run "\(dir)/hub.yaml" "\(dir)/t.yaml" --json "\(dir)/hub.json" --lock-dir "\(dir)"; echo "hub=$?"
            "\(h)" run "\(dir)/none.yaml" "\(dir)/t.yaml" --json "\(dir)/none.json" --lock-dir "\(dir)"; echo "none=$?"
            """
        let run = try BoundedProcess.run(h, ["emulate", "bridge", "--firmware", "core", "--", "sh", "-c", script], hangGuardSeconds: 120)
        #expect(run.output.contains("hub=0") && run.output.contains("none=0"), "\(run.output)\n\(run.errors)")
        let log = (try? String(contentsOfFile: "\(dir)/uhubctl.log", encoding: .utf8)) ?? ""
        #expect(log == "-l 1-1 -p 2 -a off\n-l 1-1 -p 2 -a on\n", "\(log)")
        func steps(_ file: String) throws -> [[String: Any]] {
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any]
            return (((json?["tests"] as? [[String: Any]])?.first?["attempts"] as? [[String: Any]])?.first?["steps"] as? [[String: Any]]) ?? []
        }
        let hub = try steps("\(dir)/hub.json")
        #expect(hub.map { $0["verdict"] as? String } == ["PASS", "PASS", "PASS"], "\(hub)")
        #expect(hub.first?["message"] as? String == "unplugged (uhubctl -l 1-1 -p 2)", "\(hub)")
        let none = try steps("\(dir)/none.json")
        #expect(none.map { $0["verdict"] as? String } == ["SKIP", "SKIP", "PASS"], "\(none)")
        #expect((none.first?["message"] as? String)?.contains("dut (usb:1-1) has no switchable USB port on this bench") == true, "\(none)")
    }

    @Test(
        "A board unplugged during a play step is an ERROR (it vanished: waited for, said as such), not a FAIL, so `retries` apply: back on the bench, the retry plays",
        .enabled(if: ready, "make -C Firmware firmware"))
    func unplugDuringPlayIsAnErrorThatIsRetried() throws {
        let dir = try temporaryDirectory()
        try "suite: s\ntests:\n  - name: long play\n    retries: 1\n    steps:\n      - play: \(Repo.path("Examples/Beethoven5.ahap"))\n"
            .write(toFile: "\(dir)/t.yaml", atomically: true, encoding: .utf8)
        // The run in the background; the power cut once the play drives the actuator (an
        // RTP_INPUT write other than 0 in the emulation's log), the power back once the
        // runner says it waits for the board. Each wait a poll with a bound.
        let h = Repo.hapbridge
        let script = """
            "\(h)" run "\(Self.bench)" "\(dir)/t.yaml" --json "\(dir)/run.json" --lock-dir "\(dir)" --vanish-wait 60 2>"\(dir)/run.err" & p=$!
            n=0; until grep -Eq '"bytes":"02([1-9a-f].|0[1-9a-f])"' "\(dir)/emulation.jsonl" || [ $n -gt 1200 ]; do n=$((n+1)); sleep 0.05; done
            "\(h)" emulate control unplug 1-1 >/dev/null
            n=0; until grep -q "is gone: waiting up to 60 s" "\(dir)/run.err" || [ $n -gt 1200 ]; do n=$((n+1)); sleep 0.05; done
            "\(h)" emulate control replug 1-1 >/dev/null
            wait $p; echo "run=$?"
            """
        let run = try BoundedProcess.run(
            h, ["emulate", "bridge", "--firmware", "core", "--log", "\(dir)/emulation.jsonl", "--", "sh", "-c", script], hangGuardSeconds: 240)
        let errors = (try? String(contentsOfFile: "\(dir)/run.err", encoding: .utf8)) ?? ""
        #expect(!run.hung && run.output.contains("run=0"), "\(run.output)\n\(errors)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/run.json"))) as? [String: Any]
        let test = try #require((json?["tests"] as? [[String: Any]])?.first, "\(errors)")
        let attempts = test["attempts"] as? [[String: Any]] ?? []
        #expect(attempts.map { $0["reason"] as? String } == ["first", "retry after ERROR"], "\(attempts)")
        #expect(attempts.map { $0["verdict"] as? String } == ["ERROR", "PASS"], "\(errors)")
        let first = attempts.first?["message"] as? String ?? ""
        #expect(first.contains("dut (usb:1-1) vanished mid-test and came back after") && first.hasSuffix("stopped before the pattern's end: device disconnected"), "\(first)")
        #expect(test["verdict"] as? String == "PASS")
    }
}
