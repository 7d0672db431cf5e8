import CLibUSB

/// A device libusb lists (not yet opened): where it is and what its descriptor says.
public final class USBDevice: @unchecked Sendable {
    // @unchecked: a libusb_device is reference counted and immutable once listed.
    let raw: OpaquePointer
    let context: USBContext

    init(retaining raw: OpaquePointer, context: USBContext) {
        self.raw = libusb_ref_device(raw)
        self.context = context
    }

    deinit { libusb_unref_device(raw) }

    public var busNumber: UInt8 { libusb_get_bus_number(raw) }
    /// The device number on its bus (changes on every re-plug).
    public var address: UInt8 { libusb_get_device_address(raw) }

    /// Port numbers from the root hub down ("1-2.3" is bus 1, ports [2, 3]).
    public var portNumbers: [UInt8] {
        var ports = [UInt8](repeating: 0, count: 7)
        let n = libusb_get_port_numbers(raw, &ports, Int32(ports.count))
        return n > 0 ? Array(ports.prefix(Int(n))) : []
    }

    /// The standard device descriptor, read from the kernel's cache (no I/O).
    public func descriptor() throws(LibUSBError) -> DeviceDescriptor {
        var d = libusb_device_descriptor()
        try LibUSBError.check(libusb_get_device_descriptor(raw, &d))
        return DeviceDescriptor(
            vendorID: d.idVendor, productID: d.idProduct, bcdDevice: d.bcdDevice, deviceClass: d.bDeviceClass,
            manufacturerIndex: d.iManufacturer, productIndex: d.iProduct, serialNumberIndex: d.iSerialNumber,
            configurationCount: d.bNumConfigurations, maxPacketSize0: d.bMaxPacketSize0)
    }

    /// Opens the device (needs permission on its /dev/bus/usb node).
    public func open() throws(LibUSBError) -> USBDeviceHandle {
        var handle: OpaquePointer?
        try LibUSBError.check(libusb_open(raw, &handle))
        guard let handle else { throw .other }
        return USBDeviceHandle(raw: handle, device: self)
    }
}

/// The fields of a device descriptor a host needs to pick and name a device.
public struct DeviceDescriptor: Sendable, Equatable {
    public var vendorID: UInt16
    public var productID: UInt16
    public var bcdDevice: UInt16
    public var deviceClass: UInt8
    public var manufacturerIndex: UInt8
    public var productIndex: UInt8
    public var serialNumberIndex: UInt8
    public var configurationCount: UInt8
    /// bMaxPacketSize0: endpoint 0's packet size.
    public var maxPacketSize0: UInt8
}
