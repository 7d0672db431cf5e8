import Hex
import SimavrBridgeDevice

/// A USB device as the bus sees it, below the host controller: what an emulated
/// device implements so the usbdevfs handler (`USBDevFSHandler`) can put it behind
/// real libusb. The handler plays the host controller and the kernel: it turns URBs
/// into transfers on this model, assembles IN packets into URBs, and answers the
/// client.
///
/// Every call may come from any thread and returns at once; answers come back through
/// the completions (exactly once each) and the `USBHostPort`, from any thread — a
/// device runs on its own clock (a board thread, a simulator child process), like
/// hardware.
public protocol USBDeviceModel: AnyObject, Sendable {
    /// Where the device delivers IN packets; set once, before the first transfer.
    func connect(to host: any USBHostPort)
    /// A bus reset (the host resets the port before addressing the device, and on
    /// USBDEVFS_RESET): the device forgets its address and configuration.
    func busReset(completion: @escaping @Sendable () -> Void)
    /// A control transfer on endpoint 0: the setup packet and, for host-to-device
    /// requests, the data stage. The answer is the IN data stage (empty when there is
    /// none) or a STALL (a request the device does not support).
    func control(_ setup: USBSetupPacket, data: [UInt8], completion: @escaping @Sendable (USBPipeResult) -> Void)
    /// A bulk OUT transfer: the device takes the bytes packet by packet (NAKing while
    /// its buffer is full) and the transfer completes once it took them all.
    func bulkOut(endpoint: UInt8, data: [UInt8], completion: @escaping @Sendable (USBPipeResult) -> Void)
    /// Whether the host polls an IN endpoint: it does while it has a transfer queued
    /// there. A device that has data hands it over as packets while polled; unpolled,
    /// it keeps the data (on the wire, a device that is not asked sends nothing).
    /// It must return without calling back into the host port: the host calls it with
    /// its own lock held, so that "on" and "off" arrive in the order its queue changed.
    func setPolling(endpoint: UInt8, active: Bool)
    /// The device lost its bus (unplugged): it stops, and every transfer still in
    /// progress completes with `.gone`.
    func powerOff()
}

/// The host side of a device's IN endpoints (the emulated host controller).
public protocol USBHostPort: AnyObject, Sendable {
    /// One packet from a polled IN endpoint (a short one ends a transfer), or a STALL.
    func received(_ event: USBInEvent, endpoint: UInt8)
}

public enum USBInEvent: Sendable, Equatable {
    case packet([UInt8])
    case stall
}

/// How a transfer ended, as the device answered it.
public enum USBPipeResult: Sendable, Equatable {
    /// Done: the IN data (empty for OUT transfers and no-data control requests).
    case done([UInt8])
    /// The device STALLed the request or the endpoint is halted (EPIPE).
    case stall
    /// The device is gone (ESHUTDOWN).
    case gone
}

/// The 8 bytes that start every control transfer (USB 2.0, 9.3).
public struct USBSetupPacket: Sendable, Equatable, CustomStringConvertible {
    public var requestType: UInt8
    public var request: UInt8
    public var value: UInt16
    public var index: UInt16
    public var length: UInt16

    public init(requestType: UInt8, request: UInt8, value: UInt16 = 0, index: UInt16 = 0, length: UInt16 = 0) {
        self.requestType = requestType
        self.request = request
        self.value = value
        self.index = index
        self.length = length
    }

    /// The packet as it is on the wire (little-endian fields); nil unless 8 bytes.
    public init?(bytes: some Collection<UInt8>) {
        let b = Array(bytes)
        guard b.count == 8 else { return nil }
        self.init(
            requestType: b[0], request: b[1], value: UInt16(b[2]) | UInt16(b[3]) << 8,
            index: UInt16(b[4]) | UInt16(b[5]) << 8, length: UInt16(b[6]) | UInt16(b[7]) << 8)
    }

    public var bytes: [UInt8] {
        [
            requestType, request, UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: index), UInt8(truncatingIfNeeded: index >> 8),
            UInt8(truncatingIfNeeded: length), UInt8(truncatingIfNeeded: length >> 8),
        ]
    }

    /// Direction bit of bmRequestType: an IN (device-to-host) data stage.
    public var isDeviceToHost: Bool { requestType & 0x80 != 0 }
    /// Type bits of bmRequestType: 0 standard, 1 class, 2 vendor.
    public var kind: UInt8 { (requestType >> 5) & 0x03 }
    /// Recipient bits of bmRequestType: 0 device, 1 interface, 2 endpoint.
    public var recipient: UInt8 { requestType & 0x1F }

    public var description: String { Hex.bytes(bytes, case: .lower) }
}
