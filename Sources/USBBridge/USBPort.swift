import DeviceInterface

/// A physical USB socket: the bus and the chain of hub ports down to it. It is the
/// key of a device across a change of identity: a bridge board that jumps to its
/// bootloader leaves and comes back under another VID:PID and device number, on the
/// same port.
public struct USBPort: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var bus: UInt8
    /// Port numbers from the root hub down ("1-2.3" is bus 1, ports [2, 3]).
    public var ports: [UInt8]

    public init(bus: UInt8, ports: [UInt8]) {
        self.bus = bus
        self.ports = ports
    }

    /// "1-2.3": as `lsusb -t` and `usb:BUS-PORT` name it.
    public var path: String { DeviceAddress.portPath(bus: bus, ports: ports) }
    public var description: String { path }

    /// The address that selects whatever is on this port (`usb:1-2`).
    public var address: DeviceAddress { .usb(.port(bus: bus, ports: ports)) }

    /// Bus, then ports in order (1-2 before 1-2.1 before 1-10).
    public static func < (a: USBPort, b: USBPort) -> Bool {
        a.bus != b.bus ? a.bus < b.bus : a.ports.lexicographicallyPrecedes(b.ports)
    }
}
