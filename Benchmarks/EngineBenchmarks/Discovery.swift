import Foundation

/// `hapbridge list` across a bus of emulated boards (discovery is linear;
/// goal: a full bus listed in under 2 s). This binary runs again as the COMMAND of
/// `hapbridge emulate bridge --firmware core --boards N` (client mode), where it runs
/// `hapbridge list --json` a few times and times each run: the list alone, not the
/// emulation's set-up. Printed in µs beside the Task.sleep baseline, as the rest.
enum Discovery {
    static let clientFlag = "--discovery-client"
    static let boardCounts = [5, 20, 126]
    static let goalMicroseconds = 2_000_000.0

    /// Runs the client under an emulation of each size; its lines go to our standard output.
    static func run(runs: Int) throws {
        guard let (me, hapbridge) = EmulatedClient.hapbridge() else { return }
        for boards in boardCounts {
            let status = try EmulatedClient.run(
                boards: boards, clientArguments: [clientFlag, "--boards", String(boards), "--runs", String(runs)], me: me, hapbridge: hapbridge)
            if status != 0 { print("   WARNING: the run with \(boards) boards ended with status \(status)") }
        }
    }

    /// Client mode: times `hapbridge list --json` `runs` times; each must list every board.
    static func client(arguments: [String]) throws {
        func value(_ flag: String) -> String? { EmulatedClient.value(flag, in: arguments) }
        guard let hapbridge = value("--hapbridge"), let boards = value("--boards").flatMap(Int.init), let runs = value("--runs").flatMap(Int.init)
        else { throw DiscoveryBenchmarkError("usage: \(clientFlag) --hapbridge PATH --boards N --runs R") }
        var samples: [Double] = []
        var listed: [Int] = []
        let clock = ContinuousClock()
        for _ in 0..<runs {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: hapbridge)
            process.arguments = ["list", "--json"]
            let out = Pipe()
            process.standardOutput = out
            let start = clock.now
            try process.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            samples.append(microseconds(clock.now - start))
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            let entries = object?["boards"] as? [[String: Any]] ?? []
            listed.append(entries.filter { $0["status"] as? String == "ok" }.count)
        }
        let stats = Stats(samples: samples)
        print(stats.line("list, \(boards) emulated boards (whole run)"))
        if listed.contains(where: { $0 != boards }) { print("   WARNING: boards listed ok per run: \(listed), not \(boards)") }
        if boards == boardCounts.last {
            if listed.allSatisfy({ $0 == boards }) {
                printGoal("full bus (\(boards) boards) listed in < 2 s at p50", value: stats.percentile(50), limit: goalMicroseconds)
            } else {
                print("   goal, full bus (\(boards) boards) listed in < 2 s: NOT met (not every board was listed ok)")
            }
        }
    }
}

struct DiscoveryBenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
