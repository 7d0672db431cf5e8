import CUMockdev
import CUSBDevFS
import Glibc

/// USBDEVFS_CONTROL and USBDEVFS_BULK: one transfer whose ioctl returns when it is done.
extension USBDevFSHandler {
    /// USBDEVFS_CONTROL and USBDEVFS_BULK: one transfer, the ioctl returns when it is
    /// done (the number of bytes) or its timeout passes (ETIMEDOUT).
    func synchronousTransfer(_ client: Client, _ op: hb_usbdevfs_op) {
        var t = hb_sync_transfer()
        var bufferData: IoctlData?
        guard let arg = hb_sync_transfer_resolve(client, op, &t, &bufferData, nil) else { return complete(client, errno: EFAULT) }
        let argRef = GObjectPointer(adopting: arg)
        let bufferRef = bufferData.map { GObjectPointer(adopting: $0) }
        let key = state.withLock { s in URBKey(client: s.id(of: client), address: 1 << 63 | s.token()) }
        let owner = Owner.synchronous(GObjectPointer(retaining: client))
        var e: Int32
        if op == HB_USBDEVFS_CONTROL {
            // Build the control transfer the URB way: setup packet, then the data stage.
            let setup = withUnsafeBytes(of: t.setup) { Array($0) }
            let data = bufferRef?.bytes(0..<Int(t.length)) ?? []
            e = startSynchronousControl(key: key, setup: setup, data: data, arg: argRef, buffer: bufferRef, owner: owner)
        } else if let endpoint = UInt8(exactly: t.endpoint) {
            e = start(
                key: key, type: hb_usbdevfs_urb_type_bulk(), endpoint: endpoint, flags: 0,
                bufferLength: Int(t.length), urb: argRef, buffer: bufferRef, owner: owner, client: client)
        } else {
            e = ENOENT  // no such endpoint
        }
        if e != 0 {
            if case .synchronous(let c) = owner { c.release() }
            argRef.release()
            bufferRef?.release()
            return complete(client, errno: e)
        }
        if t.timeout_ms > 0, let context = state.withLock({ $0.mainContext }) {
            let box = Unmanaged.passRetained(SynchronousTimeout(handler: self, key: key)).toOpaque()
            hb_main_context_after(
                context.raw, t.timeout_ms.multipliedReportingOverflow(by: 1000).overflow ? .max : t.timeout_ms * 1000,
                { p in p.map { Unmanaged<SynchronousTimeout>.fromOpaque($0).takeUnretainedValue().fire() } },
                box, { p in p.map { Unmanaged<SynchronousTimeout>.fromOpaque($0).release() } })
        }
    }

    func startSynchronousControl(
        key: URBKey, setup bytes: [UInt8], data: [UInt8], arg: GObjectPointer<UMockdevIoctlData>,
        buffer: GObjectPointer<UMockdevIoctlData>?, owner: Owner
    ) -> Int32 {
        guard let setup = USBSetupPacket(bytes: bytes) else { return EINVAL }
        let t = Transfer(urb: arg, buffer: buffer, kind: .control, owner: owner, length: Int(setup.length), dataOffset: 0, shortNotOK: false)
        guard register(key, t) else { return ENODEV }
        device.control(setup, data: setup.isDeviceToHost ? [] : data) { [self] result in
            ended(key) { t in
                switch result {
                case .done(let d):
                    let data = Array(d.prefix(t.length))
                    return t.finished(status: 0, data: data, outLength: setup.isDeviceToHost ? data.count : t.length)
                default: return t.finished(status: Self.status(for: result), data: [])
                }
            }
        }
        return 0
    }

    func timeOut(_ key: URBKey) {
        _ = state.withLock { s in end(key, status: -ETIMEDOUT, in: &s) }
        service()
    }

    /// Answers a finished synchronous transfer: the byte count, or -1 with the errno
    /// its status stands for.
    func answerSynchronous(_ f: Finished) {
        guard case .synchronous(let client) = f.transfer.owner else { return }
        if let buffer = f.transfer.buffer, !f.data.isEmpty { buffer.store(f.data, at: 0) }
        if f.status == 0 {
            umockdev_ioctl_client_complete(client.raw, Int(f.actualLength), 0)
        } else {
            umockdev_ioctl_client_complete(client.raw, -1, f.status == -ESHUTDOWN ? ENODEV : -f.status)
        }
        client.release()
        f.transfer.urb.release()
        f.transfer.buffer?.release()
    }
}

final class SynchronousTimeout: Sendable {
    let handler: USBDevFSHandler
    let key: USBDevFSHandler.URBKey
    init(handler: USBDevFSHandler, key: USBDevFSHandler.URBKey) {
        self.handler = handler
        self.key = key
    }
    func fire() { handler.timeOut(key) }
}
