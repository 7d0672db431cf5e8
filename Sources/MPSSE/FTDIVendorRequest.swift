/// FTDI's vendor requests on endpoint 0 (SIO_*, as libftdi's ftdi_i.h numbers them):
/// bmRequestType 0x40 (vendor, to the device), wIndex the chip's interface (1: the
/// FT232H's only one, A). libftdi sends them for hapbridge's own opens; a process that
/// reaches an FT232H over usbfs without libftdi (the hosted player's guardian) sends
/// these, and the emulation answers the same numbers.
public enum FTDIVendorRequest {
    public static let requestType: UInt8 = 0x40
    /// wIndex of every request: interface A.
    public static let interfaceA: UInt16 = 1
    /// SIO_RESET: wValue 0 resets the chip, 1 purges what it holds for the host (RX),
    /// 2 what it received and has not run (TX).
    public static let reset: UInt8 = 0x00
    public static let purgeToHost: UInt16 = 1
    public static let purgeFromHost: UInt16 = 2
    /// SIO_SET_BITMODE: wValue = mode << 8 | pin mask; mode 0x02 is MPSSE.
    public static let setBitMode: UInt8 = 0x0B
    public static let mpsseMode: UInt16 = 0x0200
}
