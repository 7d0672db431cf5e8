import Foundation

/// This binary run again as the COMMAND of `hapbridge emulate bridge --firmware core
/// --boards N` (a benchmark's client mode), so the emulation's set-up is not timed; the
/// `hapbridge` beside this binary does the emulating and is what the client times.
enum EmulatedClient {
    /// The `hapbridge` beside this binary, or nil (said as skipped) when there is none.
    static func hapbridge() -> (me: URL, hapbridge: String)? {
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let hapbridge = me.deletingLastPathComponent().appendingPathComponent("hapbridge").path
        guard FileManager.default.isExecutableFile(atPath: hapbridge) else {
            print("   skipped: no hapbridge beside this binary (swift build --product hapbridge)")
            return nil
        }
        return (me, hapbridge)
    }

    /// Runs this binary with `clientArguments` (plus `--hapbridge PATH`) under an emulation
    /// of `boards` boards; the client's lines go to our standard output. Its exit status.
    static func run(boards: Int, clientArguments: [String], me: URL, hapbridge: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: hapbridge)
        process.arguments = ["emulate", "bridge", "--firmware", "core", "--boards", String(boards), "--", me.path]
            + clientArguments + ["--hapbridge", hapbridge]
        fflush(nil)  // our lines first: the client writes to the same descriptor
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The value after `flag` in a client's arguments.
    static func value(_ flag: String, in arguments: [String]) -> String? {
        arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    }
}
