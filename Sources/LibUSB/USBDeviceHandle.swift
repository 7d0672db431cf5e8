import CLibUSB
import Dispatch

/// An opened device: interfaces to claim, descriptors to read, transfers to make.
/// Closed when the last reference goes (after every claimed interface is released).
public final class USBDeviceHandle: @unchecked Sendable {
    // @unchecked: libusb device handles may be used from any thread; the claimed set
    // is only touched by the owner's calls.
    let raw: OpaquePointer
    public let device: USBDevice
    private var claimed: Set<Int32> = []

    init(raw: OpaquePointer, device: USBDevice) {
        self.raw = raw
        self.device = device
    }

    deinit {
        nonisolated(unsafe) let raw = raw
        let claimed = claimed
        let close: @Sendable () -> Void = {
            for interface in claimed { libusb_release_interface(raw, interface) }
            libusb_close(raw)
        }
        // The last reference can go on the event thread: a transfer's completion releases
        // the transfer, and it held the handle (a transport closed while its write was in
        // flight). libusb_close there waits for the event lock that thread holds: a hang
        // (seen in `list` on a loaded machine). Close on another thread then, keeping the
        // device, and so the context, alive until it has.
        if device.context.isEventThread {
            let device = device
            DispatchQueue.global().async {
                close()
                withExtendedLifetime(device) {}
            }
        } else {
            close()
        }
    }

    public func claimInterface(_ number: UInt8) throws(LibUSBError) {
        try LibUSBError.check(libusb_claim_interface(raw, Int32(number)))
        claimed.insert(Int32(number))
    }

    public func releaseInterface(_ number: UInt8) throws(LibUSBError) {
        claimed.remove(Int32(number))
        try LibUSBError.check(libusb_release_interface(raw, Int32(number)))
    }

    public func clearHalt(endpoint: UInt8) throws(LibUSBError) {
        try LibUSBError.check(libusb_clear_halt(raw, endpoint))
    }

    /// A string descriptor in ASCII (libusb replaces anything else with '?').
    public func string(at index: UInt8) throws(LibUSBError) -> String {
        guard index != 0 else { return "" }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = try LibUSBError.check(libusb_get_string_descriptor_ascii(raw, index, &buffer, Int32(buffer.count)))
        return String(decoding: buffer.prefix(Int(n)), as: UTF8.self)
    }

    /// A control transfer, synchronous (for set-up and inspection, not for streaming):
    /// IN when bit 7 of `requestType` is set, `data` then gives how many bytes to read.
    public func control(
        requestType: UInt8, request: UInt8, value: UInt16, index: UInt16, data: [UInt8] = [], readLength: Int = 0,
        timeoutMilliseconds: UInt32 = 1000
    ) throws(LibUSBError) -> [UInt8] {
        let isIn = requestType & 0x80 != 0
        var buffer = isIn ? [UInt8](repeating: 0, count: readLength) : data
        guard buffer.count <= Int(UInt16.max) else { throw .invalidParameter }
        let n = try LibUSBError.check(
            libusb_control_transfer(raw, requestType, request, value, index, &buffer, UInt16(buffer.count), timeoutMilliseconds))
        return isIn ? Array(buffer.prefix(Int(n))) : []
    }
}
