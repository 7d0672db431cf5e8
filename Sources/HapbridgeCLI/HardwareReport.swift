import ArgumentParser
import Bench
import DRV2605

extension HardwareReport {
    /// Says so when a signal cut the procedure short (`Interruption`).
    mutating func noteInterruption() {
        guard let reason = Interruption.shared.reason else { return }
        noteInterruption(reason)
    }

    /// Prints the report, then writes the plot: what was measured is on screen
    /// before anything can go wrong with the file.
    func finish(plot file: OutputFile?, title: String, subtitle: String) throws {
        try Console.lines(lines, to: .output)
        if let file {
            if let trace = acceleration, let t0 = trace.timeMilliseconds.first {
                try file.write(AccelerationPlot.plot(
                    timesMs: trace.timeMilliseconds.map { $0 - t0 }, g: trace.accelerationG, source: trace.provenance.text,
                    holes: trace.losses.map { (startMs: $0.firstMissingMicroseconds / 1000 - t0, endMs: $0.endMicroseconds / 1000 - t0, count: $0.count) },
                    title: title, subtitle: subtitle
                ).svg())
                try Console.out("plot: \(file.name)")
            } else {
                try Console.out("plot: no acceleration recorded (the device has no accelerometer), nothing written")
            }
        }
        try Interruption.shared.exitIfInterrupted()
        if !passed { throw ExitCode.failure }
    }
}

/// One register line (`RegisterReport.row`), as `info` prints the chip's registers.
func row(_ register: RegisterAddress, _ value: UInt8, _ meaning: String) -> String { RegisterReport.row(register, value, meaning) }
