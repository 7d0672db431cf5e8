import Foundation
@testable import HIL
import TestSupport
import Testing

/// One run per board, whoever starts it: `hapbridge run` through the built executable
/// against a lock held by this process (through `BoardLock`, the same code in another
/// process) or by another run. Every wait here is a poll for a state with a bound.
@Suite("hapbridge run: a board's lock (host-wide, per board, atomic, bounded, named, queued)")
struct BoardLockTests {
    static let suite = "suite: s\ntests:\n  - name: t\n    steps:\n      - play: ios.impact.light\n"

    /// A bench named `name` whose one device, named `device`, is the simulated board.
    static func bench(_ name: String, device: String = "dut") -> String {
        "bench: \(name)\ndevices:\n  - {name: \(device), address: sim, actuator: pmd-c10-100}\n"
    }

    func files(_ dir: String, benches: [String: String] = ["a.yaml": bench("a")]) throws {
        for (file, text) in benches { try text.write(toFile: "\(dir)/\(file)", atomically: true, encoding: .utf8) }
        try Self.suite.write(toFile: "\(dir)/t.yaml", atomically: true, encoding: .utf8)
    }

    /// The simulated board's lock, taken in this process.
    func hold(in dir: String) async throws -> BoardLock {
        try await BoardLock.acquire([BoardLock.Key(name: "sim", device: "the test's dut (sim)")], in: BoardLockDirectory(path: dir, origin: .option))
    }

    /// `hapbridge ARGUMENTS` ready to run, in a configuration of its own
    /// (`TestEnvironment`; the caller removes it with `cleanup` once the process ended).
    func hapbridge(_ arguments: [String]) -> (process: Process, cleanup: @Sendable () -> Void) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Repo.hapbridge)
        p.arguments = arguments
        let isolated = TestEnvironment.isolated()
        p.environment = isolated.environment
        return (p, isolated.cleanup)
    }

    /// Polls `file` until it holds `text`, for at most `seconds`. Blocking, on purpose: a
    /// task's sleep resumes only when the test pool has a thread free, and the tests
    /// beside this one may hold every one while they wait for their processes.
    func await(_ text: String, in file: String, seconds: Double = 60) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").contains(text) { return true }
            usleep(20_000)
        }
        return false
    }

    @Test("A board another process holds is refused at once (exit 10) naming the holder: user, host, pid, command, since; whatever the bench calls it")
    func heldElsewhere() async throws {
        let dir = try temporaryDirectory()
        try files(dir, benches: ["b.yaml": Self.bench("another-bench", device: "other-name")])
        let lock = try await hold(in: dir)
        let r = try runProcess(Repo.hapbridge, ["run", "\(dir)/b.yaml", "\(dir)/t.yaml", "--lock-dir", dir])
        let me = BoardLockHolder.current(device: "")
        #expect(r.status == 10, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("Error: other-name (sim) is locked by \(me.user) (pid \(getpid()) on \(me.host), `"), "\(r.stderr)")
        #expect(r.stderr.contains(", since 20") && r.stderr.hasSuffix(" UTC) (--wait [SECONDS] queues for it)\n") && !r.stderr.contains("health"), "\(r.stderr)")
        lock.release()
        let free = try runProcess(Repo.hapbridge, ["run", "\(dir)/b.yaml", "\(dir)/t.yaml", "--lock-dir", dir])
        #expect(free.status == 0, "\(free.stderr)")
    }

    @Test("--wait queues: the run says whom it waits for, then runs once the board is free")
    func waitQueues() async throws {
        let dir = try temporaryDirectory()
        try files(dir)
        let lock = try await hold(in: dir)
        let (run, cleanup) = hapbridge(["run", "\(dir)/a.yaml", "\(dir)/t.yaml", "--lock-dir", dir, "--wait", "600"])
        defer { cleanup() }
        _ = FileManager.default.createFile(atPath: "\(dir)/run.err", contents: nil)
        run.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(dir)/run.err"))
        try run.run()
        let waiting = self.await("dut (sim) is locked by ", in: "\(dir)/run.err")
        lock.release()
        run.waitUntilExit()
        let said = (try? String(contentsOfFile: "\(dir)/run.err", encoding: .utf8)) ?? ""
        #expect(waiting && said.contains("(pid \(getpid()) on ") && said.contains("): waiting up to 600 s"), "\(said)")
        #expect(run.terminationStatus == 0 && said.contains("dut (sim): took the lock after "), "\(said)")
    }

    @Test("A signal ends a --wait at once: 128 + N, saying so, nothing run")
    func signalEndsTheWait() async throws {
        let dir = try temporaryDirectory()
        try files(dir)
        let lock = try await hold(in: dir)
        defer { lock.release() }
        let (run, cleanup) = hapbridge(["run", "\(dir)/a.yaml", "\(dir)/t.yaml", "--lock-dir", dir, "--wait"])
        defer { cleanup() }
        _ = FileManager.default.createFile(atPath: "\(dir)/run.err", contents: nil)
        run.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(dir)/run.err"))
        try run.run()
        let waiting = self.await("waiting up to 604800 s", in: "\(dir)/run.err")
        kill(run.processIdentifier, SIGINT)
        run.waitUntilExit()
        let said = (try? String(contentsOfFile: "\(dir)/run.err", encoding: .utf8)) ?? ""
        #expect(waiting && run.terminationStatus == 130, "\(said)")
        #expect(said.contains("stopped waiting for the board's lock: interrupted by SIGINT") && !said.contains("health"), "\(said)")
    }

    @Test("Of two runs started at the same moment on one board, never both hold it: 100 pairs")
    func pairsStartedTogether() throws {
        let dir = try temporaryDirectory()
        // Two bench files for one board; twenty calibrations make each run hold it for
        // some 200 ms, so two runs started together meet at the lock.
        try files(dir, benches: ["a.yaml": Self.bench("a"), "b.yaml": Self.bench("b", device: "twin")])
        try "suite: s\ntests:\n  - name: t\n    steps:\n      - calibrate: {runs: 20}\n".write(toFile: "\(dir)/t.yaml", atomically: true, encoding: .utf8)
        var problems: [String] = []
        var refusals = 0
        for round in 0..<100 {
            let runs = ["a", "b"].map { name in hapbridge(["run", "\(dir)/\(name).yaml", "\(dir)/t.yaml", "--lock-dir", dir, "--json", "\(dir)/\(name).json"]) }
            defer { runs.forEach { $0.cleanup() } }
            let pair = runs.map(\.process)
            for p in pair { p.standardError = FileHandle(forWritingAtPath: "/dev/null") }
            try? FileManager.default.removeItem(atPath: "\(dir)/a.json")
            try? FileManager.default.removeItem(atPath: "\(dir)/b.json")
            for p in pair { try p.run() }
            for p in pair { p.waitUntilExit() }
            let statuses = pair.map(\.terminationStatus)
            switch (statuses[0], statuses[1]) {
            case (0, 10), (10, 0):
                refusals += 1
            case (0, 0):
                // Both ran: one after the other (the second started after the first let
                // go), or it is the bug: then their runs, each inside its hold of the lock,
                // overlap by most of a run. `started` is to the millisecond, and the next
                // run may start within one of the last one's end: that much is allowed.
                let spans = try ["a", "b"].map { name -> (Date, Date) in
                    let record = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/\(name).json"))) as? [String: Any]
                    let formatter = ISO8601DateFormatter()
                    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                    let start = try #require((record?["started"] as? String).flatMap { formatter.date(from: $0) })
                    return (start, start.addingTimeInterval(record?["seconds"] as? Double ?? 0))
                }
                let overlap = min(spans[0].1, spans[1].1).timeIntervalSince(max(spans[0].0, spans[1].0))
                if overlap > 0.002 { problems.append("round \(round): both held the board at once, their runs overlapping by \(overlap) s") }
            default:
                problems.append("round \(round): exits \(statuses)")
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(refusals > 0, "no round had the two runs meet")
    }

    @Test("Under emulate bridge, two bench files naming one board differently (usb:1-1, usb:0001) collide as locked (10), not LIBUSB_ERROR_BUSY; the lock goes with its holder, even killed")
    func oneUSBBoardTwoNames() throws {
        let dir = try temporaryDirectory()
        let device = { (address: String) in "bench: b\ndevices:\n  - {name: dut, address: \"\(address)\", actuator: pmd-c10-100}\n" }
        try files(dir, benches: ["port.yaml": device("usb:1-1"), "serial.yaml": device("usb:0001"), "any.yaml": device("usb")])
        try "suite: s\ntests:\n  - name: long\n    steps:\n      - wait: 600000\n".write(toFile: "\(dir)/long.yaml", atomically: true, encoding: .utf8)
        let h = Repo.hapbridge
        // The first run holds the board in a ten-minute wait; the second is tried once its
        // record names it (a poll with a bound); then the first is killed (SIGKILL: no
        // chance to release anything) and a third takes the board.
        let script = """
            "\(h)" run "\(dir)/port.yaml" "\(dir)/long.yaml" --lock-dir "\(dir)" 2>"\(dir)/a.err" & a=$!
            n=0; until grep -q "pid $a " "\(dir)/usb-1-1.lock" 2>/dev/null || [ $n -gt 1200 ]; do n=$((n+1)); sleep 0.05; done
            "\(h)" run "\(dir)/serial.yaml" "\(dir)/t.yaml" --lock-dir "\(dir)" 2>"\(dir)/b.err"; echo "b=$?"
            echo "a-pid=$a"; kill -KILL $a; wait $a; echo "a=$?"
            "\(h)" run "\(dir)/any.yaml" "\(dir)/t.yaml" --lock-dir "\(dir)" 2>"\(dir)/c.err"; echo "c=$?"
            """
        let run = try BoundedProcess.run(h, ["emulate", "bridge", "--firmware", "core", "--", "sh", "-c", script], hangGuardSeconds: 240)
        let second = (try? String(contentsOfFile: "\(dir)/b.err", encoding: .utf8)) ?? ""
        let third = (try? String(contentsOfFile: "\(dir)/c.err", encoding: .utf8)) ?? ""
        let pid = run.output.split(separator: "\n").first { $0.hasPrefix("a-pid=") }?.dropFirst("a-pid=".count) ?? "?"
        #expect(!run.hung && run.output.contains("b=10") && run.output.contains("a=137"), "\(run.output)\n\(run.errors)")
        #expect(second.hasPrefix("Error: dut (usb:0001) is locked by ") && second.contains("(pid \(pid) on ") && second.contains("port.yaml"), "\(second)")
        // The third took the board: it ran its test (0, or 9 when a busy machine's wall
        // clock made the play late, the late rule; timing is not this test's subject).
        #expect(run.output.contains("c=0") || run.output.contains("c=9"), "\(run.output)\n\(third)")
        #expect(third.contains("health dut (usb): OK") && !third.contains("is locked by"), "\(third)")
    }

    @Test("A 2 GB lock file costs its first 4 KiB: held, the refusal says its record cannot be read; free, it is taken and cut to the new record")
    func hugeLockFile() throws {
        let dir = try temporaryDirectory()
        try files(dir)
        let path = "\(dir)/sim.lock"
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 2 << 30)  // sparse: no disk
        // Held by a process that wrote no record (not hapbridge).
        #expect(flock(handle.fileDescriptor, LOCK_EX) == 0)
        let busy = try MeasuredProcess.run(Repo.hapbridge, ["run", "\(dir)/a.yaml", "\(dir)/t.yaml", "--lock-dir", dir])
        #expect(busy.status == 10 && busy.errors.contains("dut (sim) is locked by a process whose record in \(path) cannot be read"), "\(busy.errors)")
        #expect(busy.maxResidentKilobytes < 150 * 1024, "held \(busy.maxResidentKilobytes) KiB")
        try handle.close()
        let free = try MeasuredProcess.run(Repo.hapbridge, ["run", "\(dir)/a.yaml", "\(dir)/t.yaml", "--lock-dir", dir])
        #expect(free.status == 0 && free.maxResidentKilobytes < 150 * 1024, "\(free.errors)")
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
        #expect((1..<4096).contains(size), "the record replaced the file's contents: \(size) bytes")
    }

    @Test("An unusable lock directory or lock file is exit 1 saying what and why, not 10 (locked)")
    func unusable() throws {
        let dir = try temporaryDirectory()
        try files(dir)
        try "x".write(toFile: "\(dir)/plain", atomically: true, encoding: .utf8)
        let file = try runProcess(Repo.hapbridge, ["run", "\(dir)/a.yaml", "\(dir)/t.yaml", "--lock-dir", "\(dir)/plain"])
        #expect(file.status == 1 && file.stderr == "Error: cannot lock the board: the lock directory \(dir)/plain (--lock-dir): is not a directory (name a directory you can write)\n", "\(file.stderr)")
        let under = try runProcess(Repo.hapbridge, ["run", "\(dir)/a.yaml", "\(dir)/t.yaml"], environment: ["HAPBRIDGE_LOCK_DIR": "\(dir)/plain/locks"])
        #expect(under.status == 1 && under.stderr.contains("the lock directory \(dir)/plain/locks ($HAPBRIDGE_LOCK_DIR): Not a directory"), "\(under.stderr)")
        let links = "\(dir)/links"
        try FileManager.default.createDirectory(atPath: links, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: "\(links)/sim.lock", withDestinationPath: "\(dir)/plain")
        let link = try runProcess(Repo.hapbridge, ["run", "\(dir)/a.yaml", "\(dir)/t.yaml", "--lock-dir", links])
        #expect(link.status == 1 && link.stderr.contains("\(links)/sim.lock: is a symbolic link, which a lock file may not be"), "\(link.stderr)")
        #expect((try? String(contentsOfFile: "\(dir)/plain", encoding: .utf8)) == "x", "the link's target is untouched")
    }

    @Test("The lock directory is the host's (/run/lock/hapbridge) unless --lock-dir or $HAPBRIDGE_LOCK_DIR name another; never a per-user one")
    func directoryChoice() {
        #expect(BoardLockDirectory.choose(option: nil, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"]) == BoardLockDirectory(path: "/run/lock/hapbridge", origin: .host))
        #expect(BoardLockDirectory.choose(option: nil, environment: ["HAPBRIDGE_LOCK_DIR": "/x"]).path == "/x")
        #expect(BoardLockDirectory.choose(option: "/y", environment: ["HAPBRIDGE_LOCK_DIR": "/x"]).path == "/y")
    }

    @Test("A holder's record reads back whole; a torn or foreign one is not taken for a record")
    func record() {
        let holder = BoardLockHolder(user: "alice", host: "bench-pc", pid: 42, since: 1_750_000_000, command: "hapbridge run b.yaml\nt.yaml", device: "dut (usb:1-2)")
        let bytes = holder.record
        var expected = holder
        expected.command = "hapbridge run b.yaml?t.yaml"
        #expect(BoardLockHolder.parse(bytes) == expected)
        #expect(BoardLockHolder.parse(bytes + Array("trailing bytes of an older, longer record".utf8)) == expected)
        #expect(BoardLockHolder.parse(Array(bytes.dropLast(3))) == nil)
        var torn = bytes
        torn[torn.count - 5] ^= 0x20
        #expect(BoardLockHolder.parse(torn) == nil)
        #expect(BoardLockHolder.parse(Array("pid 1\nhost x\nexpires 9\n".utf8)) == nil)
        #expect(holder.description == "alice (pid 42 on bench-pc, `hapbridge run b.yaml\nt.yaml`, since 2025-06-15 15:06:40 UTC)")
    }
}
