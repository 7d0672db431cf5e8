import Foundation

/// Farm mode's wall time (`run` on a bench's devices at once): one HIL suite under `hapbridge run` on one emulated
/// bridge board, then the same suite on four at once (a bench of four boards tagged
/// alike), each whole run timed from process start to exit. The one-board run is this
/// machine's own baseline in the same emulation; the goal is the four-board run at most
/// 1.5× it at p50 (devices run concurrently, one task each). This binary runs again as
/// the COMMAND of `hapbridge emulate bridge --firmware core --boards 4` (client mode),
/// so the emulation's set-up is not timed; the two kinds of run alternate, so a load
/// that comes and goes on the machine falls on both.
enum FarmRun {
    static let clientFlag = "--farm-client"
    static let boards = 4
    static let goalRatio = 1.5

    /// The suite: bring-up, a calibration and two plays, as a board's smoke test would.
    static let suite = """
        suite: farm-bench
        tests:
          - name: bring-up
            device: farm
            steps:
              - diagnose:
          - name: calibrates
            device: farm
            steps:
              - calibrate:
          - name: plays
            device: farm
            steps:
              - play: ios.impact.heavy
              - play: ios.notification.success

        """

    /// A bench of the first `count` boards the emulation plugs in (ports 1-1 …), tagged `farm`.
    static func bench(boards count: Int) -> String {
        "bench: farm-\(count)\ndevices:\n"
            + (1...count).map { "  - {name: board-\($0), address: \"usb:1-\($0)\", actuator: pmd-c10-100, tags: [farm]}\n" }.joined()
    }

    /// Runs the client under the emulation; its lines go to our standard output.
    static func run(runs: Int) throws {
        guard let (me, hapbridge) = EmulatedClient.hapbridge() else { return }
        let status = try EmulatedClient.run(boards: boards, clientArguments: [clientFlag, "--runs", String(runs)], me: me, hapbridge: hapbridge)
        if status != 0 { print("   WARNING: the emulation ended with status \(status)") }
    }

    /// Client mode: `runs` rounds, each one run on one board and one on four.
    static func client(arguments: [String]) throws {
        func value(_ flag: String) -> String? { EmulatedClient.value(flag, in: arguments) }
        guard let hapbridge = value("--hapbridge"), let runs = value("--runs").flatMap(Int.init), runs > 0
        else { throw DiscoveryBenchmarkError("usage: \(clientFlag) --hapbridge PATH --runs R") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hapbridge-farm-bench-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try suite.write(toFile: "\(dir)/suite.yaml", atomically: true, encoding: .utf8)
        for count in [1, boards] { try bench(boards: count).write(toFile: "\(dir)/bench-\(count).yaml", atomically: true, encoding: .utf8) }
        var seconds: [Int: [Double]] = [1: [], boards: []]
        var statuses: [Int: [Int32]] = [1: [], boards: []]
        let clock = ContinuousClock()
        for _ in 0..<runs {
            for count in [1, boards] {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: hapbridge)
                process.arguments = ["run", "\(dir)/bench-\(count).yaml", "\(dir)/suite.yaml", "--lock-dir", dir]
                process.standardError = FileHandle.nullDevice
                let start = clock.now
                try process.run()
                process.waitUntilExit()
                seconds[count, default: []].append(microseconds(clock.now - start))
                statuses[count, default: []].append(process.terminationStatus)
            }
        }
        let one = Stats(samples: seconds[1] ?? []), four = Stats(samples: seconds[boards] ?? [])
        print(one.line("run, the suite on 1 board (baseline, whole run)"))
        print(four.line("run, the suite on \(boards) boards at once (whole run)"))
        print(String(format: "   ratio %d boards / 1 board: p50 %.2f×, max/max %.2f×", boards, four.percentile(50) / one.percentile(50), (four.samples.max() ?? .nan) / (one.samples.max() ?? .nan)))
        for (count, s) in statuses.sorted(by: { $0.key < $1.key }) where s.contains(where: { $0 != 0 }) {
            print("   WARNING: runs on \(count) board(s) exited \(s) (9: a test ERRORed, e.g. a play late on a busy machine)")
        }
        let ratio = four.percentile(50) / one.percentile(50)
        print(String(format: "   goal, %d boards within %.1f× one board's wall time at p50: %@ (%.2f×)", boards, goalRatio, ratio <= goalRatio ? "met" : "NOT met", ratio))
    }
}
