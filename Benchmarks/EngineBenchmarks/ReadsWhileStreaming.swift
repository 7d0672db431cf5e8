import Foundation

/// Register reads through the engine's bus while it streams, over the product's whole
/// USB path (`hapbridge emulate bridge --firmware core`, the libusb client in
/// `usb-engine-probe reads`): how many reads a 400-a-second reader got through a
/// 10,000-event stream (20 s), and whether any command ran late for them. A figure of
/// this machine's pace, so a benchmark's, not a test's: the test
/// (ProductOverUSBTests) pins only that every read is answered with its value.
enum ReadsWhileStreaming {
    /// The goal: 400 reads a second for the stream's 20 s, within 5 %, nothing late.
    static let goalReads = 7_600

    static func run(events: Int) throws {
        let bin = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let hapbridge = bin.appendingPathComponent("hapbridge").path
        let probe = bin.appendingPathComponent("usb-engine-probe").path
        guard FileManager.default.isExecutableFile(atPath: hapbridge), FileManager.default.isExecutableFile(atPath: probe) else {
            print("   skipped: hapbridge or usb-engine-probe is not built beside this binary (swift build --build-tests)")
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: hapbridge)
        process.arguments = ["emulate", "bridge", "--firmware", "core", "--", probe, "reads", String(events)]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("reads=") }) else {
            print("   WARNING: no result (status \(process.terminationStatus)): \(text.suffix(200))")
            return
        }
        var f: [String: Int] = [:]
        for word in line.split(separator: " ") {
            let kv = word.split(separator: "=", maxSplits: 1)
            if kv.count == 2, let v = Int(kv[1]) { f[String(kv[0])] = v }
        }
        let reads = f["reads"] ?? 0, late = f["late"] ?? -1, underruns = f["underruns"] ?? -1
        print("   \(line)")
        let met = reads >= goalReads && late == 0 && underruns == 0 && f["wrong"] == 0
        print("   goal: ≥ \(goalReads) reads answered during \(events) events (400 a second), 0 late, 0 underruns — \(met ? "met" : "NOT met")")
    }
}
