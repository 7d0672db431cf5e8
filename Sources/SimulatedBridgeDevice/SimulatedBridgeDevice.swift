import DeviceInterface
import SimulatedBoard

/// How the simulated board's clock relates to the host's.
public enum SimulatedTiming: Sendable, Equatable {
    /// Time moves only when the engine waits: no sleeping, the same result every run
    /// (tests, `hapbridge play`).
    case virtual
    /// The board's clock follows the host's monotonic clock from the moment the device
    /// is made: waiting sleeps, and whatever the host does between two calls (its
    /// scheduling, its own work) is time the board runs through. A command that
    /// reaches the board after its stamp starts late, exactly as on hardware, so
    /// benchmarks see the host's real latency and jitter.
    case realTime
}

/// The simulated board as a `FrameTransport`: an adapter over `SimulatedBoard`'s public
/// API with a modelled USB link between host and board.
///
/// **Virtual time.** The host clock is the board's virtual clock seen through a
/// fixed offset and drift (`Link`), so clock sync has something real to estimate;
/// `wait(untilHostMicroseconds:)` advances the board to that moment (stopping at
/// every link delivery on the way) and returns at once. Nothing sleeps, and the same
/// inputs always give the same I2C log.
///
/// **Real time** (`timing: .realTime`): the same board and link, but the clock is
/// the host's (`realTimeOrigin` is link time 0) and every call first runs the board
/// up to the present; `wait` sleeps.
///
/// **The link.** Each direction delivers after its latency (USB full speed: frames of
/// 1 ms, round trips of 1-2 ms) plus an optional seeded jitter, in order. `unplug()` cuts it (the board keeps
/// running on its own, as a real one would: its host-silence watchdog then stops the
/// actuator); `replug()` restores it; `resetBoard()` power-cycles the board (a fresh
/// firmware boot: clock from 0, session closed) and reports it as a reappearance;
/// `stall(forMicroseconds:)` holds the whole board, its clock included, as `emulate
/// control stall` holds the ELF under simavr.
public final class SimulatedBridgeDevice: FrameTransport {
    public struct Link: Sendable, Equatable {
        /// One-way delay host → board, µs.
        public var latencyMicroseconds: UInt64
        /// One-way delay board → host, µs (nil: the same as host → board).
        public var returnLatencyMicroseconds: UInt64?
        /// Extra delay per transfer, 0...this µs, from a fixed-seed generator (the same
        /// every run); transfers stay in order, as USB keeps them.
        public var jitterMicroseconds: UInt64
        /// Host clock at board power-up, µs.
        public var hostOffsetMicroseconds: UInt64
        /// How much faster the host's clock runs than the board's, parts per million.
        public var hostDriftPPM: Double
        public init(
            latencyMicroseconds: UInt64 = 500, returnLatencyMicroseconds: UInt64? = nil, jitterMicroseconds: UInt64 = 0,
            hostOffsetMicroseconds: UInt64 = 1_000_000, hostDriftPPM: Double = 0
        ) {
            self.latencyMicroseconds = latencyMicroseconds
            self.returnLatencyMicroseconds = returnLatencyMicroseconds
            self.jitterMicroseconds = jitterMicroseconds
            self.hostOffsetMicroseconds = hostOffsetMicroseconds
            self.hostDriftPPM = hostDriftPPM
        }
    }

    public private(set) var board: SimulatedBoard
    public let link: Link
    public let timing: SimulatedTiming
    /// Link time 0 on the host's monotonic clock (`.realTime` only).
    public let realTimeOrigin: ContinuousClock.Instant
    /// A board failure met while catching up in real time, reported by the next call
    /// that can throw.
    private var deferredError: DeviceError?
    public private(set) var isPlugged = true
    /// Virtual µs of the link's own clock (the board's `time` plus the time of boards
    /// before the last reset), so host time never goes backwards across a reset.
    private var elapsedBeforeBoard: UInt64 = 0
    private var toBoard: [(at: UInt64, bytes: [UInt8])] = []
    private var toHost: [(at: UInt64, event: DeviceEvent)] = []
    /// Link time until which the board is held (`stall`): no clock, no timer, no intake.
    private var stalledUntil: UInt64 = 0

    public init(board: SimulatedBoard, link: Link = Link(), timing: SimulatedTiming = .virtual) {
        self.board = board
        self.link = link
        self.timing = timing
        self.realTimeOrigin = ContinuousClock.now
    }

    public var summary: String {
        "simulated bridge board (firmware core + \(board.chip.variant) model, \(timing == .virtual ? "virtual" : "real") time, link \(link.latencyMicroseconds) µs)"
    }

    public var isRealTime: Bool { timing == .realTime }

    /// Nothing to let go of: the board lives in this process.
    public func close() {}

    /// Simulated µs since the first board powered up.
    public var linkTime: UInt64 { elapsedBeforeBoard + board.time }

    public var hostMicroseconds: UInt64 {
        catchUp()
        return host(atLink: linkTime)
    }

    /// Link time of a moment on the host's monotonic clock (`.realTime`).
    public func linkTime(at instant: ContinuousClock.Instant) -> UInt64 {
        let d = instant - realTimeOrigin
        guard d > .zero else { return 0 }
        return UInt64(d.components.seconds) * 1_000_000 + UInt64(d.components.attoseconds / 1_000_000_000_000)
    }

    /// Real time: runs the board up to the present, as a board running on its own
    /// clock already has. Every call does this first; a benchmark calls it before it
    /// takes a start's time, so that simulating the idle time before the start (on
    /// hardware the board's own, free) is not billed to the host's start path.
    public func runToPresent() { catchUp() }

    /// Real time: runs the board up to the present before anything looks at it.
    private func catchUp() {
        guard timing == .realTime, deferredError == nil else { return }
        do { try advance(toLink: max(linkTime, linkTime(at: .now))) } catch { deferredError = error }
    }

    private func checkDeferred() throws(DeviceError) {
        if let e = deferredError { throw e }
    }

    func host(atLink t: UInt64) -> UInt64 {
        link.hostOffsetMicroseconds + UInt64((Double(t) * (1 + link.hostDriftPPM * 1e-6)).rounded(.down))
    }

    func linkTime(atHost h: UInt64) -> UInt64 {
        guard h > link.hostOffsetMicroseconds else { return 0 }
        return UInt64((Double(h - link.hostOffsetMicroseconds) / (1 + link.hostDriftPPM * 1e-6)).rounded(.up))
    }

    public func send(_ bytes: [UInt8]) throws(DeviceError) {
        catchUp()
        try checkDeferred()
        guard isPlugged else { throw .disconnected }
        let at = max(toBoard.last?.at ?? 0, linkTime + link.latencyMicroseconds + jitter())
        toBoard.append((at, bytes))
        if at <= linkTime { deliver() }
    }

    /// xorshift64*: a fixed sequence, so a jittery link is still the same every run.
    private var jitterState: UInt64 = 0x9E37_79B9_7F4A_7C15
    private func jitter() -> UInt64 {
        guard link.jitterMicroseconds > 0 else { return 0 }
        jitterState ^= jitterState >> 12
        jitterState ^= jitterState << 25
        jitterState ^= jitterState >> 27
        return (jitterState &* 2_685_821_657_736_338_717) % (link.jitterMicroseconds + 1)
    }

    public func poll() -> [DeviceEvent] {
        catchUp()
        collect()
        let now = linkTime
        let due = toHost.prefix { $0.at <= now }
        toHost.removeFirst(due.count)
        return due.map(\.event)
    }

    public func wait(untilHostMicroseconds target: UInt64, isolation: isolated (any Actor)?) async throws(DeviceError) {
        let to = linkTime(atHost: target)
        if timing == .realTime {
            // Cancellation only cuts the sleep short; the board still catches up.
            try? await Task.sleep(until: realTimeOrigin.advanced(by: .microseconds(Int64(clamping: to))), clock: .continuous)
            catchUp()
            try checkDeferred()
        } else {
            try advance(toLink: max(linkTime, to))
        }
    }

    /// Moves the board on, stopping at each delivery so every frame reaches the
    /// firmware at its own moment.
    public func advance(toLink target: UInt64) throws(DeviceError) {
        // What arrives while the board is held waits for its end.
        while let first = toBoard.first?.at, case let next = max(first, stalledUntil), next <= target {
            try step(toLink: next)
            deliver()
        }
        try step(toLink: target)
        collect()
    }

    private func step(toLink t: UInt64) throws(DeviceError) {
        guard t > linkTime else { return }
        if stalledUntil > linkTime {
            // Held: link time passes, the board's own does not.
            elapsedBeforeBoard += min(t, stalledUntil) - linkTime
            guard t > linkTime else { return }
        }
        do { try board.advance(to: t - elapsedBeforeBoard) } catch { throw .io(String(describing: error)) }
        collect()
    }

    private func deliver() {
        let now = linkTime
        guard now >= stalledUntil else { return }
        while let first = toBoard.first, first.at <= now {
            toBoard.removeFirst()
            board.send(first.bytes)
        }
        collect()
    }

    private func collect() {
        let frames = board.receivedFrames()
        guard isPlugged else { return }  // the board talks to nobody
        for f in frames {
            let arrival = max(toHost.last?.at ?? 0, linkTime + (link.returnLatencyMicroseconds ?? link.latencyMicroseconds) + jitter())
            toHost.append((arrival, .frame(f, receivedAt: host(atLink: arrival))))
        }
    }

    // MARK: faults a test or a demo can cause

    /// The cable is pulled: nothing in flight arrives, sends fail, the board runs on.
    public func unplug() {
        guard isPlugged else { return }
        catchUp()
        collect()
        isPlugged = false
        toBoard.removeAll()
        toHost.removeAll()
        toHost.append((linkTime, .disconnected))
    }

    /// The cable is back: the same board, still running, reappears.
    public func replug() {
        guard !isPlugged else { return }
        catchUp()
        _ = board.receivedFrames()
        isPlugged = true
        toHost.append((linkTime, .reappeared))
    }

    /// The board's firmware is held for `microseconds` from now: its clock, timer and
    /// USB intake stop (what the host sends waits), then it runs on from where it was,
    /// its clock that far behind the host's.
    public func stall(forMicroseconds microseconds: UInt64) {
        catchUp()
        stalledUntil = max(stalledUntil, linkTime + microseconds)
    }

    /// The board resets (watchdog, power glitch): a fresh boot behind the same link.
    /// USB sees a disconnect and a reappearance.
    public func resetBoard() {
        catchUp()
        let now = linkTime
        elapsedBeforeBoard = now
        board = SimulatedBoard(configuration: board.configuration)
        // The new board's clock starts at 0 "now" on the link's clock.
        elapsedBeforeBoard = now - board.time
        toBoard.removeAll()
        toHost.removeAll()
        toHost.append((now, .disconnected))
        toHost.append((now, .reappeared))
    }
}

extension SimulatedBridgeDevice: AccelerationTelemetry {
    /// The sled's model is this link's telemetry.
    public var telemetry: (any AccelerationTelemetry)? { self }
    public var accelerationSource: String { "simulated sled" }

    /// The sled's acceleration from the physics model, on the board's clock.
    public func acceleration(since boardMicroseconds: UInt64) -> [DeviceInterface.AccelerationSample] {
        board.acceleration(from: boardMicroseconds).map { DeviceInterface.AccelerationSample(boardMicroseconds: $0.time, g: $0.g) }
    }

    public func clearAcceleration() { board.clearAcceleration() }
}
