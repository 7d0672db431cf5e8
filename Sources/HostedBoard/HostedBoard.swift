import FirmwareCore
import RealTime
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The firmware's portable core hosted in this process, for an adapter with no
/// microcontroller of its own (an I2C adapter on USB): the same C sources the bridge board and
/// `SimulatedBoard` run, with hooks (hooks.h) on the host.
///
/// - **Clock**: `now_us` is CLOCK_MONOTONIC (`HostedClock`), so board time is host time.
/// - **Timer**: `arm_timer` sets a deadline a dedicated thread sleeps to (SCHED_FIFO
///   where permitted, memory locked, 1 ns timer slack: `HostedScheduling`); the core
///   arms `spin_us` early and spins the rest (`spin_until`), so each write leaves on
///   its stamp, not on the wake-up. The thread calls `hb_core_timer_fired` with the
///   core's lock held, as core.h asks of a threaded port.
/// - **Main context**: a service thread feeds the host's bytes to `hb_core_receive`
///   and calls `hb_core_poll` every millisecond; `lock`/`unlock` are a mutex it
///   shares with the timer thread.
/// - **I2C**: a `HostedI2CPort`, blocking; the adapter's module provides it.
/// - **Frames** the core sends are kept for the transport with their host time.
///
/// An adapter failure (the adapter unplugged) ends the board: `failure` says why and the
/// transport reports the link gone. `stop()` ends both threads and shuts the chip down
/// through the port (standby, EN low).
public final class HostedBoard: @unchecked Sendable {
    // @unchecked: the core is touched only under `coreLock` (or before the threads start
    // and after they end); the rest of the state is behind `state`/`wake`.
    public struct Configuration: Sendable {
        /// The serial number HELLO_REPLY states (1...20 characters `hb_serial_char_ok` takes).
        public var serial: [UInt8]
        /// SCHED_FIFO priority asked for the timer thread (above the engine's service
        /// thread); nil keeps it in the normal class (the benchmark's comparison).
        public var priority: Int32? = 30
        /// SCHED_FIFO priority asked for the port's own thread (an answer reader), when
        /// the timer asks for one: below the timer's, so it never delays a write; below
        /// the emulations' device threads (25), so an emulated adapter serves the timer's
        /// submissions first; above the engine's service thread (20).
        public var portPriority: Int32 = 24
        /// How long before a stamp the timer thread wakes and then spins (µs). Covers the
        /// wake-up's lateness: tens of µs under SCHED_FIFO, more without.
        public var spinMicroseconds: UInt16 = Self.defaultSpinMicroseconds
        public static let defaultSpinMicroseconds: UInt16 = 150
        /// The intake HELLO_REPLY states: the least µs between stamped writes this port
        /// keeps up with (a write's transfer handed over; its ACK bits are read behind it).
        public var writeSpacingMicroseconds: UInt16 = 500
        /// What a transaction costs beyond its bytes (µs): a USB round trip for the ACK
        /// bits. The core keeps its STATUS polls and untimed reads off the bus unless they
        /// end before the next stamped command (hb_core_config.transaction_overhead_us).
        /// nil: measured when the board starts (`measureTransactionOverhead`).
        public var transactionOverheadMicroseconds: UInt16?
        /// The most write times kept for `drainWriteTimes()`.
        public var writeTimeCapacity = 100_000

        public init(serial: [UInt8], spinMicroseconds: UInt16 = Self.defaultSpinMicroseconds) {
            self.serial = serial
            self.spinMicroseconds = spinMicroseconds
        }
    }

    public let configuration: Configuration
    /// Told on each service pass; halts the board when it says so.
    let guardian: (any HostedBoardGuard)?
    /// The overhead the core was told (measured unless configured).
    public let transactionOverheadMicroseconds: UInt16
    public let port: any HostedI2CPort
    /// How the timer thread is scheduled (known once `init` returns).
    public private(set) var scheduling = HostedScheduling(thread: .normal(reason: "not started"), memoryLocked: false, timerSlackNanoseconds: nil)

    let core: UnsafeMutablePointer<hb_core>
    let coreLock: UnsafeMutablePointer<pthread_mutex_t>
    /// Guards `armedAt`, `inbox` and `stopping`; wakes the threads. Taken inside the core
    /// lock (arm_timer runs under it), never the other way round.
    let wake = MonotonicCondition()
    let serviceWake = MonotonicCondition()
    var armedAt: UInt32?
    var inbox: [UInt8] = []
    var stopping = false
    /// Set by the timer thread while it runs `hb_core_timer_fired` (under the core lock).
    var inTimer = false
    /// The timer thread's latest firing (its writes carry it): set and read by that thread.
    var timerTrace = HostedWriteTime.TimerTrace(dueNanoseconds: 0, wokeNanoseconds: 0, lockedNanoseconds: 0)

    struct Shared {
        var outbox: [(frame: [UInt8], hostMicroseconds: UInt64)] = []
        var failure: String?
        /// `halt` ended the board: what the core says from then on is not sent.
        var halted = false
        var writeTimes: [HostedWriteTime] = []
        var unrecordedWrites = 0
    }
    let shared = Mutex(Shared())
    private var threads: [pthread_t] = []
    /// The timer thread's CPU-time clock (pthread_getcpuclockid), while it runs.
    private var timerCPUClock: clockid_t?
    private var stopped = false

    /// `guardian`, when given, watches the board from outside the process: it hears from
    /// every service pass and may halt the board (`HostedBoardGuard`).
    public init(port: any HostedI2CPort, configuration: Configuration, guardian: (any HostedBoardGuard)? = nil) {
        self.port = port
        self.configuration = configuration
        self.guardian = guardian
        transactionOverheadMicroseconds = configuration.transactionOverheadMicroseconds ?? Self.measureTransactionOverhead(port)
        core = .allocate(capacity: 1)
        core.initialize(to: hb_core())
        coreLock = .allocate(capacity: 1)
        pthread_mutex_init(coreLock, nil)
        var hooks = Self.hooks(context: Unmanaged.passUnretained(self).toOpaque())
        var config = hb_core_config()
        config.spin_us = configuration.spinMicroseconds
        config.tick_ns = 1000
        config.write_spacing_us = configuration.writeSpacingMicroseconds
        config.transaction_overhead_us = transactionOverheadMicroseconds
        config.bootloader_kind = UInt8(HB_BOOTLOADER_NONE)
        config.serial_len = UInt8(truncatingIfNeeded: min(configuration.serial.count, Int(HB_SERIAL_MAX_LEN)))
        withUnsafeMutableBytes(of: &config.serial) { field in
            for (i, byte) in configuration.serial.enumerated() where i < field.count { field[i] = byte }
        }
        hb_core_init(core, &hooks, &config)
        // Bring-up in the caller's thread, before any other runs: probe, standby.
        hb_core_start(core)
        start()
    }

    deinit {
        stop()
        pthread_mutex_destroy(coreLock)
        coreLock.deallocate()
        core.deinitialize(count: 1)
        core.deallocate()
    }

    /// Why the board ended (the adapter failed), if it did.
    public var failure: String? { shared.withLock { $0.failure } }

    // MARK: the transport's side

    /// Bytes from the host; the service thread hands them to the core.
    public func receive(_ bytes: [UInt8]) {
        wake.withLock { inbox += bytes }
        serviceWake.withLock { serviceWake.signal() }
    }

    /// Frames the core sent since the last call, with the host µs each was sent at.
    public func takeFrames() -> [(frame: [UInt8], hostMicroseconds: UInt64)] {
        shared.withLock { s in
            defer { s.outbox.removeAll(keepingCapacity: true) }
            return s.outbox
        }
    }

    /// The write times recorded since the last call (at most `writeTimeCapacity` kept).
    public func drainWriteTimes() -> [HostedWriteTime] {
        shared.withLock { s in
            defer { s.writeTimes.removeAll(keepingCapacity: true) }
            return s.writeTimes
        }
    }

    /// CPU time the timer thread has used so far (ns): its sleeps cost nothing, its spins
    /// onto each stamp and the writes it makes do. nil once stopped or where unknown.
    public var timerThreadCPUNanoseconds: UInt64? {
        guard !stopped, let clock = timerCPUClock else { return nil }
        var ts = timespec()
        guard clock_gettime(clock, &ts) == 0 else { return nil }
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Ends both threads (the timer's last command, if it is running one, finishes),
    /// then shuts the chip down through the port. Idempotent.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        wake.withLock { stopping = true }
        wake.signal()
        serviceWake.signal()
        for t in threads { pthread_join(t, nil) }
        threads = []
        port.shutDown()
    }

    // MARK: threads

    private func start() {
        // The port's own thread (an answer reader): real time when the timer is.
        port.start(priority: configuration.priority.map { min($0 - 1, configuration.portPriority) })
        let started = MonotonicCondition()
        var schedulingResult: HostedScheduling?
        let box = Unmanaged.passRetained(ThreadBody { [self] in
            let s = HostedScheduling.adoptForCurrentThread(priority: configuration.priority)
            started.withLock { schedulingResult = s }
            started.signal()
            timerLoop()
        })
        if let t = Self.spawn(box) {
            threads.append(t)
            var clock = clockid_t()
            if pthread_getcpuclockid(t, &clock) == 0 { timerCPUClock = clock }
        }
        started.withLock {
            while schedulingResult == nil && !threads.isEmpty { started.wait(untilMicroseconds: HostedClock.microseconds() + 100_000) }
        }
        if let s = started.withLock({ schedulingResult }) { scheduling = s }
        let service = Unmanaged.passRetained(ThreadBody { [self] in serviceLoop() })
        if let t = Self.spawn(service) { threads.append(t) }
    }

    /// Starts a thread running `body` (an adapter's port may run one of its own: an
    /// answer reader).
    public static func spawn(_ body: Unmanaged<ThreadBody>) -> pthread_t? {
        var thread = pthread_t()
        let r = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, body.toOpaque())
        guard r == 0 else {
            body.release()
            return nil
        }
        return thread
    }

    /// Sleeps until the armed time (the core arms it `spin_us` before the write), then
    /// runs the core's timer callback under its lock; re-armed from inside or by the
    /// service thread (which signals `wake`).
    private func timerLoop() {
        while true {
            wake.lock()
            var due = false
            var dueAt: UInt64 = 0
            while !stopping && !due {
                guard let at = armedAt else {
                    wake.wait(untilMicroseconds: nil)
                    continue
                }
                let now = HostedClock.microseconds()
                let deadline = HostedClock.hostMicroseconds(ofBoard: at, nearHost: now)
                if deadline <= now {
                    due = true
                    dueAt = deadline
                } else {
                    wake.wait(untilMicroseconds: deadline)
                }
            }
            if stopping {
                wake.unlock()
                return
            }
            armedAt = nil
            wake.unlock()
            let woke = HostedClock.nanoseconds()
            pthread_mutex_lock(coreLock)
            timerTrace = HostedWriteTime.TimerTrace(dueNanoseconds: dueAt * 1000, wokeNanoseconds: woke, lockedNanoseconds: HostedClock.nanoseconds())
            inTimer = true
            hb_core_timer_fired(core)
            inTimer = false
            pthread_mutex_unlock(coreLock)
        }
    }

    /// The main context: bytes in, and `hb_core_poll` every millisecond (the core keeps
    /// its own bus traffic clear of stamped commands, given the port's overhead).
    private func serviceLoop() {
        while true {
            // `receive` signals with `serviceWake` held, so a byte arriving between the
            // check and the wait is never missed.
            serviceWake.lock()
            if wake.withLock({ inbox.isEmpty && !stopping }) {
                serviceWake.wait(untilMicroseconds: HostedClock.microseconds() + 1000)
            }
            serviceWake.unlock()
            let (bytes, quit) = wake.withLock {
                defer { inbox.removeAll(keepingCapacity: true) }
                return (inbox, stopping)
            }
            if quit { return }
            // The guardian first: continued after a stop, this pass must hear that the
            // guardian took over before the core's own watchdog, which stopped with the
            // process, reports a host silence that was not the host's.
            if let guardian, let why = guardian.servicePass(nowNanoseconds: HostedClock.nanoseconds()) { halt(why) }
            if !bytes.isEmpty {
                bytes.withUnsafeBufferPointer { b in
                    if let base = b.baseAddress { hb_core_receive(core, base, UInt32(b.count)) }
                }
            }
            hb_core_poll(core)
        }
    }

    /// Stops the chip at once as STOP_ALL does (the queue flushed, the chip in standby,
    /// from the core's main context), then ends the board with `why` as its failure: it
    /// replaces an adapter failure it explains (an adapter taken by its guardian refuses
    /// every transfer), and the core's frames from then on are dropped (its watchdog's
    /// STOPPED, its I2C faults: the board is gone, and `why` is why). EN goes low when
    /// the board is stopped (`stop()`, at close).
    func halt(_ why: String) {
        pthread_mutex_lock(coreLock)
        _ = hbi_stop_locked(core, UInt8(HB_STOP_HOST_REQUEST))
        pthread_mutex_unlock(coreLock)
        shared.withLock {
            $0.failure = why
            $0.halted = true
        }
    }

    /// The port's cost per transaction: the slowest of a few STATUS reads (each a full
    /// round trip; the answer does not matter, a NACK costs the same), with a quarter
    /// again and 100 µs to spare for a busy host, at most 5 ms.
    static func measureTransactionOverhead(_ port: any HostedI2CPort) -> UInt16 {
        var slowest: UInt64 = 0
        for _ in 0..<5 {
            let begin = HostedClock.nanoseconds()
            _ = port.read(address: UInt8(DRV2605_I2C_ADDR), register: UInt8(DRV2605_REG_STATUS), count: 1)
            slowest = max(slowest, (HostedClock.nanoseconds() - begin) / 1000)
        }
        return UInt16(min(5000, slowest + slowest / 4 + 100))
    }
}

/// A thread's body, handed through pthread_create's context pointer.
public final class ThreadBody {
    let run: () -> Void
    public init(_ run: @escaping () -> Void) { self.run = run }
}
