import CLibFTDI
import Glibc

/// A write handed to libusb without waiting for it (`ftdi_write_data_submit`): the
/// caller goes on once the transfer is submitted, and `finish()`, from any thread,
/// waits for it and frees it (`ftdi_transfer_data_done`, which handles the context's
/// USB events until the transfer is done).
///
/// The bytes are copied into memory the submission owns, which must stay put until the
/// transfer is done. `finish()` runs once, on one thread; until then nothing else
/// touches the transfer, hence `@unchecked Sendable` (it is made on one thread and
/// finished on another).
public final class FTDIWriteSubmission: @unchecked Sendable {
    private var control: UnsafeMutablePointer<ftdi_transfer_control>?
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    public let count: Int

    init(control: UnsafeMutablePointer<ftdi_transfer_control>, buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.control = control
        self.buffer = buffer
        count = buffer.count
    }

    deinit {
        // Finished: the bytes are ours to free. Never finished: libusb may still read
        // them and the context the transfer belongs to may be closed by now, so neither
        // is touched and the few bytes are left.
        if control == nil { buffer.deallocate() }
    }

    /// Waits until every byte went out (or the transfer failed) and frees the transfer.
    public func finish() throws(FTDIError) {
        guard let control else { return }
        self.control = nil
        let r = ftdi_transfer_data_done(control)
        guard r >= 0 else {
            throw .call(function: "ftdi_transfer_data_done", code: r, message: "the USB write of \(count) bytes did not complete")
        }
        guard Int(r) == count else {
            throw .call(function: "ftdi_transfer_data_done", code: r, message: "wrote \(r) of \(count) bytes")
        }
    }
}

extension FTDIContext {
    /// Submits `bytes` as one write and returns without waiting for it
    /// (`ftdi_write_data_submit`); `finish()` on the result waits for it. Writes go out
    /// in the order they were submitted (one bulk OUT endpoint).
    ///
    /// libftdi's submit touches only the USB handle, the OUT endpoint and the write
    /// chunk size and timeout, never the read buffer, so it may run while another
    /// thread reads (`read`) or finishes an earlier submission.
    public func submitWrite(_ bytes: [UInt8]) throws(FTDIError) -> FTDIWriteSubmission {
        guard !bytes.isEmpty, let size = Int32(exactly: bytes.count) else {
            throw .call(function: "ftdi_write_data_submit", code: -1, message: "\(bytes.count) bytes cannot be one submitted write")
        }
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = buffer.initialize(from: bytes)
        guard let control = ftdi_write_data_submit(raw, buffer.baseAddress, size) else {
            buffer.deallocate()
            // libftdi returns NULL when libusb refuses the transfer without saying why (its
            // error string still reads "all fine"): say what that means.
            throw .call(
                function: "ftdi_write_data_submit", code: -1,
                message: "libusb refused the transfer (the FT232H unplugged, or its interface taken by another process)")
        }
        return FTDIWriteSubmission(control: control, buffer: buffer)
    }
}
