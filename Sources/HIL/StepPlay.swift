import Bench
import HapticEngine
import Haptics
import Measurements

/// The `play` and `measure` steps: a pattern played to its end on a device opened for
/// the step, as `hapbridge play` plays it (`PlaySession`), with `measure`'s figures of
/// what the actuator did.
///
/// What the play's end says about the part, and what it does not:
/// - it played to its end, on time: PASS (a measure step's limits then judge it);
/// - the chip latched a fault (over-current, over-temperature): FAIL, the part's;
/// - it played late (`PlayResult.playedLate`, the rule `play` exits 4 by: any command
///   sent after its stamp, any board underrun), the device went away, the board fell
///   behind, the engine stopped for any other reason, or a play that ran to its end
///   lost commands or could not have them accounted for (the rule `play` exits 1 by):
///   ERROR, which says nothing about the part, so `retries` apply; a device gone is
///   then waited for (`HILRunner.execute`);
/// - the run was interrupted: the engine is stopped at once (STOP_ALL) from the
///   interruption's own thread, and the step is an ERROR with the reason.
enum StepPlay {
    /// Recorded past a measured pattern's end, so the ring-down is measured whole (as
    /// `hapbridge measure` does).
    static let tailSeconds = 0.2

    static func run(_ spec: String, measuring: Bool, on slot: DeviceSlot, scriptDirectory: String) async throws(StepProblem) -> StepOutcome {
        let pattern: HapticPattern
        do { pattern = try PatternReference.load(spec, relativeTo: scriptDirectory) } catch { throw .error(error.description) }
        if let why = slot.interruption.reason { throw .error(why) }
        let opened = try slot.open()
        var options = PlaySession.Options(keepsCommands: true)
        // A stored calibration is the user's machine's state: a script's result must
        // not depend on it (a `calibrate` step measures, it does not store).
        options.usesStoredCalibration = false
        let session = PlaySession(opened: opened, actuator: slot.profile, options: options)
        do { try await session.start(pattern) } catch { throw .error("\(spec): \(error)") }
        let interruption = slot.interruption
        let result = try await interruption.whileRunning(onInterrupt: { session.stop(reason: $0) }) { () throws(StepProblem) -> PlayResult in
            do {
                while try await !session.step().isFinished { try Task.checkCancellation() }
                if measuring {
                    try await session.recordTail(seconds: tailSeconds) { interruption.reason != nil || Task.isCancelled }
                    try Task.checkCancellation()
                }
                return try await session.finish()
            } catch {
                // Whatever ended the play early, the actuator is left stopped (STOP_ALL,
                // where the board still answers) and the engine closed.
                let cancelled = error is CancellationError
                session.stop(reason: cancelled ? "timed out" : "\(error)")
                _ = try? await session.finish()
                throw .error(cancelled ? "cancelled" : "\(error)")
            }
        }
        var o = StepOutcome(trace: result.trace)
        if measuring {
            let m = PlayMeasurements(trace: result.trace)
            o.figures = m.measurements
            o.unmeasured = m.unmeasured.map(\.description)
        }
        if let problem = verdict(of: result) {
            o.verdict = problem.verdict
            o.message = problem.message
        }
        return o
    }

    /// Nil for a play that ended as it should, else its verdict and why (above).
    static func verdict(of result: PlayResult) -> (verdict: Verdict, message: String)? {
        if let why = result.interruption { return (.error, why) }
        let stopped = result.endedEarly ? "stopped before the pattern's end: \(result.engineStopReason.map { "\($0)" } ?? "the player ended with an error")" : nil
        let s = result.statistics
        if result.playedLate {
            return (.error, "played late: \(lateness(s)) (the figures are not trustworthy)" + (stopped.map { "; \($0)" } ?? ""))
        }
        if let stopped {
            if case .chipFault? = result.engineStopReason { return (.fail, stopped) }
            return (.error, stopped)
        }
        if !result.deliverySettled { return (.error, "the board did not account for every command it was sent: what the chip got is unknown") }
        if let lost = result.undeliveredCommands, lost > 0 {
            return (.error, "\(lost) of the \(s.commandsSent) commands sent never reached the chip (the board ran \(s.commandsRun ?? 0))")
        }
        return nil
    }

    /// "304 commands late, 305 underruns".
    static func lateness(_ s: StreamStatistics) -> String {
        "\(s.lateCommands) command\(s.lateCommands == 1 ? "" : "s") late, \(s.boardUnderruns) underrun\(s.boardUnderruns == 1 ? "" : "s")"
    }
}
