import BridgeProtocol
import DRV2605
import SimulatedBoard
import Testing

/// One session as an engine would run it: HELLO, a clock sync, the actuator's
/// settings and calibration, stamped RTP amplitudes, a stop, a ROM sequence + GO,
/// and a final stop, all stamped in board time and sent ahead of time.
struct StampedStream {
    static let helloAt: UInt64 = 1_000
    static let setupAt: UInt32 = 5_000
    static let rtpFullAt: UInt32 = 10_000
    static let rtpLowerAt: UInt32 = 60_000
    static let rtpStopAt: UInt32 = 110_000
    static let romAt: UInt32 = 200_000
    static let romEntries: [UInt8] = [1, 0x80 | 5, 47]  // Strong Click 100 %, wait 50 ms, Buzz 1 100 %
    static let finalStopAt: UInt32 = 600_000
    static let end: UInt64 = 700_000

    let board: SimulatedBoard
    var host: Host
    let setup: [(UInt8, UInt8)]
    var replies: [BoardFrame] = []

    init() async throws {
        let c10 = try profile("pmd-c10-100")
        board = SimulatedBoard(profile: c10)
        host = Host(board: board)
        setup = try await setupWrites(for: c10)
    }

    /// Everything stamped up to `finalStopAt`, sent at `helloAt` (the queue holds 32).
    mutating func sendAll() throws {
        try board.advance(to: Self.helloAt)
        host.send { $0.hello(keepAliveMilliseconds: 2_000) }
        host.send { $0.sync(token: 0xC0FFEE) }
        for (register, value) in setup {
            host.send { $0.registerWrite(at: Self.setupAt, register: register, value: value) }
        }
        host.send { $0.rtp(at: Self.rtpFullAt, amplitude: 0x7F) }
        host.send { $0.rtp(at: Self.rtpLowerAt, amplitude: 0x50) }
        host.send { $0.stop(at: Self.rtpStopAt) }
        try host.send { try $0.romSequence(at: Self.romAt, entries: Self.romEntries) }
        host.send { $0.stop(at: Self.finalStopAt) }
        replies += try host.frames()
    }

    mutating func play() throws {
        try sendAll()
        try board.advance(to: Self.end)
        host.send { $0.queueStatusRequest() }
        replies += try host.frames()
    }

    /// What the firmware must write for each stamped command (PROTOCOL.md, "Stamped
    /// commands" and "The stop"), at the command's stamp.
    var expectedWrites: [RegisterWrite] {
        func w(_ at: UInt32, _ r: RegisterAddress, _ v: UInt8) -> RegisterWrite {
            RegisterWrite(time: UInt64(at), boardTime: at, register: r.rawValue, value: v)
        }
        func stop(_ at: UInt32) -> [RegisterWrite] { [w(at, .rtpInput, 0), w(at, .go, 0), w(at, .mode, 0x40)] }
        var out = setup.map { RegisterWrite(time: UInt64(Self.setupAt), boardTime: Self.setupAt, register: $0.0, value: $0.1) }
        out += [w(Self.rtpFullAt, .mode, 0x05), w(Self.rtpFullAt, .rtpInput, 0x7F)]
        out += [w(Self.rtpLowerAt, .rtpInput, 0x50)]
        out += stop(Self.rtpStopAt)
        out += [w(Self.romAt, .mode, 0x00)]
        for (i, entry) in (Self.romEntries + [0]).enumerated() {
            out.append(RegisterWrite(time: UInt64(Self.romAt), boardTime: Self.romAt, register: RegisterAddress.waveformSequence1.rawValue + UInt8(i), value: entry))
        }
        out += [w(Self.romAt, .go, 1)]
        out += stop(Self.finalStopAt)
        return out
    }
}

@Suite("Simulated board plays a stamped command stream")
struct StampedStreamTests {
    @Test func helloAndClockSyncReportTheChipAndTheBoardTimeOfDecoding() async throws {
        var stream = try await StampedStream()
        try stream.sendAll()
        let hello = try #require(stream.replies.first?.helloReply)
        #expect(hello.protocolMajor == 1)
        #expect(hello.deviceID == DeviceVariant.drv2605L.deviceID)
        #expect(hello.boardTime == UInt32(StampedStream.helloAt))
        #expect(hello.keepAliveMilliseconds == 2_000)
        #expect(hello.queueCapacity == 96)  // queue.h's: the ATmega32U4 board's, mirrored by its twin
        let sync = try #require(stream.replies.dropFirst().first?.syncReply)
        #expect(sync.token == 0xC0FFEE)
        // Virtual time does not run while the firmware works: decode and reply share a microsecond.
        #expect(sync.receivedAt == UInt32(StampedStream.helloAt))
        #expect(sync.sentAt == sync.receivedAt)
        // Nothing stamped was refused.
        #expect(stream.replies.allSatisfy { $0.nak == nil })
    }

    @Test func everyRegisterWriteHappensExactlyAtItsCommandsStamp() async throws {
        var stream = try await StampedStream()
        try stream.play()
        let afterHello = stream.board.registerWrites.filter { $0.time >= StampedStream.helloAt }
        #expect(afterHello == stream.expectedWrites)
        let status = try #require(stream.replies.last?.queueStatus)
        #expect(status.underruns == 0)
        #expect(status.commandsExecuted == UInt32(stream.setup.count + 5))
        #expect(status.lastExecutedStamp == StampedStream.finalStopAt)
        #expect(status.lastExecutedStart == StampedStream.finalStopAt)
        // Every transaction at the chip acknowledged (the firmware's look for a bench
        // accelerometer at 0x18/0x19, at start-up and on HELLO, finds none on this board).
        #expect(stream.board.i2cLog.allSatisfy { $0.acknowledged || $0.address != 0x5A })
    }

    @Test func theSameStreamSplitAnywhereAndReplayedGivesTheSameWritesAndAcceleration() async throws {
        var whole = try await StampedStream()
        try whole.play()
        // The same frames concatenated and sent in 7-byte pieces (frames straddle sends).
        let c10 = try profile("pmd-c10-100")
        let board = SimulatedBoard(profile: c10)
        var encoder = HostFrameEncoder()
        var bytes = encoder.hello(keepAliveMilliseconds: 2_000) + encoder.sync(token: 0xC0FFEE)
        for (r, v) in whole.setup { bytes += encoder.registerWrite(at: StampedStream.setupAt, register: r, value: v) }
        bytes += encoder.rtp(at: StampedStream.rtpFullAt, amplitude: 0x7F)
        bytes += encoder.rtp(at: StampedStream.rtpLowerAt, amplitude: 0x50)
        bytes += encoder.stop(at: StampedStream.rtpStopAt)
        bytes += try encoder.romSequence(at: StampedStream.romAt, entries: StampedStream.romEntries)
        bytes += encoder.stop(at: StampedStream.finalStopAt)
        try board.advance(to: StampedStream.helloAt)
        for start in stride(from: 0, to: bytes.count, by: 7) { board.send(Array(bytes[start..<min(start + 7, bytes.count)])) }
        try board.advance(to: StampedStream.end)
        #expect(board.registerWrites == whole.board.registerWrites)
        #expect(board.acceleration() == whole.board.acceleration())
    }

    @Test func accelerationRisesWhileDrivenFollowsTheAmplitudeAndDecaysAfterStop() async throws {
        var stream = try await StampedStream()
        try stream.play()
        let b = stream.board
        func peak(_ fromMs: Double, _ toMs: Double) -> Double {
            b.peakAcceleration(from: UInt64(fromMs * 1000), to: UInt64(toMs * 1000))
        }
        // Silent before the first drive.
        #expect(peak(0, 10) == 0)
        // RTP 0x7F: the LRA builds up over a few cycles, then holds. (C10-100 at its
        // calibrated full scale: 0.74 g on the model.)
        let onset = peak(10, 12)
        let full = peak(40, 60)
        #expect(onset > 0.05)
        #expect(onset < 0.6 * full)
        #expect(full > 0.6 && full < 1.0)
        // RTP 0x50 = 80/127 of full scale; the steady level follows within 10 %.
        let lower = peak(90, 110)
        #expect(abs(lower / full - 80.0 / 127.0) < 0.1)
        // Stop at 110 ms: the ring-down falls window after window, to under 2 % in 80 ms.
        let windows = stride(from: 120.0, to: 200.0, by: 10.0).map { peak($0, $0 + 10) }
        #expect(zip(windows, windows.dropFirst()).allSatisfy { $0 > $1 })
        #expect(windows.last! < 0.02 * full)
        // ROM sequence at 200 ms: the click drives, the buzz after the wait holds, and
        // the final stop at 600 ms ends it.
        #expect(peak(200, 230) > 0.5 * full)
        #expect(peak(245, 290) < 0.05 * full)  // the 50 ms wait between the effects
        #expect(peak(400, 580) > 0.9 * full)
        #expect(peak(650, 700) < 0.01 * full)
    }
}

@Suite("Simulated board time")
struct BoardTimeTests {
    @Test func stampsAcrossThe32BitClockWrapRunOnTime() throws {
        let boot = UInt32.max - 49_999  // the clock wraps 50 ms after power-up
        let board = SimulatedBoard(configuration: .init(load: .actuator(.init(profile: try profile("pmd-c10-100"))), bootTime: boot))
        var host = Host(board: board)
        host.send { $0.hello() }
        let stamps: [UInt32] = [boot &+ 20_000, boot &+ 60_000, boot &+ 90_000]  // the last two after the wrap
        #expect(stamps[1] < stamps[0])
        host.send { $0.rtp(at: stamps[0], amplitude: 0x40) }
        host.send { $0.rtp(at: stamps[1], amplitude: 0x7F) }
        host.send { $0.stop(at: stamps[2]) }
        try board.advance(toBoardTime: boot &+ 100_000)
        #expect(board.time == 100_000)
        #expect(try host.frames().allSatisfy { $0.nak == nil })
        let writes = board.registerWrites.filter { $0.time > 0 }
        #expect(writes.map(\.time) == [20_000, 20_000, 60_000, 90_000, 90_000, 90_000])
        #expect(writes.map(\.boardTime) == [stamps[0], stamps[0], stamps[1], stamps[2], stamps[2], stamps[2]])
    }

    @Test func advancingOnlyMovesVirtualTimeAndRunsTheFirmwareOnItsDeadlines() throws {
        let board = SimulatedBoard()
        var host = Host(board: board)
        host.send { $0.hello(keepAliveMilliseconds: 100) }
        // An open session reads STATUS every 20 ms: those reads are the firmware's own
        // deadlines, met to the microsecond however the owner steps time.
        try board.advance(by: 30_000)
        try board.advance(by: 35_000)
        let reads = board.i2cLog.filter { $0.kind == .read && $0.register == 0x00 }.map(\.time)
        #expect(reads == [0, 0, 20_000, 40_000, 60_000])  // probe at start-up, probe at HELLO, then polls
        #expect(board.time == 65_000)
    }

    @Test func theI2CLogStopsAtItsCapacityAndCountsTheRest() throws {
        let board = SimulatedBoard(configuration: .init(i2cLogCapacity: 4))
        var host = Host(board: board)
        // start-up: STATUS read + 3 stop writes, then WHO_AM_I at 0x18 and 0x19 (no
        // accelerometer); HELLO: STATUS read and the same two looks
        host.send { $0.hello() }
        #expect(board.i2cLog.count == 4)
        #expect(board.unloggedI2CTransactions == 5)
        board.clearI2CLog()
        try board.advance(by: 20_000)  // one STATUS poll
        #expect(board.i2cLog.count == 1)
        #expect(board.unloggedI2CTransactions == 0)
    }
}
