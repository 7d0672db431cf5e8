import CLibFTDI
import CLibUSB
import Glibc

/// One FTDI device on the bus, as `ftdi_usb_find_all` and `ftdi_usb_get_strings2` see it.
public struct FTDIDeviceInfo: Sendable, Equatable {
    public var bus: UInt8
    public var address: UInt8
    public var manufacturer: String
    public var description: String
    public var serial: String
}

extension FTDIContext {
    /// Every device with `vendor`:`product`; its strings are empty where the device
    /// has none or they could not be read (a device busy in another program).
    public func devices(vendor: UInt16, product: UInt16) throws(FTDIError) -> [FTDIDeviceInfo] {
        var list: UnsafeMutablePointer<ftdi_device_list>?
        try check("ftdi_usb_find_all", ftdi_usb_find_all(raw, &list, Int32(vendor), Int32(product)))
        defer { ftdi_list_free(&list) }
        var found: [FTDIDeviceInfo] = []
        var node = list
        while let n = node {
            defer { node = n.pointee.next }
            guard let dev = n.pointee.dev else { continue }
            var manufacturer = [CChar](repeating: 0, count: 128)
            var description = [CChar](repeating: 0, count: 128)
            var serial = [CChar](repeating: 0, count: 128)
            // _strings2 leaves the device closed as it found it (ftdi_usb_get_strings
            // would close this context's own handle).
            let r = ftdi_usb_get_strings2(raw, dev, &manufacturer, 128, &description, 128, &serial, 128)
            func text(_ chars: [CChar]) -> String {
                r < 0 ? "" : String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            found.append(
                FTDIDeviceInfo(
                    bus: libusb_get_bus_number(dev), address: libusb_get_device_address(dev), manufacturer: text(manufacturer),
                    description: text(description), serial: text(serial)))
        }
        return found
    }
}
