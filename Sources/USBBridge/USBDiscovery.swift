import Dispatch
import LibUSB
import Synchronization

/// Finds every device of a known identity (`USBKnownIdentity`) by its port, in one
/// enumeration, and follows a port across a change of identity.
///
/// Linear in the number of devices: the system's list is taken once, and each known
/// device is opened at most once, only to read its serial-number string (descriptors
/// come from the kernel's cache), and closed at once. A record keeps the listed
/// device, so opening it later (`USBBridgeTransport`) does not enumerate again; a
/// caller that opens every board anyway (`list`) defers the serial to that open
/// (`deferringSerialsOf`), which reads it: one open per board, one open at a time.
/// (Open handles are not free: every one is in libusb's event loop, and under the
/// emulation each costs ioctls on every pass of it.)
public enum USBDiscovery {
    /// Every known device plugged in now, of the `kinds` asked for, in port order.
    /// Devices of the kinds in `deferringSerialsOf` are not opened (serial nil).
    public static func devices(
        in context: USBContext, kinds: Set<USBDeviceKind> = Set(USBDeviceKind.allCases), deferringSerialsOf deferred: Set<USBDeviceKind> = []
    ) throws(LibUSBError) -> [USBDiscoveredDevice] {
        describe(try context.devices(), kinds: kinds, deferred: deferred)
    }

    /// What is on one port now: nothing, or the device there (one at a time, but a
    /// list, since the system's list can briefly hold a leaving device beside its successor).
    public static func devices(onPort port: USBPort, in context: USBContext) throws(LibUSBError) -> [USBDiscoveredDevice] {
        describe(try context.devices().filter { $0.busNumber == port.bus && $0.portNumbers == port.ports },
                 kinds: Set(USBDeviceKind.allCases), deferred: [])
    }

    static func describe(_ listed: [USBDevice], kinds: Set<USBDeviceKind>, deferred: Set<USBDeviceKind>) -> [USBDiscoveredDevice] {
        var found: [USBDiscoveredDevice] = []
        for device in listed {
            guard let d = try? device.descriptor(), let identity = USBKnownIdentity.lookup(vendorID: d.vendorID, productID: d.productID),
                kinds.contains(identity.kind)
            else { continue }
            var record = USBDiscoveredDevice(
                port: USBPort(bus: device.busNumber, ports: device.portNumbers), deviceAddress: device.address, identity: identity,
                bcdDevice: d.bcdDevice, serialNumber: nil, openError: nil)
            // A device without a serial string is not opened at all (bootloaders often have none).
            if d.serialNumberIndex != 0, !deferred.contains(identity.kind) {
                do {
                    let handle = try device.open()  // closed when it goes, at the end of this pass
                    record.serialNumber = try? handle.string(at: d.serialNumberIndex)
                } catch {
                    record.openError = error
                }
            }
            record.listing = USBListing(device: device)
            found.append(record)
        }
        return found.sorted { $0.port < $1.port }
    }

    /// Waits until a device of one of `kinds` is on `port` and is not the one that was
    /// there (`replacing`: its device number, e.g. the bridge firmware's before it
    /// jumped to its bootloader; nil takes whatever of those kinds is there, even now).
    ///
    /// Woken by libusb's hotplug for any VID:PID on the port (looked at again every
    /// 100 ms where there is no hotplug, and every second anyway), so it returns about
    /// when the new identity's "add" arrives. `flash` follows a board this way.
    /// `giveUp`: looked at every `every` (instead of the hotplug wait's 1 s slices) and
    /// the wait ends with `.gaveUp` when it says so (a flash asked to stop).
    public static func waitForDevice(
        onPort port: USBPort, kinds: Set<USBDeviceKind>, replacing previous: UInt8? = nil, timeout: Duration,
        in context: USBContext, giveUp: (every: Duration, when: @Sendable () -> Bool)? = nil
    ) async throws(USBDiscoveryError) -> USBDiscoveredDevice {
        let arrivals = ArrivalSignal()
        let registration = try? context.onHotplug(vendorID: nil, productID: nil) { event, device in
            if event == .arrived, device.busNumber == port.bus, device.portNumbers == port.ports { arrivals.signal() }
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var seen: [USBDiscoveredDevice] = []
        while true {
            do { seen = try devices(onPort: port, in: context) } catch { throw .usb(error) }
            if let next = seen.first(where: { isSuccessor($0, kinds: kinds, replacing: previous) }) { return next }
            let left = clock.now.duration(to: deadline)
            guard left > .zero else { throw .timeout(port: port, kinds: kinds, lastSeen: seen, waited: timeout) }
            if let giveUp, giveUp.when() { throw .gaveUp(port: port) }
            await arrivals.wait(upTo: min(left, registration == nil ? .milliseconds(100) : .seconds(1), giveUp?.every ?? .seconds(1)))
        }
    }

    /// The rule `waitForDevice` follows a port by: a device of a wanted kind that is
    /// not the one it replaces (same port, another enumeration).
    public static func isSuccessor(_ device: USBDiscoveredDevice, kinds: Set<USBDeviceKind>, replacing previous: UInt8?) -> Bool {
        kinds.contains(device.kind) && device.deviceAddress != previous
    }
}

/// Why a port could not be followed.
public enum USBDiscoveryError: Error, Sendable, Equatable, CustomStringConvertible {
    case usb(LibUSBError)
    case timeout(port: USBPort, kinds: Set<USBDeviceKind>, lastSeen: [USBDiscoveredDevice], waited: Duration)
    /// The caller's `giveUp` said to stop waiting.
    case gaveUp(port: USBPort)

    public var description: String {
        switch self {
        case .usb(let e): "USB enumeration failed: \(e)"
        case .timeout(let port, let kinds, let seen, let waited):
            "nothing of kind \(kinds.map(\.rawValue).sorted().joined(separator: " or ")) appeared on usb:\(port.path) within \(waited)"
                + (seen.isEmpty ? " (the port is empty)" : "; there now: " + seen.map(\.description).joined(separator: ", "))
        case .gaveUp(let port): "the wait for usb:\(port.path) was given up"
        }
    }
}

/// Hotplug arrivals, signalled on libusb's event thread and awaited without blocking
/// Swift's cooperative pool (the wait runs on a dispatch thread).
final class ArrivalSignal: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    func signal() { semaphore.signal() }

    func wait(upTo duration: Duration) async {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
        let semaphore = semaphore
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                _ = semaphore.wait(timeout: .now() + .nanoseconds(max(0, nanoseconds)))
                done.resume()
            }
        }
    }
}
