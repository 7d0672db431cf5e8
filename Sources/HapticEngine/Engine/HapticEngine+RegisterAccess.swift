import BridgeLink
import DeviceInterface

/// The board's I2C bus while the engine owns its link: a driver's or an accelerometer's
/// register reads and writes from any task, also while a pattern streams. The link
/// sends each transaction into a gap of the stream, where it cannot delay a stamped
/// command (`UntimedQueue`); the service loop takes the answer.
public struct EngineI2CBus: I2CBus, Sendable {
    public let engine: HapticEngine

    public func write(address: UInt8, register: UInt8, bytes: [UInt8]) async throws(I2CError) {
        _ = try await engine.untimed(.write(address: address, register: register, bytes: bytes))
    }

    public func read(address: UInt8, register: UInt8, count: Int) async throws(I2CError) -> [UInt8] {
        try await engine.untimed(.read(address: address, register: register, count: count))
    }

    public func wait(microseconds: UInt64) async throws(I2CError) {
        try await engine.busWait(microseconds: microseconds)
    }
}

extension HapticEngine {
    /// The board's I2C master through this engine's link (protocol 1.1 boards).
    public nonisolated var i2cBus: EngineI2CBus { EngineI2CBus(engine: self) }

    /// One untimed transaction, answered. With the service loop running the loop goes
    /// on streaming while this waits for the answer; otherwise (stopped, or driven by
    /// hand) it drives the engine itself, servicing it as `advance` would.
    func untimed(_ request: UntimedRequest) async throws(I2CError) -> [UInt8] {
        guard connected else { throw .adapterFailure("the device is disconnected") }
        if link.identity == nil { try await openForRegisters() }
        let ticket: UntimedQueue.Ticket
        do { ticket = try link.enqueue(request) } catch { throw error.i2cError }
        link.sendUntimed()
        let deadline = host() + Int64(link.replyTimeoutMicroseconds)
        while true {
            if let result = link.takeResult(ticket) {
                do { return try result.get() } catch { throw error.i2cError }
            }
            guard host() < deadline else {
                link.cancel(ticket)
                throw .adapterFailure(
                    "\(link.summary) did not answer the \(request.description) within \(link.replyTimeoutMicroseconds / 1000) ms")
            }
            if serviceTask != nil {
                // The service loop streams meanwhile; this waiter sends and takes the
                // answer itself, 200 µs apart, so a read costs a round trip, not a
                // service period or two.
                link.sendUntimed()
                handle(link.pump())
                if link.untimed.isAnswered(ticket) { continue }
            } else {
                service()
            }
            do { try await letTimePass(untilHost: host() + min(options.servicePeriodMicroseconds, 200)) } catch {
                throw error.kind == .disconnected ? .adapterFailure("the device is disconnected") : .adapterFailure(error.description)
            }
        }
    }

    /// Device time passing for a driver on the bus: the engine goes on servicing.
    func busWait(microseconds: UInt64) async throws(I2CError) {
        let end = host() + Int64(clamping: microseconds)
        while host() < end {
            if serviceTask == nil { service() }
            do { try await letTimePass(untilHost: min(end, host() + options.servicePeriodMicroseconds)) } catch {
                throw .adapterFailure(error.description)
            }
        }
    }

    /// A session for register access before the engine has started (HELLO).
    func openForRegisters() async throws(I2CError) {
        do {
            try linkSend {
                try link.beginOpen(.init(
                    keepAliveMilliseconds: options.keepAliveMilliseconds, maxDriveMilliseconds: options.maxDriveMilliseconds,
                    protocolMinor: options.protocolMinor))
            }
            let deadline = host() + options.startTimeoutMicroseconds
            while link.isAwaitingHello { try await waitBriefly(deadline: deadline) }
            try linkSend { try link.completeOpen() }
        } catch { throw .adapterFailure(error.description) }
    }
}
