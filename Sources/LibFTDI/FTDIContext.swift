import CLibFTDI
import CLibUSB
import Glibc

/// One libftdi context (`struct ftdi_context`) and the device it opened: a thin typed
/// wrapper, each method one libftdi call, every failure an `FTDIError` with libftdi's
/// own message. Knows nothing of I2C or hapbridge.
///
/// Not `Sendable`: libftdi's context is not thread-safe; one owner (an actor) uses it.
public final class FTDIContext {
    let raw: UnsafeMutablePointer<ftdi_context>

    /// The MPSSE and reset modes of `ftdi_set_bitmode` (libftdi's `enum ftdi_mpsse_mode`).
    public enum BitMode: UInt8, Sendable {
        case reset = 0x00
        case mpsse = 0x02
    }

    public init() throws(FTDIError) {
        guard let c = ftdi_new() else { throw .noContext }
        raw = c
    }

    deinit {
        // ftdi_free closes the USB handle if one is open (ftdi_deinit).
        ftdi_free(raw)
    }

    /// libftdi's message for the last failure on this context.
    public var lastErrorString: String {
        guard let s = ftdi_get_error_string(raw) else { return "(no message)" }
        return String(cString: s)
    }

    @discardableResult
    func check(_ function: String, _ result: Int32) throws(FTDIError) -> Int32 {
        guard result >= 0 else { throw .call(function: function, code: result, message: lastErrorString) }
        return result
    }

    /// Opens the first device with `vendor`:`product` (and `serial`, when given).
    public func open(vendor: UInt16, product: UInt16, serial: String? = nil) throws(FTDIError) {
        let r: Int32
        if let serial {
            r = serial.withCString { ftdi_usb_open_desc(raw, Int32(vendor), Int32(product), nil, $0) }
        } else {
            r = ftdi_usb_open(raw, Int32(vendor), Int32(product))
        }
        try check(serial == nil ? "ftdi_usb_open" : "ftdi_usb_open_desc", r)
    }

    public func close() throws(FTDIError) { try check("ftdi_usb_close", ftdi_usb_close(raw)) }

    /// The usbfs node of the device this context opened (`/dev/bus/usb/BBB/DDD`, its bus
    /// number and address as libusb sees them); nil when none is open.
    public var usbDevicePath: String? {
        guard let handle = raw.pointee.usb_dev, let device = libusb_get_device(handle) else { return nil }
        let bus = Int(libusb_get_bus_number(device)), address = Int(libusb_get_device_address(device))
        func three(_ n: Int) -> String { String(repeating: "0", count: max(0, 3 - String(n).count)) + String(n) }
        return "/dev/bus/usb/\(three(bus))/\(three(address))"
    }

    /// The chip's reset request (SIO_RESET 0): its buffers and mode back to defaults.
    public func reset() throws(FTDIError) { try check("ftdi_usb_reset", ftdi_usb_reset(raw)) }

    /// Empties both of the chip's buffers (what it has not sent, what it has not taken).
    public func purge() throws(FTDIError) { try check("ftdi_tcioflush", ftdi_tcioflush(raw)) }

    /// How long (ms, 1...255) the chip holds a partly filled IN packet before sending it.
    public func setLatencyTimer(milliseconds: UInt8) throws(FTDIError) {
        try check("ftdi_set_latency_timer", ftdi_set_latency_timer(raw, milliseconds))
    }

    public func latencyTimer() throws(FTDIError) -> UInt8 {
        var value: UInt8 = 0
        try check("ftdi_get_latency_timer", ftdi_get_latency_timer(raw, &value))
        return value
    }

    public func setBitMode(_ mode: BitMode, outputMask: UInt8 = 0) throws(FTDIError) {
        try check("ftdi_set_bitmode", ftdi_set_bitmode(raw, outputMask, mode.rawValue))
    }

    /// The largest USB transfers libftdi makes for `write` and `read`.
    public func setChunkSizes(write: UInt32, read: UInt32) throws(FTDIError) {
        try check("ftdi_write_data_set_chunksize", ftdi_write_data_set_chunksize(raw, write))
        try check("ftdi_read_data_set_chunksize", ftdi_read_data_set_chunksize(raw, read))
    }

    /// libftdi's USB timeouts (ms) for one bulk transfer.
    public func setTimeouts(readMilliseconds: Int32, writeMilliseconds: Int32) {
        raw.pointee.usb_read_timeout = readMilliseconds
        raw.pointee.usb_write_timeout = writeMilliseconds
    }

    /// Sends all of `bytes` (libftdi splits them into chunks of the write chunk size).
    public func write(_ bytes: [UInt8]) throws(FTDIError) {
        guard !bytes.isEmpty else { return }
        guard let count = Int32(exactly: bytes.count) else {
            throw .call(function: "ftdi_write_data", code: -1, message: "\(bytes.count) bytes is more than one call can write")
        }
        let r = bytes.withUnsafeBufferPointer { b in ftdi_write_data(raw, b.baseAddress, count) }
        let n = try check("ftdi_write_data", r)
        guard Int(n) == bytes.count else {
            throw .call(function: "ftdi_write_data", code: n, message: "wrote \(n) of \(bytes.count) bytes")
        }
    }

    /// What the chip has sent, at most `maximum` bytes, the modem-status bytes that
    /// start each USB packet removed (by libftdi); empty when nothing came within
    /// the latency timer.
    public func read(maximum: Int) throws(FTDIError) -> [UInt8] {
        guard maximum > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: min(maximum, Int(Int32.max)))
        let r = buffer.withUnsafeMutableBufferPointer { b in ftdi_read_data(raw, b.baseAddress, Int32(clamping: b.count)) }
        let n = try check("ftdi_read_data", r)
        return Array(buffer.prefix(Int(n)))
    }

    /// Exactly `count` bytes: reads until they are all there, or throws `.shortRead`
    /// once `timeoutMilliseconds` of the monotonic clock passed without them.
    public func read(exactly count: Int, timeoutMilliseconds: Int) throws(FTDIError) -> [UInt8] {
        var got: [UInt8] = []
        let deadline = Self.monotonicMilliseconds() + UInt64(max(0, timeoutMilliseconds))
        while got.count < count {
            got += try read(maximum: count - got.count)
            if got.count < count && Self.monotonicMilliseconds() > deadline {
                throw .shortRead(expected: count, received: got.count, milliseconds: timeoutMilliseconds)
            }
        }
        return got
    }

    static func monotonicMilliseconds() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1000 + UInt64(t.tv_nsec) / 1_000_000
    }
}
