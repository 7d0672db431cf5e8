/// A failed libftdi call, typed: which call, libftdi's own return code and its own
/// words (`ftdi_get_error_string`), so a user sees what libftdi saw.
public enum FTDIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A libftdi function returned a negative code.
    case call(function: String, code: Int32, message: String)
    /// Fewer bytes came back than the commands sent ask for, within the time allowed
    /// (the chip did not answer: unplugged, or not in the mode the commands assume).
    case shortRead(expected: Int, received: Int, milliseconds: Int)
    /// `ftdi_new` could not allocate a context.
    case noContext

    public var description: String {
        switch self {
        case .call(let function, let code, let message):
            return "\(function) failed: \(message) (libftdi code \(code))"
        case .shortRead(let expected, let received, let ms):
            return "the FT232H answered \(received) of \(expected) bytes within \(ms) ms"
        case .noContext:
            return "ftdi_new failed: no memory for a libftdi context"
        }
    }

    /// What a user can do about it, where libftdi's words do not say.
    public var advice: String? {
        guard case .call(let function, let code, _) = self else { return nil }
        // ftdi_usb_open_*: -3 "device not found", -8 "inappropriate permissions".
        switch (function.hasPrefix("ftdi_usb_open"), code) {
        case (true, -3) where function == "ftdi_usb_open": return "no FT232H (0403:6014) is plugged in; `hapbridge list` shows what is"
        case (true, -3): return "no FT232H (0403:6014) with that serial is plugged in; `hapbridge list` shows what is"
        case (true, -8): return "no permission on the USB device node: install Hardware/udev/60-hapbridge.rules and re-plug"
        default: return nil
        }
    }
}
