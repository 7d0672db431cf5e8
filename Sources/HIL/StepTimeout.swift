import Foundation

/// Why a step did not come to a verdict of its own.
enum StepProblem: Error, Sendable {
    /// Its wall-clock limit passed (`seconds`); `whose`: which limit ("step 5 s").
    case timedOut(seconds: Double, whose: String)
    /// It could not run or the device failed under it: the error's line.
    case error(String)
}

/// Runs `body`, or gives up after `seconds` of wall time. The caller is not kept
/// waiting for a body that does not end (a device that stopped answering, a procedure
/// that does not look at cancellation): the body is cancelled and left to end on its
/// own (the step loops check for cancellation between steps of virtual time), and the
/// next step opens the device afresh. A timeout, not a wait for hardware.
func withTimeout<T: Sendable>(
    _ seconds: Double, whose: String, _ body: @escaping @Sendable () async throws(StepProblem) -> T
) async throws(StepProblem) -> T {
    let race = Race<T>()
    let outcome = await withCheckedContinuation { (c: CheckedContinuation<Result<T, StepProblem>, Never>) in
        race.start(c)
        let work = Task {
            do throws(StepProblem) { race.finish(.success(try await body())) } catch { race.finish(.failure(error)) }
        }
        Task {
            try? await Task.sleep(for: TimeLimits.duration(seconds))
            if race.finish(.failure(.timedOut(seconds: seconds, whose: whose))) { work.cancel() }
        }
    }
    return try outcome.get()
}

/// The first of the body and the timer to finish resumes the caller; the other's
/// result is dropped. Every access holds the lock (hence `@unchecked Sendable`).
private final class Race<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Result<T, StepProblem>, Never>?
    private var done = false
    private var early: Result<T, StepProblem>?

    func start(_ c: CheckedContinuation<Result<T, StepProblem>, Never>) {
        let ready: Result<T, StepProblem>? = lock.withLock {
            if let early { return early }
            continuation = c
            return nil
        }
        if let ready { c.resume(returning: ready) }
    }

    /// True when this result was the one delivered.
    @discardableResult
    func finish(_ result: Result<T, StepProblem>) -> Bool {
        let (c, won): (CheckedContinuation<Result<T, StepProblem>, Never>?, Bool) = lock.withLock {
            guard !done else { return (nil, false) }
            done = true
            guard let c = continuation else {
                early = result
                return (nil, true)
            }
            continuation = nil
            return (c, true)
        }
        c?.resume(returning: result)
        return won
    }
}
