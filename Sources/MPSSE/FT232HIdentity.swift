/// The FT232H on USB, as libftdi and `lsusb` see it: FTDI's vendor ID, the FT232H's
/// product ID, and the bcdDevice libftdi tells the chip type by (0x0900 = FT232H).
public enum FT232HIdentity {
    public static let vendorID: UInt16 = 0x0403
    public static let productID: UInt16 = 0x6014
    public static let bcdDevice: UInt16 = 0x0900
    /// Bulk IN and OUT, 512-byte packets (high speed); every IN packet starts with the
    /// two modem-status bytes.
    public static let bulkIn: UInt8 = 0x81
    public static let bulkOut: UInt8 = 0x02
    /// Its one interface, which a usbfs client claims to use the bulk endpoints.
    public static let interface: UInt8 = 0
    public static let packetSize = 512
}
