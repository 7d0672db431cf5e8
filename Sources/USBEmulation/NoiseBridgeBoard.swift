import BridgeProtocol
import CHapbridgeProtocol
import Foundation
import RealTime
import Synchronization

/// `--firmware noise`: a board with the bridge's VID:PID and descriptors that answers
/// garbage — what a host meets when another firmware sits on the same IDs, or the
/// stream is corrupt. Endpoint 0 is the port's (`StandardRequests.bridgeBoard`); bulk
/// OUT takes every transfer and ignores it; bulk IN sends, while the host polls, one
/// 64-byte packet every `packetIntervalMicroseconds` (one a full-speed frame) of a
/// seeded pseudo-random stream that never holds 0xA5, the frame magic, so no byte of
/// it can start a frame.
final class NoiseBridgeBoard: USBDeviceModel {
    static let packetIntervalMicroseconds: UInt64 = 1000

    private let wakeup = Wakeup()
    private let finished = Wakeup()
    private let state: Mutex<State>

    private struct State {
        var host: (any USBHostPort)?
        var usb: StandardRequests
        var polling = false
        var running = true
        var noise: NoiseStream
    }

    /// `seed`: the stream's start (the same seed gives the same bytes).
    init(serial: String, seed: UInt64) throws(EmulationError) {
        state = Mutex(State(usb: try StandardRequests.bridgeBoard(serial: serial), noise: NoiseStream(seed: seed)))
        let thread = Thread { [self] in run() }
        thread.name = "hapbridge noise board \(serial)"
        thread.start()
    }

    func connect(to host: any USBHostPort) {
        state.withLock { $0.host = host }
    }

    func busReset(completion: @escaping @Sendable () -> Void) {
        state.withLock { $0.usb.reset() }
        completion()
    }

    func control(_ setup: USBSetupPacket, data: [UInt8], completion: @escaping @Sendable (USBPipeResult) -> Void) {
        let result = state.withLock { s -> USBPipeResult in s.running ? s.usb.handle(setup, data: data) : .gone }
        completion(result)
    }

    func bulkOut(endpoint: UInt8, data: [UInt8], completion: @escaping @Sendable (USBPipeResult) -> Void) {
        let result = state.withLock { s -> USBPipeResult in
            guard s.running else { return .gone }
            guard endpoint == USBIdentity.bulkOut else { return .stall }
            return s.usb.halted.contains(endpoint) ? .stall : .done([])
        }
        completion(result)
    }

    func setPolling(endpoint: UInt8, active: Bool) {
        guard endpoint == USBIdentity.bulkIn else { return }
        state.withLock { $0.polling = active }
        if active { wakeup.signal() }
    }

    func powerOff() {
        state.withLock { $0.running = false }
        wakeup.signal()
        finished.wait(microseconds: 2_000_000)
    }

    private func run() {
        defer { finished.signal() }
        var next: UInt64 = 0
        while true {
            let now = RealTimeExecutor.monotonicMicroseconds()
            if now < next {
                wakeup.wait(microseconds: next - now)
                continue
            }
            let (host, packet, running) = state.withLock { s -> ((any USBHostPort)?, USBInEvent?, Bool) in
                guard s.running else { return (nil, nil, false) }
                guard s.usb.isConfigured, s.polling else { return (nil, nil, true) }
                if s.usb.halted.contains(USBIdentity.bulkIn) { return (s.host, .stall, true) }
                return (s.host, .packet(s.noise.next(USBIdentity.bulkPacketSize)), true)
            }
            guard running else { return }
            if let host, let packet {
                host.received(packet, endpoint: USBIdentity.bulkIn)
                next = now + Self.packetIntervalMicroseconds
            } else {
                wakeup.wait(microseconds: Self.packetIntervalMicroseconds)  // or until the host polls
            }
        }
    }
}

/// Pseudo-random bytes without the frame magic 0xA5 (xorshift64; the magic becomes
/// its complement).
struct NoiseStream: Sendable {
    private var x: UInt64

    init(seed: UInt64) { x = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }  // xorshift never leaves 0

    mutating func next(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
            let b = UInt8(truncatingIfNeeded: x >> 32)
            return b == UInt8(HB_FRAME_MAGIC) ? ~b : b
        }
    }
}
