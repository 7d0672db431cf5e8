import BridgeLink
import DeviceInterface
import HostedBoard
import USBBridge

/// A device opened at an address, with the capabilities it has: the frame transport
/// (for the engine and bench sessions), acceleration telemetry where a simulator or
/// sensor provides it (`transport.telemetry`), and where it is.
///
/// Non-copyable: it owns the transport, and `takeTransport()` hands it over whole to
/// one owner (an engine), so nothing else can touch it behind that owner's back.
public struct OpenedDevice: ~Copyable {
    /// The address it was opened at, resolved (`usb` → `usb:1-2`).
    public let address: DeviceAddress
    /// One line for reports.
    public let summary: String
    /// What a user should know about the choice (e.g. no board found, simulating).
    public let notice: String?
    /// The USB board, when it is one (discovery's view: port, serial, bcdDevice).
    public let usbBoard: USBBridgeBoard?
    public let transport: any FrameTransport
    /// How the host times the writes, where the host does (a hosted adapter: the hosted
    /// core's timer thread); nil where a board keeps its own time.
    public let hostTiming: HostedScheduling?
    /// Which of a bench accelerometer's axes the links read (`--axis`, a bench file's
    /// `accelerometer: {axis:}`): the one the actuator moves along. X by default, a
    /// sled's rails; a coin LRA moves along Z (Hardware/boards/accelerometer.md).
    public var accelerometerAxis: AccelerationAxis = .x

    init(
        address: DeviceAddress, summary: String, notice: String?, usbBoard: USBBridgeBoard?, transport: any FrameTransport,
        hostTiming: HostedScheduling? = nil
    ) {
        self.address = address
        self.summary = summary
        self.notice = notice
        self.usbBoard = usbBoard
        self.transport = transport
        self.hostTiming = hostTiming
    }

    /// The board's link, for its one owner from now on (`HapticEngine(link:)` takes it).
    public consuming func takeLink() -> sending BridgeLink {
        let at = address.description
        let axis = accelerometerAxis
        let link = BridgeLink(transport: takeTransport(), address: at)
        link.accelerometer?.axis = axis
        return link
    }

    /// A link over the transport for a bench procedure in the caller's own isolation
    /// domain (the device stays the caller's).
    public func link() -> BridgeLink {
        let link = BridgeLink(transport: transport, address: address.description)
        link.accelerometer?.axis = accelerometerAxis
        return link
    }

    /// The transport, for its one owner from now on.
    public consuming func takeTransport() -> sending any FrameTransport {
        // Sound: this non-copyable value held the only reference the library gave out
        // (the catalog keeps none) and it is consumed here, so the transport leaves
        // disconnected from everything else. The compiler cannot see through a stored
        // property of a consumed value, hence the box.
        let box = Handover(transport)
        return box.value
    }
}

private struct Handover: @unchecked Sendable {
    let value: any FrameTransport
    init(_ value: any FrameTransport) { self.value = value }
}
