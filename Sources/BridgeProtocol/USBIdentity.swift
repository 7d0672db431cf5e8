import CHapbridgeProtocol

/// The bridge board's USB identity, read from `usb_identity.h` (the one definition
/// the firmware's descriptors are built from): discovery matches VID:PID, a transport
/// claims the interface and its two bulk endpoints, an emulation answers with the
/// same descriptor bytes.
public enum USBIdentity {
    public static let vendorID = UInt16(HB_USB_VID)
    public static let productID = UInt16(HB_USB_PID)
    public static let manufacturer = HB_USB_MANUFACTURER
    public static let product = HB_USB_PRODUCT
    public static let configurationValue = UInt8(HB_USB_CONFIGURATION_VALUE)
    public static let interfaceNumber = UInt8(HB_USB_INTERFACE_NUMBER)
    public static let interfaceClass = UInt8(HB_USB_INTERFACE_CLASS)
    /// Endpoint addresses (the IN one has the direction bit 0x80 set).
    public static let bulkIn = UInt8(HB_USB_EP_BULK_IN)
    public static let bulkOut = UInt8(HB_USB_EP_BULK_OUT)
    public static let bulkPacketSize = Int(HB_USB_BULK_SIZE)
    public static let controlPacketSize = Int(HB_USB_EP0_SIZE)
    public static let manufacturerStringIndex = UInt8(HB_USB_STRING_MANUFACTURER)
    public static let productStringIndex = UInt8(HB_USB_STRING_PRODUCT)
    public static let serialStringIndex = UInt8(HB_USB_STRING_SERIAL)
    public static let languageID = UInt16(HB_USB_LANGID_EN_US)

    /// The device descriptor bytes (18).
    public static var deviceDescriptor: [UInt8] {
        withUnsafeBytes(of: hb_usb_device_descriptor) { Array($0) }
    }

    /// The full configuration descriptor: configuration, interface, two endpoints.
    public static var configurationDescriptor: [UInt8] {
        withUnsafeBytes(of: hb_usb_configuration_descriptor) { Array($0) }
    }

    /// A USB string descriptor (UTF-16LE) for `text`, as a device returns it; nil if
    /// it cannot fit the descriptor's one-byte length.
    public static func stringDescriptor(_ text: String) -> [UInt8]? {
        let units = Array(text.utf16)
        guard units.count <= 126 else { return nil }
        var bytes: [UInt8] = [UInt8(2 + 2 * units.count), 3]
        for u in units { bytes += [UInt8(truncatingIfNeeded: u), UInt8(truncatingIfNeeded: u >> 8)] }
        return bytes
    }
}
