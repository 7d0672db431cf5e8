import RealTime
import BridgeProtocol
import HapticEngine
import SimulatedBoard
import SimulatedBridgeDevice
import Testing

/// The simulated board on the host's clock (what `hapbridge play --realtime` and the
/// benchmarks use). Only lower bounds on elapsed time are checked: a loaded machine
/// may run late, never early, so these cannot flake.
@Suite struct RealTimeDeviceTests {
    @Test func theBoardClockFollowsTheHostClockWithoutBeingAdvanced() async throws {
        let device = SimulatedBridgeDevice(board: SimulatedBoard(), link: .init(latencyMicroseconds: 0, hostOffsetMicroseconds: 0), timing: .realTime)
        let before = device.hostMicroseconds
        try await Task.sleep(for: .milliseconds(20))
        let after = device.hostMicroseconds
        #expect(after - before >= 20_000)
        #expect(device.board.time >= 20_000)  // the board ran through the sleep
    }

    @Test func aFrameSentInRealTimeIsAnsweredByTheNextPoll() throws {
        let device = SimulatedBridgeDevice(board: SimulatedBoard(), link: .init(latencyMicroseconds: 0), timing: .realTime)
        var encoder = HostFrameEncoder()
        try device.send(encoder.hello(keepAliveMilliseconds: 500))
        // The board is run up to the present by every call, so the HELLO_REPLY is
        // there as soon as the firmware core has handled the frame.
        var replies: [BoardFrame] = []
        while replies.isEmpty {
            for case .frame(let bytes, _) in device.poll() { replies.append(try BoardFrame(decoding: bytes)) }
        }
        #expect(replies.first?.helloReply != nil)
    }

    @Test func waitingInRealTimeSleepsUntilTheHostTime() async throws {
        let device = SimulatedBridgeDevice(board: SimulatedBoard(), timing: .realTime)
        let clock = ContinuousClock()
        let start = clock.now
        let target = device.hostMicroseconds + 15_000
        try await device.wait(untilHostMicroseconds: target, isolation: nil)
        #expect(clock.now - start >= .milliseconds(15) - .microseconds(100))
        #expect(device.hostMicroseconds >= target)
    }
}
