import CUMockdev
import CUSBDevFS
import Foundation
import Glibc
import RealTime
import Synchronization

/// The kernel's usbfs and host controller for one emulated device node, answering
/// the ioctls umockdev forwards from the client (libusb, or any program using
/// /dev/bus/usb) with transfers on a `USBDeviceModel`.
///
/// Semantics follow Linux's usbfs (drivers/usb/core/devio.c) as libusb relies on them:
/// URBs are submitted at once and reaped in completion order, per open file; a
/// discarded URB completes with -ENOENT; an IN transfer completes on a short packet
/// or when full; interfaces are claimed per file (EBUSY for another), and a claimed
/// interface is bound to the driver "usbfs" (GETDRIVER says so), which
/// DISCONNECT_CLAIM takes from its file, killing that file's URBs on it; after an
/// unplug, pending URBs complete with -ESHUTDOWN and every later call fails with
/// ENODEV (reaping stays possible until nothing is left: REAP_AFTER_DISCONNECT).
///
/// Threads: ioctls arrive on umockdev's worker thread (one per testbed, with its own
/// GLib main context) and are handled on a thread of the client's own (`ClientThread`):
/// umockdev reads a client's memory (an ioctl's argument, a URB) through that client,
/// which answers from inside its ioctl call, so a client stopped in the middle of one
/// (SIGSTOP, a debugger) would hold the worker, and with it every other client of the
/// node, until it is continued; in usbfs a stopped process holds up no other file's
/// calls. The device answers from its own thread. Everything shared lives in `state`
/// behind one lock, which is never held while calling the device (a device may complete
/// inline). A client's memory (the URB and its buffer) is written by its own thread or,
/// for a call it is blocked in (a parked reap, a synchronous transfer), on the worker
/// thread when that call is answered: never by two at once, as a client has one call in
/// flight at a time.
///
/// The faked device node is a regular file, so a libusb client's poll() always
/// reports it ready and its event loop asks REAPURBNDELAY in a tight loop. An empty
/// reap that follows an empty reap (the client is polling, not draining) is therefore
/// parked for up to `emptyReapDelayMicroseconds`, answered at once when a transfer
/// completes meanwhile. The first empty reap after anything else gets its EAGAIN at
/// once: libusb ends every drain of completed URBs with one, and a transfer's
/// caller waits for it.
final class USBDevFSHandler: USBHostPort, Sendable {
    /// How long an empty REAPURBNDELAY waits for a completion before EAGAIN. It bounds
    /// the CPU a polling client burns (about one reap per period instead of a spin) and
    /// is also the longest a submit from a second thread of the same client waits
    /// (umockdev serialises the calls on one file descriptor).
    static let emptyReapDelayMicroseconds: UInt32 = 1000

    let device: any USBDeviceModel
    let description: USBDeviceDescription
    /// The device's bus address (devnum), restored after a USBDEVFS_RESET.
    let address: UInt8
    /// Told when the active configuration changes (sysfs bConfigurationValue follows it).
    let configurationChanged: @Sendable (UInt8) -> Void
    let state: Mutex<State>

    init(
        device: any USBDeviceModel, description: USBDeviceDescription, address: UInt8, configuration: UInt8,
        configurationChanged: @escaping @Sendable (UInt8) -> Void
    ) {
        self.device = device
        self.description = description
        self.address = address
        self.configurationChanged = configurationChanged
        state = Mutex(State(configuration: configuration))
    }

    /// A umockdev handler object calling this one; attach it to the device node.
    func makeIoctlHandler() -> UnsafeMutablePointer<UMockdevIoctlBase> {
        hb_ioctl_handler_new(
            { context, client in
                guard let context, let client else { return false }
                Unmanaged<USBDevFSHandler>.fromOpaque(context).takeUnretainedValue().accept(client)
                return true
            },
            { context, client, connected in
                guard let context, let client else { return }
                let handler = Unmanaged<USBDevFSHandler>.fromOpaque(context).takeUnretainedValue()
                if connected { handler.clientConnected(client) } else { handler.clientGone(client) }
            },
            Unmanaged.passRetained(self).toOpaque(),
            { context in context.map { Unmanaged<USBDevFSHandler>.fromOpaque($0).release() } })
    }

    // MARK: state

    typealias Client = UnsafeMutablePointer<UMockdevIoctlClient>
    typealias IoctlData = UnsafeMutablePointer<UMockdevIoctlData>

    /// A URB's identity: the file it was submitted on (its client id) and its address there.
    struct URBKey: Hashable {
        var client: UInt
        var address: UInt64
    }

    enum Kind {
        case control
        case bulkOut
        case bulkIn(endpoint: UInt8, maxPacket: Int)
    }

    /// Who is told when a transfer ends: a URB waits in its file's reap queue; a
    /// synchronous USBDEVFS_CONTROL / USBDEVFS_BULK completes its ioctl.
    enum Owner {
        case urb
        case synchronous(GObjectPointer<UMockdevIoctlClient>)
    }

    struct Transfer {
        var urb: GObjectPointer<UMockdevIoctlData>
        var buffer: GObjectPointer<UMockdevIoctlData>?
        var kind: Kind
        var owner: Owner
        /// Bytes the transfer asks for (IN) or carries (OUT), after any setup packet.
        var length: Int
        /// Where the data stage starts in the buffer: 8 for control (after the setup packet).
        var dataOffset: Int
        var shortNotOK: Bool
        var received: [UInt8] = []
        /// The interface a bulk or interrupt transfer's endpoint belongs to (usbfs's
        /// `as->ifnum`, what a lost claim kills); nil for control transfers.
        var interface: UInt8?

        /// IN data defaults to what arrived so far; the actual length to the IN data's
        /// (an OUT transfer passes the bytes it delivered).
        func finished(status: Int32, data: [UInt8]? = nil, outLength: Int? = nil) -> Finished {
            let d = data ?? received
            return Finished(transfer: self, status: status, data: d, actualLength: Int32(clamping: outLength ?? d.count))
        }
    }

    struct Finished {
        var transfer: Transfer
        var status: Int32
        /// IN data to copy into the client's buffer.
        var data: [UInt8]
        var actualLength: Int32
    }

    struct ParkedReap {
        var client: GObjectPointer<UMockdevIoctlClient>
        /// REAPURB waits for a completion; REAPURBNDELAY only for a while.
        var blocking: Bool
        var token: UInt64
    }

    struct ClientState {
        var done: [Finished] = []
        var parked: ParkedReap?
        /// The client's last call was a reap that found nothing: it is polling.
        var polling = false
    }

    struct State {
        var configuration: UInt8
        var mainContext: GMainContextPointer?
        var gone = false
        var clients: [UInt: ClientState] = [:]
        var claims: [UInt8: UInt] = [:]
        var transfers: [URBKey: Transfer] = [:]
        /// IN transfers per endpoint, in submission order: packets fill the first.
        var inQueues: [UInt8: [URBKey]] = [:]
        /// Packets that arrived while no transfer was queued (polling had just stopped).
        var held: [UInt8: [USBInEvent]] = [:]
        /// IN endpoints the device has been told to poll.
        var polled: Set<UInt8> = []
        var synchronousDone: [Finished] = []
        var serviceScheduled = false
        var nextToken: UInt64 = 1
        /// Each connected client's id, by the address of its IoctlClient. The address
        /// names one client until it is reported gone (the watch on its socket holds a
        /// reference); the id never names another, so a device completing a dead
        /// client's transfer late cannot reach a later client that got the same
        /// address and submitted a URB at the same address too.
        var ids: [UInt: UInt] = [:]
        var nextClientID: UInt = 1
        /// Each connected client's thread, by the address of its IoctlClient.
        var threads: [UInt: RealTimeExecutor] = [:]

        mutating func id(of client: Client) -> UInt {
            let address = UInt(bitPattern: client)
            if let id = ids[address] { return id }
            defer { nextClientID += 1 }
            ids[address] = nextClientID
            return nextClientID
        }

        mutating func token() -> UInt64 {
            defer { nextToken += 1 }
            return nextToken
        }

        /// Moves a transfer out of flight to whoever waits for it.
        mutating func finish(_ key: URBKey, _ make: (Transfer) -> Finished) {
            guard let t = transfers.removeValue(forKey: key) else { return }
            let f = make(t)
            switch t.owner {
            case .urb: clients[key.client, default: ClientState()].done.append(f)
            case .synchronous: synchronousDone.append(f)
            }
        }

        /// A service pass is worth scheduling: someone waits and something is ready.
        var needsService: Bool {
            !synchronousDone.isEmpty || clients.values.contains { $0.parked != nil && !$0.done.isEmpty }
        }
    }

    /// The client's id (see `State.ids`).
    func key(_ client: Client) -> UInt { state.withLock { $0.id(of: client) } }

    // MARK: ioctls

    /// An ioctl, on umockdev's worker thread: handled on the client's own thread (see the
    /// type's comment), which runs at the worker's scheduling (SCHED_FIFO where the
    /// emulation's device threads are). The client is kept alive until it has been.
    func accept(_ client: Client) {
        let thread = state.withLock { s -> RealTimeExecutor in
            if s.mainContext == nil {
                s.mainContext = GMainContextPointer(raw: g_main_context_ref_thread_default())
                // umockdev starts its worker at the normal priority of the thread that made
                // the testbed: on a loaded host every ioctl then waited for a core (a
                // libusb submit reached the device 30 ms after the engine stamped it, past
                // its stamp; SYNC round trips of 90–150 ms). The worker and the client
                // threads it starts run at the emulated boards' priority, as a kernel's
                // usbfs does not wait behind user processes.
                _ = ThreadScheduling.adoptForCurrentThread(priority: Self.workerFIFOPriority)
            }
            let address = UInt(bitPattern: client)
            if let t = s.threads[address] { return t }
            let t = RealTimeExecutor(name: "usbfs client", priority: Self.callingThreadFIFOPriority())
            s.threads[address] = t
            return t
        }
        let held = GObjectPointer(retaining: client)
        thread.schedule(atMicroseconds: 0) { [self] in
            handle(held.raw)
            held.release()
        }
    }

    /// SCHED_FIFO priority of umockdev's worker and the client threads (granted to root;
    /// refused, they stay at normal priority): the ELF board's harness's, above every
    /// normal process and below a HapticEngine's service thread.
    static let workerFIFOPriority = Int32(ELFBridgeBoard.harnessFIFOPriority)

    /// The SCHED_FIFO priority the calling thread runs at; nil in the normal class.
    static func callingThreadFIFOPriority() -> Int32? {
        var policy: Int32 = 0
        var parameters = sched_param()
        guard pthread_getschedparam(pthread_self(), &policy, &parameters) == 0, policy == SCHED_FIFO else { return nil }
        return parameters.sched_priority
    }

    /// One ioctl, on the client's thread.
    func handle(_ client: Client) {
        let request = umockdev_ioctl_client_get_request(client)
        let op = hb_usbdevfs_op_of(request)
        if op != HB_USBDEVFS_REAP_URB_NDELAY {
            state.withLock { s in s.clients[s.id(of: client)]?.polling = false }
        }
        let gone = state.withLock { $0.gone }
        if gone && op != HB_USBDEVFS_REAP_URB && op != HB_USBDEVFS_REAP_URB_NDELAY {
            return complete(client, errno: ENODEV)
        }
        switch op {
        case HB_USBDEVFS_GET_CAPABILITIES:
            let caps = hb_usbdevfs_capabilities_no_packet_size_limit() | hb_usbdevfs_capabilities_reap_after_disconnect()
            complete(client, errno: hb_ioctl_write_u32(client, caps, nil) ? 0 : EFAULT)
        case HB_USBDEVFS_CLAIM_INTERFACE:
            // An interface number past 255 names no interface (ENOENT), as in usbfs.
            withU32(client) { n in complete(client, errno: UInt8(exactly: n).map { claim($0, for: client) } ?? ENOENT) }
        case HB_USBDEVFS_DISCONNECT_CLAIM:
            var interface: UInt32 = 0
            var flags: UInt32 = 0
            var driver = [CChar](repeating: 0, count: Int(HB_DRIVER_NAME_SIZE))
            guard hb_ioctl_read_disconnect_claim(client, &interface, &flags, &driver, nil) else { return complete(client, errno: EFAULT) }
            let named = String(decoding: driver.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            complete(client, errno: UInt8(exactly: interface).map { disconnectClaim($0, flags: flags, driver: named, for: client) } ?? EINVAL)
            scheduleService()
        case HB_USBDEVFS_RELEASE_INTERFACE:
            withU32(client) { n in complete(client, errno: UInt8(exactly: n).map { release($0, for: client) } ?? EINVAL) }
        case HB_USBDEVFS_SET_CONFIGURATION:
            withU32(client) { n in
                guard let value = UInt8(exactly: n) else { return complete(client, errno: EINVAL) }
                setConfiguration(value, client)
            }
        case HB_USBDEVFS_SET_INTERFACE:
            var interface: UInt32 = 0
            var alternate: UInt32 = 0
            guard hb_ioctl_read_u32_pair(client, &interface, &alternate, nil) else { return complete(client, errno: EFAULT) }
            guard let i = UInt8(exactly: interface), let a = UInt8(exactly: alternate) else { return complete(client, errno: EINVAL) }
            setInterface(i, alternate: a, client)
        case HB_USBDEVFS_CLEAR_HALT:
            withU32(client) { n in
                guard let endpoint = UInt8(exactly: n) else { return complete(client, errno: ENOENT) }
                clearHalt(endpoint, client)
            }
        case HB_USBDEVFS_RESET_EP:
            // Only the host's data toggle; nothing to do on the device.
            complete(client, errno: 0)
        case HB_USBDEVFS_RESET:
            reset(client)
        case HB_USBDEVFS_GET_DRIVER:
            // "usbfs" for an interface some file claimed; no kernel driver is ever bound.
            var interface: UInt32 = 0
            guard hb_ioctl_read_getdriver(client, &interface, nil) else { return complete(client, errno: EFAULT) }
            let bound = UInt8(exactly: interface).map { i in state.withLock { $0.claims[i] != nil } } ?? false
            guard bound else { return complete(client, errno: ENODATA) }
            complete(client, errno: hb_ioctl_write_getdriver(client, Self.usbfsDriver, nil) ? 0 : EFAULT)
        case HB_USBDEVFS_DRIVER_IOCTL:
            // Connecting or disconnecting a kernel driver is not modelled: answered as if
            // none were bound (libusb asks GETDRIVER first and never disconnects "usbfs").
            complete(client, errno: ENODATA)
        case HB_USBDEVFS_SUBMIT_URB:
            submit(client)
        case HB_USBDEVFS_DISCARD_URB:
            discard(client)
        case HB_USBDEVFS_REAP_URB, HB_USBDEVFS_REAP_URB_NDELAY:
            reap(client, blocking: op == HB_USBDEVFS_REAP_URB)
        case HB_USBDEVFS_CONTROL, HB_USBDEVFS_BULK:
            synchronousTransfer(client, op)
        default:
            complete(client, errno: ENOTTY)
        }
    }

    func complete(_ client: Client, result: Int = 0, errno: Int32) {
        umockdev_ioctl_client_complete(client, errno == 0 ? result : -1, errno)
    }

    func withU32(_ client: Client, _ body: (UInt32) -> Void) {
        var value: UInt32 = 0
        guard hb_ioctl_read_u32(client, &value, nil) else { return complete(client, errno: EFAULT) }
        body(value)
    }

    func interfaceExists(_ number: UInt8) -> Bool {
        let value = state.withLock { $0.configuration }
        return description.configuration(value: value)?.interfaces.contains { $0.number == number } ?? false
    }

    func claim(_ interface: UInt8, for client: Client) -> Int32 {
        guard interfaceExists(interface) else { return ENOENT }
        return state.withLock { s in
            let k = s.id(of: client)
            if let owner = s.claims[interface], owner != k { return EBUSY }
            s.claims[interface] = k
            return 0
        }
    }

    /// The driver a claimed interface is bound to, as GETDRIVER and DISCONNECT_CLAIM name it.
    static let usbfsDriver = "usbfs"

    /// DISCONNECT_CLAIM (devio.c, `proc_disconnect_claim`): an interface bound to a driver
    /// — here only ever usbfs, for the file that claimed it, this one included — is
    /// released from it unless the flags say otherwise (IF_DRIVER: only from the driver
    /// named; EXCEPT_DRIVER: from any but the one named, EBUSY otherwise): the file
    /// that had it loses the claim and its URBs on the interface complete with -ENOENT
    /// (usbfs's `driver_disconnect` kills them), reapable as any killed URB. Then the
    /// interface is claimed for this file. No such interface: EINVAL.
    func disconnectClaim(_ interface: UInt8, flags: UInt32, driver: String, for client: Client) -> Int32 {
        guard interfaceExists(interface) else { return EINVAL }
        return state.withLock { s in
            let k = s.id(of: client)
            if let owner = s.claims[interface] {
                if flags & hb_usbdevfs_disconnect_claim_if_driver() != 0 && driver != Self.usbfsDriver { return EBUSY }
                if flags & hb_usbdevfs_disconnect_claim_except_driver() != 0 && driver == Self.usbfsDriver { return EBUSY }
                s.claims[interface] = nil
                let killed = s.transfers.filter { key, t in
                    guard key.client == owner, t.interface == interface, case .urb = t.owner else { return false }
                    return true
                }
                for key in killed.keys { _ = end(key, status: -ENOENT, in: &s) }
            }
            s.claims[interface] = k
            return 0
        }
    }

    func release(_ interface: UInt8, for client: Client) -> Int32 {
        state.withLock { s in
            guard s.claims[interface] == s.id(of: client) else { return EINVAL }
            s.claims[interface] = nil
            return 0
        }
    }

    func setConfiguration(_ value: UInt8, _ client: Client) {
        guard value == 0 || description.configuration(value: value) != nil else { return complete(client, errno: EINVAL) }
        let busy = state.withLock { s in
            let k = s.id(of: client)
            return s.claims.values.contains { $0 != k }
        }
        guard !busy else { return complete(client, errno: EBUSY) }
        let setup = USBSetupPacket(requestType: 0x00, request: StandardRequest.setConfiguration, value: UInt16(value))
        answer(client, after: setup) { [self] result in
            guard case .done = result else { return Self.errnoValue(for: result) }
            state.withLock { $0.configuration = value }
            configurationChanged(value)
            return 0
        }
    }

    func setInterface(_ interface: UInt8, alternate: UInt8, _ client: Client) {
        let value = state.withLock { $0.configuration }
        let settings = description.configuration(value: value)?.interfaces.filter { $0.number == interface } ?? []
        guard settings.contains(where: { $0.alternateSetting == alternate }) else { return complete(client, errno: EINVAL) }
        let setup = USBSetupPacket(requestType: 0x01, request: StandardRequest.setInterface, value: UInt16(alternate), index: UInt16(interface))
        answer(client, after: setup) { result in
            // Linux ignores a STALL from an interface with a single setting (usb_set_interface).
            if result == .stall && settings.count == 1 { return 0 }
            return Self.errnoValue(for: result)
        }
    }

    func clearHalt(_ endpoint: UInt8, _ client: Client) {
        guard description.endpoint(endpoint) != nil else { return complete(client, errno: ENOENT) }
        let setup = USBSetupPacket(requestType: 0x02, request: StandardRequest.clearFeature, value: 0, index: UInt16(endpoint))
        answer(client, after: setup) { Self.errnoValue(for: $0) }
    }

    /// USBDEVFS_RESET: the port is reset and the device brought back to the state the
    /// kernel had it in (its address, then its configuration), as usb_reset_device does.
    /// Transfers in flight are killed (-ENOENT).
    func reset(_ client: Client) {
        let configuration = state.withLock { s in
            for k in Array(s.transfers.keys) { s.finish(k) { $0.finished(status: -ENOENT) } }
            s.inQueues = [:]
            s.held = [:]
            for ep in s.polled { pollingFollowsQueue(ep, in: &s) }
            return s.configuration
        }
        scheduleService()
        let waiting = GObjectPointer(retaining: client)
        let address = address
        let device = device
        device.busReset {
            device.control(USBSetupPacket(requestType: 0, request: StandardRequest.setAddress, value: UInt16(address)), data: []) { r in
                guard r != .gone, configuration != 0 else {
                    umockdev_ioctl_client_complete(waiting.raw, r == .gone ? -1 : 0, r == .gone ? ENODEV : 0)
                    return waiting.release()
                }
                let set = USBSetupPacket(requestType: 0, request: StandardRequest.setConfiguration, value: UInt16(configuration))
                device.control(set, data: []) { r in
                    let e = Self.errnoValue(for: r)
                    umockdev_ioctl_client_complete(waiting.raw, e == 0 ? 0 : -1, e)
                    waiting.release()
                }
            }
        }
    }

    /// Sends a standard request and completes the client's ioctl with what `verdict`
    /// makes of the device's answer (0 or an errno).
    func answer(_ client: Client, after setup: USBSetupPacket, verdict: @escaping @Sendable (USBPipeResult) -> Int32) {
        let waiting = GObjectPointer(retaining: client)
        device.control(setup, data: []) { result in
            let e = verdict(result)
            umockdev_ioctl_client_complete(waiting.raw, e == 0 ? 0 : -1, e)
            waiting.release()
        }
    }

    static func errnoValue(for result: USBPipeResult) -> Int32 {
        switch result {
        case .done: 0
        case .stall: EPIPE
        case .gone: ENODEV
        }
    }

    static func status(for result: USBPipeResult) -> Int32 {
        switch result {
        case .done: 0
        case .stall: -EPIPE
        case .gone: -ESHUTDOWN
        }
    }

    // MARK: clients

    func clientConnected(_ client: Client) {
        state.withLock { s in _ = s.clients[s.id(of: client), default: ClientState()] }
        if hb_client_watch_failures() > 0, !Self.warnedUnwatched.exchange(true, ordering: .relaxed) {
            FileHandle.standardError.write(
                Data(
                    ("hapbridge emulate: warning: this umockdev's IoctlClient is not laid out as expected, so a client that dies "
                        + "is not noticed: its claims stay until the board is replugged (Sources/CUSBDevFS, \"a client's end\")\n").utf8))
        }
    }

    /// Said once per process (see `clientConnected`).
    static let warnedUnwatched = Atomic(false)

    /// The file was closed (worker thread): what usbfs's release does (`clientClosed`),
    /// on the client's thread after the call it may still be in, then that thread ends.
    /// The client is kept alive until then, so its address names no other meanwhile.
    func clientGone(_ client: Client) {
        let address = UInt(bitPattern: client)
        guard let thread = state.withLock({ $0.threads[address] }) else { return clientClosed(client) }
        let held = GObjectPointer(retaining: client)
        thread.schedule(atMicroseconds: 0) { [self] in
            clientClosed(held.raw)
            let ended = state.withLock { $0.threads.removeValue(forKey: address) }
            ended?.shutdown()
            held.release()
        }
    }

    /// The file was closed (its last descriptor, or its process died, even inside an
    /// ioctl): what usbfs's release does. Its interfaces are released, its URBs in
    /// flight discarded (a packet for one is held for the next transfer on that
    /// endpoint, as a device keeps a packet the host never fetched), what it never
    /// reaped dropped, and a reap or a synchronous transfer it was waiting in is
    /// forgotten: there is nobody left to answer. Reported once per client.
    func clientClosed(_ client: Client) {
        let (dropped, waiting) = state.withLock { s -> ([Transfer], [GObjectPointer<UMockdevIoctlClient>]) in
            guard let k = s.ids.removeValue(forKey: UInt(bitPattern: client)) else { return ([], []) }
            var dropped: [Transfer] = []
            for key in Array(s.transfers.keys) where key.client == k {
                if let t = s.transfers.removeValue(forKey: key) { dropped.append(t) }
            }
            for ep in Array(s.inQueues.keys) {
                s.inQueues[ep]?.removeAll { $0.client == k }
                pollingFollowsQueue(ep, in: &s)
            }
            let closed = s.clients.removeValue(forKey: k)
            dropped += (closed?.done ?? []).map(\.transfer)
            let waitedFor: (Finished) -> Bool = { f in
                if case .synchronous(let c) = f.transfer.owner { return c.raw == client }
                return false
            }
            dropped += s.synchronousDone.filter(waitedFor).map(\.transfer)
            s.synchronousDone.removeAll(where: waitedFor)
            s.claims = s.claims.filter { $0.value != k }
            return (dropped, closed?.parked.map { [$0.client] } ?? [])
        }
        for t in dropped {
            t.urb.release()
            t.buffer?.release()
            if case .synchronous(let c) = t.owner { c.release() }
        }
        waiting.forEach { $0.release() }
    }

    /// Polls an IN endpoint exactly while transfers are queued on it. Called with the
    /// lock held, so the device hears "on" and "off" in the order the queue changed
    /// (`setPolling` never calls back: USBDeviceModel's contract).
    func pollingFollowsQueue(_ endpoint: UInt8, in s: inout State) {
        let want = !(s.inQueues[endpoint]?.isEmpty ?? true)
        guard want != s.polled.contains(endpoint) else { return }
        if want { s.polled.insert(endpoint) } else { s.polled.remove(endpoint) }
        device.setPolling(endpoint: endpoint, active: want)
    }

    /// Whether a client holds the node open.
    var hasClients: Bool { state.withLock { !$0.clients.isEmpty } }

    // MARK: unplug

    /// The device left the bus: every transfer in flight completes with -ESHUTDOWN
    /// (a synchronous one with ENODEV), and from now on every call but a reap fails
    /// with ENODEV.
    func disconnect() {
        let waiting = state.withLock { s -> [(UInt, UInt64)] in
            s.gone = true
            for key in Array(s.transfers.keys) { s.finish(key) { $0.finished(status: -ESHUTDOWN) } }
            s.inQueues = [:]
            s.held = [:]
            return s.clients.compactMap { k, c in c.parked.flatMap { $0.blocking ? (k, $0.token) : nil } }
        }
        scheduleService()
        // A blocking REAPURB with nothing left to return learns of the unplug this way.
        for (client, token) in waiting { startParkTimer(client: client, token: token) }
    }
}
