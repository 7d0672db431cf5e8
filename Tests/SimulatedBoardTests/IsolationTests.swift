import BridgeProtocol
import SimulatedBoard
import Testing

@Suite("Simulated boards are independent and the default device")
struct IsolationTests {
    @Test func twoBoardsInOneProcessKeepTheirOwnClocksLogsFramesAndActuators() async throws {
        let c10 = try profile("pmd-c10-100")
        let a = SimulatedBoard(profile: c10)
        let b = SimulatedBoard(profile: c10)
        var hostA = Host(board: a)
        var hostB = Host(board: b)
        hostA.send { $0.hello() }
        hostB.encoder.nextSequence = 100
        hostB.send { $0.hello(keepAliveMilliseconds: 1_000) }
        for (register, value) in try await setupWrites(for: c10) {
            hostA.send { $0.registerWrite(at: 1_000, register: register, value: value) }
        }
        hostA.send { $0.rtp(at: 2_000, amplitude: 0x7F) }
        hostB.send { $0.rtp(at: 3_000, amplitude: 0x00) }

        try a.advance(to: 50_000)
        #expect(a.time == 50_000)
        #expect(b.time == 0)  // B's clock did not move with A's
        try b.advance(to: 20_000)

        let framesA = try hostA.frames()
        let framesB = try hostB.frames()
        #expect(framesA.map(\.sequence) == [0])  // each board numbers its own frames
        #expect(framesB.map(\.sequence) == [0])
        #expect(framesA.first?.helloReply?.keepAliveMilliseconds == 500)
        #expect(framesB.first?.helloReply?.keepAliveMilliseconds == 1_000)

        // A drove its actuator; B only wrote RTP 0 at its own stamp.
        #expect(a.peakAcceleration() > 0.5)
        #expect(b.peakAcceleration() == 0)
        #expect(b.registerWrites.filter { $0.time > 0 }.map(\.time) == [3_000, 3_000])
        #expect(a.registerWrites.contains { $0.time == 2_000 && $0.value == 0x7F })
        #expect(!b.registerWrites.contains { $0.value == 0x7F })
    }
}
