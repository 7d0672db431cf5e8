import HostedBoard
import FirmwareCore
import RealTime
#if canImport(Glibc)
import Glibc
#endif

/// Takes the FT232H's answers on a thread of its own, so that a stamped write costs the
/// timer thread only the hand-over of its USB transfer, not the wait for its ACK bits.
///
/// Why: a write's transfer completes a microframe or more after it is submitted, and
/// its answer one USB round trip after that (bus time, the chip's IN packet, the
/// host's IN token); with the timer thread waiting for them, a round trip longer than
/// the gap to the next stamp made that write late. Here the caller submits the
/// transfer and queues what it expects (`expect`); the reader waits for each transfer
/// (`SubmittedProgram.finish`), reads the answers in the order the programs went out
/// (the FT232H answers in order), checks each, and:
/// - a write's NACK or a failed adapter becomes `failure`, which the port reports at
///   its next call: a NACK surfaces one transaction late, as the core's I2C fault;
/// - a write's STATUS read-back is noted for the core's fault poll;
/// - a read's bytes go back to its caller, who waits (`awaitRead`): reads stay blocking.
///
/// `FT232HMPSSE.submit` and `.answer` run on two threads at once, one each (their
/// comments say why that is safe).
final class FT232HAnswerReader: @unchecked Sendable {
    // @unchecked: every field below `port` is guarded by `state`.
    enum Expectation {
        /// A write; `readsStatus`: it carries a STATUS read-back, sent at `sentNanoseconds`.
        case write(readsStatus: Bool, sentNanoseconds: UInt64)
        /// A read its caller waits for.
        case read(id: UInt64)
    }
    private struct Pending {
        var program: MPSSEI2CProgram
        var submitted: SubmittedProgram
        var expectation: Expectation
    }

    private let port: FT232HMPSSE
    private let state = MonotonicCondition()
    /// Signalled when an answer was taken (what `awaitRead` and `finish` wait for).
    private let taken = MonotonicCondition()
    private var pending: [Pending] = []
    private var head = 0
    private var stopping = false
    private var running = false
    private var thread: pthread_t?
    /// What the port reports at its next call: an earlier write's NACK, or the adapter's
    /// failure (which stays: the board is gone).
    private var failure: HostedI2CResult?
    private var reads: [UInt64: Result<[UInt8], I2CTransactionError>] = [:]
    private var nextReadID: UInt64 = 0
    /// The last STATUS read back, and the fault bits seen since the core last took one
    /// (they clear on read, so none may be lost between).
    private var status: (value: UInt8, atNanoseconds: UInt64)?
    private var faultsSinceTaken: UInt8 = 0
    /// The most answers seen outstanding at once (a report's figure: how far behind the
    /// reader ran).
    private var deepest = 0
    var deepestBacklog: Int { state.withLock { deepest } }

    init(port: FT232HMPSSE) { self.port = port }

    /// Starts the thread, SCHED_FIFO at `priority` where permitted (below the timer's:
    /// it must keep up, but never delay a write; `HostedBoard.Configuration.portPriority`),
    /// else the normal class.
    func start(priority: Int32?) {
        let ready = MonotonicCondition()
        var started = false
        let body = Unmanaged.passRetained(ThreadBody { [self] in
            if let priority { _ = ThreadScheduling.adoptForCurrentThread(priority: priority) }
            ready.withLock { started = true }
            ready.signal()
            loop()
        })
        guard let t = HostedBoard.spawn(body) else { return }
        state.withLock {
            thread = t
            running = true
        }
        ready.withLock {
            while !started { _ = ready.wait(untilMicroseconds: HostedClock.microseconds() + 100_000) }
        }
    }

    var isRunning: Bool { state.withLock { running } }

    /// The earlier failure to report now, if any: a NACK once, an adapter failure always.
    func takeFailure() -> HostedI2CResult? {
        state.withLock {
            defer { if failure == .notAcknowledged { failure = nil } }
            return failure
        }
    }

    /// A program just submitted: its transfer and its answer are the reader's to finish
    /// and take. A read's id comes back.
    @discardableResult
    func expect(_ program: MPSSEI2CProgram, submitted: SubmittedProgram, readsStatus: Bool = false, sentNanoseconds: UInt64 = 0, isRead: Bool = false) -> UInt64 {
        state.withLock {
            let id = nextReadID
            if isRead { nextReadID &+= 1 }
            pending.append(Pending(program: program, submitted: submitted, expectation: isRead ? .read(id: id) : .write(readsStatus: readsStatus, sentNanoseconds: sentNanoseconds)))
            deepest = max(deepest, pending.count - head)
            state.signal()
            return id
        }
    }

    /// The adapter failed on the sending side: reported from now on.
    func adapterFailed(_ why: String) {
        state.withLock { if failure == nil || failure == .notAcknowledged { failure = .adapterFailure(why) } }
    }

    /// Waits for read `id`'s answer (every answer before it is taken first).
    func awaitRead(_ id: UInt64) -> Result<[UInt8], I2CTransactionError>? {
        let deadline = HostedClock.microseconds() + UInt64(FT232HMPSSE.answerSlackMilliseconds) * 2000
        taken.lock()
        defer { taken.unlock() }
        while true {
            if let r = state.withLock({ reads.removeValue(forKey: id) }) { return r }
            if !isRunning || HostedClock.microseconds() > deadline { return nil }
            _ = taken.wait(untilMicroseconds: min(deadline, HostedClock.microseconds() + 10_000))
        }
    }

    /// The STATUS the last write read back, if within `maxAgeMicroseconds`, with the
    /// fault bits seen since the last call; nil while a failure waits to be reported
    /// (the core then reads STATUS itself, and that read reports it).
    func recentStatus(maxAgeMicroseconds: UInt32) -> UInt8? {
        state.withLock {
            guard failure == nil, let status,
                  HostedClock.nanoseconds() &- status.atNanoseconds <= UInt64(maxAgeMicroseconds) * 1000
            else { return nil }
            defer { faultsSinceTaken = 0 }
            return status.value | faultsSinceTaken
        }
    }

    /// A STATUS read back by a write that waited for its answer (before the thread runs).
    func noteStatus(_ value: UInt8, atNanoseconds at: UInt64) {
        state.withLock { note(status: value, atNanoseconds: at) }
    }

    /// With `state` held.
    private func note(status value: UInt8, atNanoseconds at: UInt64) {
        status = (value, at)
        faultsSinceTaken |= value & UInt8(DRV2605_STATUS_OVER_TEMP | DRV2605_STATUS_OC_DETECT)
    }

    /// Takes every outstanding answer (each bounded by the answer timeout), then ends the
    /// thread. Idempotent.
    func finish() {
        let t: pthread_t? = state.withLock {
            stopping = true
            state.signal()
            defer { thread = nil }
            return thread
        }
        if let t { pthread_join(t, nil) }
    }

    // MARK: the thread

    private func loop() {
        while true {
            state.lock()
            while head == pending.count && !stopping { _ = state.wait(untilMicroseconds: nil) }
            guard head < pending.count, failure.map({ if case .adapterFailure = $0 { false } else { true } }) ?? true else {
                // The transfers still submitted are waited for (each fails at once on a
                // gone device) before the port may close under them.
                let left = pending[head...].map(\.submitted)
                pending.removeAll()
                head = 0
                running = false
                state.unlock()
                for submitted in left { try? submitted.finish() }
                taken.withLock { taken.signal() }
                return
            }
            let next = pending[head]
            state.unlock()

            var outcome: Result<[UInt8], I2CTransactionError>
            do {
                try next.submitted.finish()
                outcome = .success(try port.answer(count: next.submitted.answerCount))
            } catch { outcome = .failure(.adapter(error)) }
            if case .success(let answer) = outcome {
                do { outcome = .success(try next.program.interpret(answer)) } catch { outcome = .failure(.bus(error)) }
            }
            state.withLock {
                head += 1
                // Taken entries go when the queue empties, or in a block once many are
                // (a reader that never quite catches up must not grow it for ever).
                if head == pending.count {
                    pending.removeAll(keepingCapacity: true)
                    head = 0
                } else if head >= 1024 {
                    pending.removeFirst(head)
                    head = 0
                }
                take(outcome, for: next.expectation)
            }
            taken.withLock { taken.signal() }
        }
    }

    /// With `state` held.
    private func take(_ outcome: Result<[UInt8], I2CTransactionError>, for expectation: Expectation) {
        if case .failure(.adapter(let e)) = outcome {
            failure = .adapterFailure(e.description)
        }
        switch expectation {
        case .read(let id):
            reads[id] = outcome
        case .write(let readsStatus, let sent):
            switch outcome {
            case .success(let read):
                if readsStatus, let value = read.first { note(status: value, atNanoseconds: sent) }
            case .failure(.bus):
                if failure == nil { failure = .notAcknowledged }
            case .failure(.adapter):
                break
            }
        }
    }
}
