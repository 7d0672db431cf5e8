import BridgeProtocol
import DRV2605
import SimulatedBoard
import Testing

/// Protocol 1.1 on the simulated board: the firmware core's negotiation, identity,
/// untimed I2C and REPLACE_FROM, through the same C sources the AVR build uses.
@Suite("Simulated board speaks protocol 1.1")
struct Protocol11Tests {
    func board(serial: String = "SIM-42", bootloader: BootloaderKind = .caterina) throws -> Host {
        let c10 = try profile("pmd-c10-100")
        var configuration = SimulatedBoard.Configuration(profile: c10)
        configuration.serialNumber = try BoardSerialNumber(serial)
        configuration.bootloader = bootloader
        return Host(board: SimulatedBoard(configuration: configuration))
    }

    @Test("a 1.1 HELLO gets the configured serial and bootloader kind; a 1.0 HELLO the 18-byte reply")
    func helloNegotiatesTheMinor() throws {
        var host = try board()
        host.send { $0.hello(keepAliveMilliseconds: 500) }
        let reply = try #require(try host.frames().first?.helloReply)
        #expect(reply.protocolMinor == 1)
        #expect(reply.serialNumber?.text == "SIM-42")
        #expect(reply.bootloader == .caterina)
        host.send { $0.hello(keepAliveMilliseconds: 500, protocolMinor: 0) }
        let old = try #require(try host.frames().first)
        #expect(old.payload.count == 18)
        #expect(old.helloReply?.protocolMinor == 0)
    }

    @Test("I2C_READ reads the chip's registers without a session; I2C_WRITE needs one")
    func untimedI2C() throws {
        var host = try board()
        try host.board.advance(to: 1_000)
        let readSequence = host.encoder.nextSequence
        try host.send { try $0.i2cRead(address: 0x5A, register: 0x00, count: 1) }
        let read = try #require(try host.frames().first?.i2cResult)
        #expect(read.requestSequence == readSequence && read.acknowledged)
        #expect(read.data.first.map { $0 >> 5 } == 7)  // STATUS.DEVICE_ID of a DRV2605L
        try host.send { try $0.i2cWrite(address: 0x5A, register: RegisterAddress.ratedVoltage.rawValue, data: [0x3E]) }
        #expect(try host.frames().first?.nak?.reason == .notOpen)
        host.send { $0.hello(keepAliveMilliseconds: 500) }
        try host.send { try $0.i2cWrite(address: 0x5A, register: RegisterAddress.ratedVoltage.rawValue, data: [0x3E]) }
        #expect(try host.frames().last?.i2cResult?.acknowledged == true)
        let last = try #require(host.board.registerWrites.last)
        #expect(last.register == RegisterAddress.ratedVoltage.rawValue && last.value == 0x3E)
    }

    @Test("REPLACE_FROM discards what was queued from its stamp on, and the replacements play on their stamps")
    func replaceFrom() throws {
        var host = try board()
        host.send { $0.hello(keepAliveMilliseconds: 1_000) }
        for i in 1...6 { host.send { $0.rtp(at: UInt32(i) * 1_000, amplitude: UInt8(i)) } }
        host.send { $0.replaceFrom(at: 4_000) }
        let replaced = try #require(try host.frames().last?.replaced)
        #expect(replaced.discardedCommands == 3)
        host.send { $0.rtp(at: 4_000, amplitude: 0x44) }
        host.send { $0.rtp(at: 5_000, amplitude: 0x00) }
        try host.board.advance(to: 8_000)
        // After power-up, whose stop writes RTP_INPUT = 0 at time 0.
        let amplitudes = host.board.registerWrites.filter { $0.register == RegisterAddress.rtpInput.rawValue && $0.time > 0 }
        #expect(amplitudes.map(\.value) == [1, 2, 3, 0x44, 0x00])
        #expect(amplitudes.map(\.boardTime) == [1_000, 2_000, 3_000, 4_000, 5_000])
    }

    @Test("a drive started by raw I2C writes is stopped at the drive limit")
    func rawDriveIsLimited() throws {
        var host = try board()
        host.send { $0.hello(keepAliveMilliseconds: 60_000, maxDriveMilliseconds: 20) }
        // MODE = RTP, RTP_INPUT = 0x60 in one auto-increment write.
        try host.send { try $0.i2cWrite(address: 0x5A, register: RegisterAddress.mode.rawValue, data: [0x05, 0x60]) }
        try host.board.advance(to: 30_000)
        let stopped = try #require(try host.frames().compactMap(\.stopped).first)
        #expect(stopped.reason == .maxDrive)
        #expect(host.board.chip.peek(.rtpInput) == 0)
    }
}
