/// Why a step did not come to a verdict of its own.
enum StepProblem: Error, Sendable {
    /// Its wall-clock limit passed (`seconds`); `whose`: "step", "test" or "run".
    case timedOut(seconds: Double, whose: String)
    /// It could not run or the device failed under it: the error's line.
    case error(String)
}

/// Runs `body`, or gives up after `seconds` of wall time: the body is cancelled (the
/// step loops check for it between steps of virtual time) and the caller is not kept
/// waiting for a device that does not answer. A timeout, not a wait for hardware.
func withTimeout<T: Sendable>(
    _ seconds: Double, whose: String, _ body: @escaping @Sendable () async throws(StepProblem) -> T
) async throws(StepProblem) -> T {
    let outcome: Result<T, StepProblem>? = await withTaskGroup(of: Result<T, StepProblem>?.self) { group in
        group.addTask {
            do throws(StepProblem) { return .success(try await body()) } catch { return .failure(error) }
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return Task.isCancelled ? nil : .failure(.timedOut(seconds: seconds, whose: whose))
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
    switch outcome {
    case .success(let v)?: return v
    case .failure(let e)?: throw e
    case nil: throw .error("the step was cancelled")
    }
}
