import BridgeProtocol
import DRV2605
import DeviceInterface

/// An untimed conversation with a bridge board over any frame transport: HELLO (the
/// board's identity and the protocol version), register access through protocol
/// 1.1's I2C_READ / I2C_WRITE, and the keep-alive that holds the session open between
/// them. What `calibrate`, `diagnose`, `rom`, `info` and `list` use; an engine runs
/// its own session on a transport it owns, never beside one of these.
///
/// Waiting is the transport's: a simulated board in virtual time advances, a USB
/// board sleeps. Not `Sendable`, like the transport it drives.
public final class BridgeSession {
    public let transport: any FrameTransport
    /// How long a reply may take before the board counts as not answering. Generous:
    /// a full-speed round trip is 1-2 ms, an untimed 32-byte read ~1 ms on the bus.
    public var replyTimeoutMicroseconds: UInt64 = 500_000
    public private(set) var identity: BoardIdentity?
    private var encoder = HostFrameEncoder()
    private var keepAliveMicroseconds: UInt64 = 2_000_000
    private var lastSent: UInt64 = 0
    private var inbox: [BoardFrame] = []

    /// Asked while the session waits (for a reply, or for time to pass): a reason to
    /// give up now ("interrupted by SIGINT"), or nil to go on. Waits are cut into
    /// steps of at most `interruptionCheckMicroseconds` while it is set, so an
    /// interruption ends a procedure within one step and one reply.
    public var interruption: (@Sendable () -> String?)?
    /// The longest a wait goes on without asking `interruption`.
    public static let interruptionCheckMicroseconds: UInt64 = 5_000

    public init(transport: any FrameTransport) { self.transport = transport }

    /// HELLO: opens a session (the board re-probes its chip) and reads the board's
    /// identity. `keepAliveMilliseconds` is how long the board waits for the next frame
    /// before it stops and closes the session on its own.
    /// `protocolMinor` is what this host offers (lower it to talk as a 1.0 host would).
    @discardableResult
    public func open(keepAliveMilliseconds: UInt16 = 2_000, protocolMinor: UInt8 = HostFrameEncoder.protocolMinor) async throws(BridgeSessionError)
        -> BoardIdentity
    {
        encoder = HostFrameEncoder()
        // Whatever the board said before this HELLO belongs to an earlier session.
        _ = transport.poll()
        inbox.removeAll()
        keepAliveMicroseconds = UInt64(keepAliveMilliseconds) * 1000
        let discardedBefore = transport.diagnostics?.discardedBytes ?? 0
        try send(encoder.hello(keepAliveMilliseconds: keepAliveMilliseconds, protocolMinor: protocolMinor))
        let reply: BoardFrame
        do { reply = try await awaitFrame(what: "HELLO_REPLY") { $0.type == .helloReply } } catch {
            if case .noAnswer = error, let noise = transport.diagnostics?.discardedBytes, noise > discardedBefore {
                throw .notHapbridge(
                    "\(transport.summary) sent \(noise - discardedBefore) bytes that were not hapbridge frames and no HELLO_REPLY: "
                        + "is it running hapbridge firmware? (`hapbridge flash` installs it)")
            }
            throw error
        }
        guard let hello = reply.helloReply else { throw .notHapbridge("\(transport.summary) answered HELLO with \(reply.type)") }
        guard hello.protocolMajor == HostFrameEncoder.protocolMajor else {
            throw .protocolVersion(board: "\(hello.protocolMajor).\(hello.protocolMinor)")
        }
        let id = BoardIdentity(hello)
        identity = id
        // A latched fault refuses register writes; a bench session starts clean (the
        // chip's own STATUS still tells what happened).
        try send(encoder.clearFault())
        return id
    }

    /// Reads `count` consecutive registers of the device at `address`.
    public func read(address: UInt8, register: UInt8, count: Int) async throws(BridgeSessionError) -> [UInt8] {
        try requireRegisterAccess()
        let sequence = encoder.nextSequence
        let frame: [UInt8]
        do { frame = try encoder.i2cRead(address: address, register: register, count: count) } catch { throw .invalidRequest(error.description) }
        let result = try await i2c(frame, sequence: sequence, address: address, register: register)
        return result.data
    }

    /// Writes consecutive registers of the device at `address` (one auto-increment write).
    public func write(address: UInt8, register: UInt8, bytes: [UInt8]) async throws(BridgeSessionError) {
        try requireRegisterAccess()
        let sequence = encoder.nextSequence
        let frame: [UInt8]
        do { frame = try encoder.i2cWrite(address: address, register: register, data: bytes) } catch { throw .invalidRequest(error.description) }
        _ = try await i2c(frame, sequence: sequence, address: address, register: register)
    }

    /// Lets `microseconds` of board time pass, keeping the session alive.
    public func wait(microseconds: UInt64) async throws(BridgeSessionError) {
        let end = transport.hostMicroseconds + microseconds
        while true {
            let now = transport.hostMicroseconds
            if now >= end { return }
            try checkInterruption()
            if now - lastSent >= keepAliveMicroseconds / 4 { try send(encoder.keepAlive()) }
            var next = min(end, lastSent + keepAliveMicroseconds / 4)
            if interruption != nil { next = min(next, now + Self.interruptionCheckMicroseconds) }
            try await pass(until: max(next, now + 1))
            collect()
        }
    }

    /// Stops the actuator and flushes the board's queue (STOP_ALL), so a bench command
    /// never leaves the chip driving when it is done. Not cut short by `interruption`:
    /// it is what an interruption ends with.
    public func stopAll() async throws(BridgeSessionError) {
        interruption = nil
        try send(encoder.stopAll())
        _ = try await awaitFrame(what: "ACK of STOP_ALL") { $0.type == .ack }
    }

    /// The I2C master of the board, for a driver (`DRV2605Driver(bus:)`).
    public var i2cBus: BridgeI2CBus { BridgeI2CBus(session: self) }

    // MARK: frames

    private func checkInterruption() throws(BridgeSessionError) {
        if let reason = interruption?() { throw .interrupted(reason) }
    }

    private func requireRegisterAccess() throws(BridgeSessionError) {
        guard let identity else { throw .notOpen }
        guard identity.canAccessRegisters else { throw .firmwareTooOld(identity.firmwareVersion, protocolVersion: identity.protocolVersion) }
    }

    private func i2c(_ frame: [UInt8], sequence: UInt8, address: UInt8, register: UInt8) async throws(BridgeSessionError)
        -> BoardFrame.I2CResult
    {
        try send(frame)
        let reply = try await awaitFrame(what: "the I2C result") { f in
            f.i2cResult?.requestSequence == sequence || f.nak?.sequence == sequence
        }
        if let nak = reply.nak {
            if nak.reason == .unknownType, let identity {
                throw .firmwareTooOld(identity.firmwareVersion, protocolVersion: identity.protocolVersion)
            }
            throw .rejected(nak.reason, what: "I2C at 0x\(String(address, radix: 16)) register 0x\(String(register, radix: 16))")
        }
        guard let result = reply.i2cResult else { throw .notHapbridge("unexpected \(reply.type)") }
        guard result.acknowledged else { throw .i2c(.addressNotAcknowledged(address: address)) }
        return result
    }

    private func send(_ bytes: [UInt8]) throws(BridgeSessionError) {
        do { try transport.send(bytes) } catch { throw .device(error) }
        lastSent = transport.hostMicroseconds
    }

    private func pass(until host: UInt64) async throws(BridgeSessionError) {
        do { try await transport.wait(untilHostMicroseconds: host, isolation: nil) } catch { throw .device(error) }
    }

    /// Takes decoded frames off the link; a disconnect ends the session.
    private func collect() {
        for event in transport.poll() {
            switch event {
            case .frame(let bytes, _): if let f = try? BoardFrame(decoding: bytes) { inbox.append(f) }
            case .disconnected, .reappeared: identity = nil
            }
        }
    }

    /// Waits for the first frame `matches` accepts (others stay in the inbox for later).
    private func awaitFrame(what: String, _ matches: (BoardFrame) -> Bool) async throws(BridgeSessionError) -> BoardFrame {
        let deadline = transport.hostMicroseconds + replyTimeoutMicroseconds
        while true {
            collect()
            if let i = inbox.firstIndex(where: matches) { return inbox.remove(at: i) }
            try checkInterruption()
            let now = transport.hostMicroseconds
            guard now < deadline else { throw .noAnswer("\(transport.summary) did not send \(what) within \(replyTimeoutMicroseconds / 1000) ms") }
            // Polling 200 µs apart: below a USB frame, and a virtual board steps that far.
            try await pass(until: min(deadline, now + 200))
        }
    }
}

/// Why a bench session failed, each saying what to do.
public enum BridgeSessionError: Error, Sendable, Equatable, CustomStringConvertible {
    case device(DeviceError)
    /// Nothing came back in time.
    case noAnswer(String)
    /// Something came back, but not the hapbridge protocol.
    case notHapbridge(String)
    /// The board speaks another protocol major.
    case protocolVersion(board: String)
    /// The board's firmware predates register access (protocol 1.0).
    case firmwareTooOld(String, protocolVersion: String)
    case notOpen
    case rejected(NakReason, what: String)
    case invalidRequest(String)
    case i2c(I2CError)
    /// The session's `interruption` gave this reason to stop waiting.
    case interrupted(String)

    public var description: String {
        switch self {
        case .device(let e): e.description
        case .noAnswer(let why): "\(why): is it a hapbridge board with its firmware running?"
        case .notHapbridge(let why): why
        case .protocolVersion(let v):
            "the board speaks protocol \(v); this hapbridge speaks \(HostFrameEncoder.protocolMajor).\(HostFrameEncoder.protocolMinor): update one of them (`hapbridge flash`)"
        case .firmwareTooOld(let fw, let p):
            "firmware \(fw) (protocol \(p)) cannot read registers: run `hapbridge flash` to update the board"
        case .notOpen: "no session: open() first"
        case .rejected(let reason, let what): "the board refused \(what): \(reason)"
        case .invalidRequest(let why): why
        case .i2c(let e): e.description
        case .interrupted(let why): why
        }
    }
}

/// The board's I2C master as a driver's bus: register reads and writes through the
/// session's untimed frames, waits that keep the session alive.
public final class BridgeI2CBus: I2CBus {
    let session: BridgeSession
    init(session: BridgeSession) { self.session = session }

    public func write(address: UInt8, register: UInt8, bytes: [UInt8]) async throws(I2CError) {
        do { try await session.write(address: address, register: register, bytes: bytes) } catch { throw Self.i2cError(error) }
    }

    public func read(address: UInt8, register: UInt8, count: Int) async throws(I2CError) -> [UInt8] {
        do { return try await session.read(address: address, register: register, count: count) } catch { throw Self.i2cError(error) }
    }

    public func wait(microseconds: UInt64) async throws(I2CError) {
        do { try await session.wait(microseconds: microseconds) } catch { throw Self.i2cError(error) }
    }

    static func i2cError(_ error: BridgeSessionError) -> I2CError {
        if case .i2c(let e) = error { return e }
        if case .interrupted = error { return .cancelled }
        return .adapterFailure(error.description)
    }
}
