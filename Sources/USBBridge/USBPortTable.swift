/// What is on each port, kept across enumerations: the port is the key, so "the same
/// board" stays the same entry when it re-enumerates under another identity (the
/// firmware jumping to its bootloader, a replug, the bootloader starting the new
/// firmware). `update` says what changed on which port.
public struct USBPortTable: Sendable, Equatable {
    public private(set) var devices: [USBPort: USBDiscoveredDevice] = [:]

    public init(_ snapshot: [USBDiscoveredDevice] = []) {
        for d in snapshot { devices[d.port] = d }
    }

    public subscript(port: USBPort) -> USBDiscoveredDevice? { devices[port] }

    /// Ports in order.
    public var ports: [USBPort] { devices.keys.sorted() }

    /// Takes a new enumeration; returns each port whose device changed (arrived, left,
    /// or re-enumerated: another device number or identity), in port order.
    public mutating func update(_ snapshot: [USBDiscoveredDevice]) -> [USBPortChange] {
        var next: [USBPort: USBDiscoveredDevice] = [:]
        for d in snapshot { next[d.port] = d }
        let changes = Set(devices.keys).union(next.keys).sorted().compactMap { port -> USBPortChange? in
            let before = devices[port]
            let after = next[port]
            return before == after ? nil : USBPortChange(port: port, before: before, after: after)
        }
        devices = next
        return changes
    }
}

/// One port's change between two enumerations.
public struct USBPortChange: Sendable, Equatable, CustomStringConvertible {
    public var port: USBPort
    public var before: USBDiscoveredDevice?
    public var after: USBDiscoveredDevice?

    /// The device on the port is now of another kind (firmware → bootloader, …).
    public var isChangeOfKind: Bool {
        guard let before, let after else { return false }
        return before.kind != after.kind
    }

    public var description: String {
        let was = before.map { "\($0.kind) #\($0.deviceAddress)" } ?? "empty"
        let now = after.map { "\($0.kind) #\($0.deviceAddress)" } ?? "empty"
        return "usb:\(port.path): \(was) → \(now)"
    }
}
