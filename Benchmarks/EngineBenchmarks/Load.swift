import Foundation

/// Another process keeping every core busy for the length of a measurement: what the
/// host's scheduler must hold against (the goal: 0 late commands and 0 underruns over
/// 10,000 events while another process keeps both cores busy). The children are this
/// same binary started with `--burn-cpu`, at normal priority, one per core.
final class CPULoad {
    private var children: [Process] = []

    init(cores: Int = ProcessInfo.processInfo.activeProcessorCount) throws {
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        for _ in 0..<max(1, cores) {
            let p = Process()
            p.executableURL = me
            p.arguments = ["--burn-cpu"]
            try p.run()
            children.append(p)
        }
    }

    func stop() {
        for p in children where p.isRunning { p.terminate() }
        for p in children { p.waitUntilExit() }
        children.removeAll()
    }

    deinit { stop() }
}

/// The child's whole life: spin until killed.
func burnCPU() -> Never {
    var x: UInt64 = 0x9E37_79B9_7F4A_7C15
    while true {
        x ^= x << 13
        x ^= x >> 7
        x ^= x << 17
        if x == 0 { print(x) }  // never true; keeps the loop from being optimised away
    }
}
