import CLibUSB

/// A libusb error code, typed (swift-system's `Errno` is the model): the raw value is
/// libusb's own negative code, the description its own words and name, and `advice`
/// says what a user can do about it.
public struct LibUSBError: Error, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    init(_ code: libusb_error) { rawValue = code.rawValue }

    public static let io = LibUSBError(LIBUSB_ERROR_IO)
    public static let invalidParameter = LibUSBError(LIBUSB_ERROR_INVALID_PARAM)
    public static let access = LibUSBError(LIBUSB_ERROR_ACCESS)
    public static let noDevice = LibUSBError(LIBUSB_ERROR_NO_DEVICE)
    public static let notFound = LibUSBError(LIBUSB_ERROR_NOT_FOUND)
    public static let busy = LibUSBError(LIBUSB_ERROR_BUSY)
    public static let timeout = LibUSBError(LIBUSB_ERROR_TIMEOUT)
    public static let overflow = LibUSBError(LIBUSB_ERROR_OVERFLOW)
    public static let pipe = LibUSBError(LIBUSB_ERROR_PIPE)
    public static let interrupted = LibUSBError(LIBUSB_ERROR_INTERRUPTED)
    public static let noMemory = LibUSBError(LIBUSB_ERROR_NO_MEM)
    public static let notSupported = LibUSBError(LIBUSB_ERROR_NOT_SUPPORTED)
    public static let other = LibUSBError(LIBUSB_ERROR_OTHER)

    /// libusb's symbolic name, e.g. "LIBUSB_ERROR_ACCESS".
    public var name: String { String(cString: libusb_error_name(rawValue)) }

    public var description: String { "\(String(cString: libusb_strerror(rawValue))) (\(name))" }

    /// What a user should do, where libusb's words do not say it.
    public var advice: String? {
        switch self {
        case .access:
            "install Hardware/udev/60-hapbridge.rules (see Hardware/udev/README.md) and re-plug the board"
        case .busy: "another program has the board open; close it (or pick another board with --device)"
        case .noDevice: "the board was unplugged or reset"
        case .notSupported: "this system's USB stack does not support the operation"
        default: nil
        }
    }

    /// Turns a libusb return value into a result: negative values are errors.
    @discardableResult
    static func check(_ result: Int32) throws(LibUSBError) -> Int32 {
        guard result >= 0 else { throw LibUSBError(rawValue: result) }
        return result
    }
}
