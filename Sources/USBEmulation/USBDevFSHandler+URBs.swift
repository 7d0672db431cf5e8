import CUMockdev
import CUSBDevFS
import Glibc

/// URBs: submitting them to the device, assembling IN packets into them, discarding
/// them, and copying a finished one back into the client's memory.
extension USBDevFSHandler {
    func submit(_ client: Client) {
        var fields = hb_urb_fields()
        var bufferData: IoctlData?
        guard let urb = hb_urb_resolve(client, &fields, &bufferData, nil) else { return complete(client, errno: EFAULT) }
        let urbRef = GObjectPointer(adopting: urb)
        let bufferRef = bufferData.map { GObjectPointer(adopting: $0) }
        let key = URBKey(client: key(client), address: fields.client_address)
        let e = start(
            key: key, type: fields.type, endpoint: fields.endpoint, flags: fields.flags,
            bufferLength: Int(fields.buffer_length), urb: urbRef, buffer: bufferRef, owner: .urb, client: client)
        if e != 0 {
            urbRef.release()
            bufferRef?.release()
        }
        complete(client, errno: e)
    }

    /// Validates a transfer as usbfs does, then hands it to the device. 0 or an errno.
    func start(
        key: URBKey, type: UInt8, endpoint: UInt8, flags: UInt32, bufferLength: Int,
        urb: GObjectPointer<UMockdevIoctlData>, buffer: GObjectPointer<UMockdevIoctlData>?, owner: Owner, client: Client
    ) -> Int32 {
        let shortNotOK = flags & hb_usbdevfs_urb_flag_short_not_ok() != 0
        if type == hb_usbdevfs_urb_type_control() {
            guard bufferLength >= 8, let buffer, let setup = USBSetupPacket(bytes: buffer.bytes(0..<8)) else { return EINVAL }
            guard Int(setup.length) <= bufferLength - 8 else { return EINVAL }
            let out = setup.isDeviceToHost ? [] : buffer.bytes(8..<(8 + Int(setup.length)))
            let t = Transfer(urb: urb, buffer: buffer, kind: .control, owner: owner, length: Int(setup.length), dataOffset: 8, shortNotOK: shortNotOK)
            guard register(key, t) else { return ENODEV }
            device.control(setup, data: out) { [self] result in
                ended(key) { t in
                    switch result {
                    case .done(let data):
                        let d = Array(data.prefix(t.length))
                        let short = setup.isDeviceToHost && d.count < t.length && t.shortNotOK
                        return t.finished(status: short ? -EREMOTEIO : 0, data: d, outLength: setup.isDeviceToHost ? d.count : t.length)
                    default: return t.finished(status: Self.status(for: result), data: [])
                    }
                }
            }
            return 0
        }
        guard type == hb_usbdevfs_urb_type_bulk() || type == hb_usbdevfs_urb_type_interrupt() else { return EINVAL }
        guard let (ep, interface) = description.endpoint(endpoint), ep.transferType == 2 || ep.transferType == 3 else { return ENOENT }
        // usbfs claims the interface on first use (checkintf) unless another file has it.
        let claimed = claim(interface, for: client)
        guard claimed == 0 else { return claimed }
        if ep.isIn {
            var t = Transfer(
                urb: urb, buffer: buffer, kind: .bulkIn(endpoint: endpoint, maxPacket: max(1, ep.maxPacketSize)), owner: owner,
                length: bufferLength, dataOffset: 0, shortNotOK: shortNotOK)
            t.interface = interface
            let accepted = state.withLock { s -> Bool in
                guard !s.gone else { return false }
                s.transfers[key] = t
                s.inQueues[endpoint, default: []].append(key)
                let held = s.held.removeValue(forKey: endpoint) ?? []
                for event in held { Self.deliver(event, endpoint: endpoint, in: &s) }
                pollingFollowsQueue(endpoint, in: &s)
                return true
            }
            guard accepted else { return ENODEV }
            scheduleService()
            return 0
        }
        let data = buffer?.bytes(0..<bufferLength) ?? []
        var t = Transfer(urb: urb, buffer: buffer, kind: .bulkOut, owner: owner, length: bufferLength, dataOffset: 0, shortNotOK: shortNotOK)
        t.interface = interface
        guard register(key, t) else { return ENODEV }
        device.bulkOut(endpoint: endpoint, data: data) { [self] result in
            ended(key) { t in
                if case .done = result { return t.finished(status: 0, data: [], outLength: t.length) }
                return t.finished(status: Self.status(for: result), data: [])
            }
        }
        return 0
    }

    func register(_ key: URBKey, _ t: Transfer) -> Bool {
        state.withLock { s in
            guard !s.gone else { return false }
            s.transfers[key] = t
            return true
        }
    }

    /// The device answered a control or bulk OUT transfer (any thread).
    func ended(_ key: URBKey, _ make: (Transfer) -> Finished) {
        state.withLock { $0.finish(key, make) }
        scheduleService()
    }

    /// One IN packet (or a STALL) fills the endpoint's first queued transfer; a short
    /// packet or a full buffer completes it.
    static func deliver(_ event: USBInEvent, endpoint: UInt8, in s: inout State) {
        guard let key = s.inQueues[endpoint]?.first, var t = s.transfers[key], case .bulkIn(_, let maxPacket) = t.kind else {
            // A packet the device sent as polling stopped is data it no longer holds:
            // kept for the next transfer. A STALL is not: it was the device's answer
            // to an IN token of a transfer that has ended, and a halted endpoint
            // answers the next transfer's tokens itself. Held, it would fail the first
            // read after a clear-halt with EPIPE (the ELF board's harness polls on a
            // grid, so one to three STALLs could arrive after the last transfer ended).
            if case .packet = event { s.held[endpoint, default: []].append(event) }
            return
        }
        var status: Int32?
        switch event {
        case .stall:
            status = -EPIPE
        case .packet(let bytes):
            let room = t.length - t.received.count
            t.received += bytes.prefix(room)
            if bytes.count > room {
                status = -EOVERFLOW  // babble: the device sent more than the buffer holds
            } else if bytes.count < maxPacket {
                status = t.shortNotOK && t.received.count < t.length ? -EREMOTEIO : 0
            } else if t.received.count == t.length {
                status = 0
            }
        }
        s.transfers[key] = t
        guard let status else { return }
        s.inQueues[endpoint]?.removeFirst()
        s.finish(key) { $0.finished(status: status) }
    }

    /// USBHostPort: a packet from a polled IN endpoint (the device's thread).
    func received(_ event: USBInEvent, endpoint: UInt8) {
        state.withLock { s in
            Self.deliver(event, endpoint: endpoint, in: &s)
            pollingFollowsQueue(endpoint, in: &s)
        }
        scheduleService()
    }

    /// DISCARDURB: a URB still in flight completes with -ENOENT (keeping any IN data it
    /// had); one already completed cannot be discarded (EINVAL), as in usbfs.
    func discard(_ client: Client) {
        let key = URBKey(client: key(client), address: hb_ioctl_raw_argument(client))
        let found = state.withLock { s in end(key, status: -ENOENT, in: &s) }
        complete(client, errno: found ? 0 : EINVAL)
        scheduleService()
    }

    /// Ends a transfer still in flight with `status` (an IN one keeps the data it got
    /// and leaves its endpoint's queue); false when it is not in flight.
    func end(_ key: URBKey, status: Int32, in s: inout State) -> Bool {
        guard let t = s.transfers[key] else { return false }
        if case .bulkIn(let ep, _) = t.kind {
            s.inQueues[ep]?.removeAll { $0 == key }
            pollingFollowsQueue(ep, in: &s)
        }
        s.finish(key) { $0.finished(status: status) }
        return true
    }

    /// Copies a finished URB's result into the client's memory and returns it from the
    /// reap (worker thread only).
    func handBack(_ f: Finished, to client: Client) {
        write(f)
        let ok = hb_urb_hand_back(client, f.transfer.urb.raw, nil)
        f.transfer.urb.release()
        f.transfer.buffer?.release()
        complete(client, errno: ok ? 0 : EFAULT)
    }

    func write(_ f: Finished) {
        if let buffer = f.transfer.buffer, !f.data.isEmpty {
            buffer.store(f.data, at: f.transfer.dataOffset)
        }
        hb_urb_set_result(f.transfer.urb.raw, f.status, f.actualLength)
    }
}
