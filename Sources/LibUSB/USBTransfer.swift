import CLibUSB

/// One asynchronous bulk transfer, reusable: submit, get the completion on the
/// context's event thread, submit again. Its buffer lives as long as it does.
///
/// While submitted the transfer keeps itself alive (libusb holds a pointer to it), so
/// dropping the last reference to an in-flight transfer cannot free memory libusb is
/// about to write.
public final class USBTransfer: @unchecked Sendable {
    // @unchecked: the libusb_transfer and buffer are touched by the submitter before
    // submission and by the event thread at completion, never both at once (libusb
    // hands the transfer over at submit and back at the callback).
    public enum Status: Sendable, Equatable {
        case completed, error, timedOut, cancelled, stall, noDevice, overflow
    }

    public let endpoint: UInt8
    public let capacity: Int
    private let raw: UnsafeMutablePointer<libusb_transfer>
    private let buffer: UnsafeMutablePointer<UInt8>
    private let handle: USBDeviceHandle
    private var completion: ((USBTransfer) -> Void)?

    public init(handle: USBDeviceHandle, endpoint: UInt8, capacity: Int) throws(LibUSBError) {
        guard capacity > 0, capacity <= Int(Int32.max), let raw = libusb_alloc_transfer(0) else { throw .noMemory }
        self.raw = raw
        self.handle = handle
        self.endpoint = endpoint
        self.capacity = capacity
        buffer = .allocate(capacity: capacity)
        buffer.initialize(repeating: 0, count: capacity)
    }

    deinit {
        libusb_free_transfer(raw)
        buffer.deallocate()
    }

    public var isIn: Bool { endpoint & 0x80 != 0 }

    /// How it ended (valid in the completion).
    public var status: Status {
        switch raw.pointee.status {
        case LIBUSB_TRANSFER_COMPLETED: .completed
        case LIBUSB_TRANSFER_TIMED_OUT: .timedOut
        case LIBUSB_TRANSFER_CANCELLED: .cancelled
        case LIBUSB_TRANSFER_STALL: .stall
        case LIBUSB_TRANSFER_NO_DEVICE: .noDevice
        case LIBUSB_TRANSFER_OVERFLOW: .overflow
        default: .error
        }
    }

    /// Bytes moved (valid in the completion).
    public var actualLength: Int { Int(max(0, raw.pointee.actual_length)) }

    /// What an IN transfer received (valid in the completion).
    public var received: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: buffer, count: actualLength) }

    /// Submits an IN transfer for up to `capacity` bytes, or an OUT transfer of
    /// `bytes`. `completion` runs once, on the event thread. Timeout 0 = none.
    public func submit(
        bytes: [UInt8] = [], timeoutMilliseconds: UInt32 = 0, completion: @escaping (USBTransfer) -> Void
    ) throws(LibUSBError) {
        let length = isIn ? capacity : bytes.count
        guard length <= capacity else { throw .overflow }
        if !isIn { bytes.withUnsafeBufferPointer { b in b.baseAddress.map { buffer.update(from: $0, count: bytes.count) } } }
        self.completion = completion
        let me = Unmanaged.passRetained(self)
        libusb_fill_bulk_transfer(
            raw, handle.raw, endpoint, buffer, Int32(length),
            { transfer in
                guard let transfer, let context = transfer.pointee.user_data else { return }
                let me = Unmanaged<USBTransfer>.fromOpaque(context).takeRetainedValue()
                let done = me.completion
                me.completion = nil
                done?(me)
            }, me.toOpaque(), timeoutMilliseconds)
        let result = libusb_submit_transfer(raw)
        if result < 0 {
            me.release()
            self.completion = nil
            throw LibUSBError(rawValue: result)
        }
    }

    /// Asks libusb to cancel; the completion still runs, with `.cancelled`.
    public func cancel() { _ = libusb_cancel_transfer(raw) }
}
