import Hex
import HostedBoard
import CFTDIBridge

import FirmwareCore
import MPSSE
#if canImport(Glibc)
import Glibc
#endif

/// The FT232H's guardian reaching the adapter itself, over usbfs with no libftdi: it takes
/// the interface from whichever process holds it and puts the DRV2605 in standby with EN
/// low.
///
/// Why not libftdi: a player that is stopped (SIGSTOP, a debugger) or hung still holds the
/// FT232H's interface, and usbfs refuses a second file's claim (EBUSY), as libftdi's open
/// would find. `USBDEVFS_DISCONNECT_CLAIM` with no flags is the call that takes it anyway:
/// the kernel releases the interface from the driver bound to it — usbfs itself, on the
/// other process's behalf — killing that file's URBs on it, then claims it for this file
/// (drivers/usb/core/devio.c, `proc_disconnect_claim`). libusb never makes it for a
/// claim (it passes EXCEPT_DRIVER "usbfs" so as not to steal), hence this file's own
/// ioctls. The taken interface stays this file's until it is closed: the player, if it is
/// ever continued, finds its transfers refused (EBUSY) and cannot drive again.
///
/// The node is opened when the guardian starts (`init`): a guardian that could not open it
/// could not act, and says so before the player drives. The same path serves a player
/// that died: its claim is gone then, and the take is a plain claim.
public final class FT232HTakeover {
    public let path: String
    private let fd: Int32
    /// The interface is this file's (taken).
    public private(set) var holdsInterface = false

    /// How long one bulk transfer may take, and the whole answer (ms).
    static let transferTimeoutMilliseconds: UInt32 = 200
    static let answerTimeoutMilliseconds = 1_000

    public init(path: String) throws(FT232HTakeoverError) {
        self.path = path
        fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw .open(path: path, errno: errno) }
    }

    deinit { close(fd) }  // the kernel releases the interface with the file

    /// Takes the interface (from whoever has it) and stops the chip: MPSSE mode set again
    /// (its command parser restarted, whatever the last holder left half sent), both
    /// buffers purged, the command stream checked in step (the bad-command probe), the I2C
    /// set-up at `sclHz`, then RTP_INPUT 0, MODE STANDBY and EN low in one transfer, its
    /// ACK bits checked. Throws at the first step that failed; a failure after the take
    /// leaves the interface held (the player still cannot drive).
    public func stopChip(sclHz: Double) throws(FT232HTakeoverError) {
        if !holdsInterface {
            guard hb_usbfs_take_interface(fd, UInt32(FT232HIdentity.interface)) >= 0 else { throw .take(errno: errno) }
            holdsInterface = true
        }
        try vendor(FTDIVendorRequest.setBitMode, value: FTDIVendorRequest.mpsseMode, "SET_BITMODE MPSSE")
        try vendor(FTDIVendorRequest.reset, value: FTDIVendorRequest.purgeToHost, "purge")
        try vendor(FTDIVendorRequest.reset, value: FTDIVendorRequest.purgeFromHost, "purge")
        try write([MPSSEOpcode.bogus, MPSSEOpcode.sendImmediate])
        let echo = try read(count: 2)
        guard echo == [MPSSEOpcode.badCommandEcho, MPSSEOpcode.bogus] else { throw .outOfStep(answer: echo) }

        // EN stays high through the writes (a chip in shutdown takes none), low at the end.
        var program = MPSSEI2CProgram(enable: true, sclHz: sclHz)
        let chip = UInt8(DRV2605_I2C_ADDR)
        program.write(address: chip, register: UInt8(DRV2605_REG_RTP_INPUT), bytes: [0])
        program.write(address: chip, register: UInt8(DRV2605_REG_MODE), bytes: [UInt8(DRV2605_MODE_STANDBY)])
        program.enable = false
        program.idle()
        var stream = program
        stream.syncTrailer()
        try write(FT232HMPSSE.setupCommands(sclHz: sclHz, enable: true) + stream.commands)
        let answer = try read(count: stream.answerCount + 2)
        guard answer.suffix(2) == [MPSSEOpcode.badCommandEcho, MPSSEOpcode.bogus2] else { throw .outOfStep(answer: answer) }
        do { _ = try program.interpret(Array(answer.prefix(program.answerCount))) } catch { throw .notAcknowledged(error.description) }
    }

    private func vendor(_ request: UInt8, value: UInt16, _ name: String) throws(FT232HTakeoverError) {
        let r = hb_usbfs_control(
            fd, FTDIVendorRequest.requestType, request, value, FTDIVendorRequest.interfaceA, nil, 0, Self.transferTimeoutMilliseconds)
        guard r >= 0 else { throw .transfer("\(name): \(String(cString: strerror(errno)))") }
    }

    private func write(_ bytes: [UInt8]) throws(FT232HTakeoverError) {
        var data = bytes
        let r = data.withUnsafeMutableBytes { b in
            hb_usbfs_bulk(fd, UInt32(FT232HIdentity.bulkOut), b.baseAddress, UInt32(b.count), Self.transferTimeoutMilliseconds)
        }
        guard r >= 0 else { throw .transfer("bulk OUT: \(String(cString: strerror(errno)))") }
        guard Int(r) == bytes.count else { throw .transfer("bulk OUT: \(r) of \(bytes.count) bytes taken") }
    }

    /// `count` bytes of answer: IN packets read until they are there, each packet's two
    /// modem-status bytes dropped (the FT232H sends a status-only packet each latency
    /// period when it has nothing).
    private func read(count: Int) throws(FT232HTakeoverError) -> [UInt8] {
        var got: [UInt8] = []
        let deadline = HostedClock.nanoseconds() + UInt64(Self.answerTimeoutMilliseconds) * 1_000_000
        var packet = [UInt8](repeating: 0, count: FT232HIdentity.packetSize)
        while got.count < count {
            let r = packet.withUnsafeMutableBytes { b in
                hb_usbfs_bulk(fd, UInt32(FT232HIdentity.bulkIn), b.baseAddress, UInt32(b.count), Self.transferTimeoutMilliseconds)
            }
            if r < 0 && errno != ETIMEDOUT { throw .transfer("bulk IN: \(String(cString: strerror(errno)))") }
            if r > 2 { got += packet[2..<Int(r)] }
            if got.count < count && HostedClock.nanoseconds() > deadline { throw .outOfStep(answer: got) }
        }
        return got
    }
}

public enum FT232HTakeoverError: Error, Sendable, CustomStringConvertible {
    case open(path: String, errno: Int32)
    case take(errno: Int32)
    case transfer(String)
    case outOfStep(answer: [UInt8])
    case notAcknowledged(String)

    public var description: String {
        switch self {
        case .open(let path, let e): "cannot open \(path): \(String(cString: strerror(e)))"
        case .take(let e): "cannot take the FT232H's interface (USBDEVFS_DISCONNECT_CLAIM): \(String(cString: strerror(e)))"
        case .transfer(let what): what
        case .outOfStep(let answer):
            "the FT232H's answer is out of step: \(Hex.bytes(answer.prefix(16), separator: " "))"
        case .notAcknowledged(let what): "the DRV2605 did not acknowledge: \(what)"
        }
    }
}
