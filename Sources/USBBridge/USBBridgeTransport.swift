import BridgeProtocol
import DeviceInterface
import Dispatch
import LibUSB
import Logging
import RealTime
import Synchronization

/// A bridge board over USB (libusb): protocol frames to bulk OUT 0x02 and from bulk
/// IN 0x81 of the vendor interface (`usb_identity.h`).
///
/// - **IN always pending.** `inFlightReads` packet-sized IN transfers are kept
///   submitted; each completes with one packet (the board sends frames in 64-byte
///   packets, a short one ending each burst), is stamped with the host's monotonic
///   clock right there on the event thread, pushed through a stream decoder (frames
///   share and straddle packets) and resubmitted. Clock sync therefore sees when a
///   reply arrived, not when the engine got round to polling.
/// - **OUT asynchronous.** `send` submits a transfer and returns; the kernel keeps
///   transfers on one endpoint in order. A failure surfaces on the next `send`/`poll`.
/// - **Unplug and re-plug.** A hotplug callback (or a transfer ending with
///   NO_DEVICE) reports `.disconnected`; when a board arrives on the same port with
///   the same serial number, the next `poll` reopens it and reports `.reappeared`.
public final class USBBridgeTransport: FrameTransport {
    public private(set) var board: USBBridgeBoard
    public let context: USBContext
    let logger: Logger
    let inFlightReads: Int
    private let shared: Shared
    private var handle: USBDeviceHandle?
    private var hotplug: USBHotplugRegistration?
    private var closed = false

    /// IN transfers kept submitted by default. The host controller fills them whether
    /// or not this process runs; once they are all full the board's 128-byte IN ring
    /// fills, and then its accelerometer's FIFO (32 samples, 24 ms at 1344 Hz), which
    /// then overruns: samples lost. The sensor sends a packet every 4.5 ms (6 samples
    /// at 1344 Hz, PROTOCOL.md "Accelerometer"), so 4 reads let a process stalled ~50 ms
    /// lose samples (seen on a loaded 2-core host); 32 absorb a stall of ~140 ms
    /// before the ring and the FIFO's own 24 ms. 2 KiB of buffers.
    public static let defaultInFlightReads = 32

    /// Opens `board`, claims its interface and starts reading.
    public init(
        board: USBBridgeBoard, context: USBContext, inFlightReads: Int = USBBridgeTransport.defaultInFlightReads,
        logger: Logger = Logger(label: "hapbridge.usb")
    )
        throws(DeviceError)
    {
        self.board = board
        self.context = context
        self.logger = logger
        self.inFlightReads = max(1, inFlightReads)
        shared = Shared(logger: logger)
        try attach(board)
        // Without hotplug (no udev) a vanished board is still seen: its transfers end with NO_DEVICE.
        hotplug = try? context.onHotplug(vendorID: USBIdentity.vendorID, productID: USBIdentity.productID) {
            [shared] event, device in
            shared.hotplug(event, bus: device.busNumber, ports: device.portNumbers, address: device.address)
        }
    }

    deinit { close() }

    public var summary: String { "\(board) over libusb \(USBContext.version)" }

    public var hostMicroseconds: UInt64 { RealTimeExecutor.monotonicMicroseconds() }
    public var isRealTime: Bool { true }

    public func send(_ bytes: [UInt8]) throws(DeviceError) {
        try shared.check()
        guard let handle, !closed else { throw .disconnected }
        do {
            let transfer = try USBTransfer(handle: handle, endpoint: USBIdentity.bulkOut, capacity: max(1, bytes.count))
            shared.transferStarted()
            try transfer.submit(bytes: bytes, timeoutMilliseconds: 1000) { [shared] t in shared.written(t) }
        } catch {
            shared.transferEnded()
            throw Self.deviceError(error, board: board)
        }
    }

    public func poll() -> [DeviceEvent] {
        if !closed, shared.wantsReattach(bus: board.busNumber, ports: board.portNumbers) { reattach() }
        return shared.takeEvents()
    }

    public func wait(untilHostMicroseconds target: UInt64, isolation: isolated (any Actor)?) async throws(DeviceError) {
        let now = hostMicroseconds
        if target > now {
            // Cancellation only cuts the wait short; frames keep arriving on the event thread.
            try? await Task.sleep(for: .microseconds(Int64(clamping: target - now)))
        }
        try shared.check()
    }

    /// Stops reading, releases the interface and closes the device. Idempotent.
    public func close() {
        guard !closed else { return }
        closed = true
        hotplug = nil
        detach()
    }

    // MARK: attaching

    private func attach(_ board: USBBridgeBoard) throws(DeviceError) {
        do {
            guard let device = try USBBridgeDiscovery.device(for: board, in: context) else {
                throw DeviceError.notFound("no bridge board at usb:\(board.portPath) any more")
            }
            let handle = try device.open()
            try handle.claimInterface(USBIdentity.interfaceNumber)
            self.handle = handle
            self.board.deviceAddress = device.address
            // Discovery may have left the serial to this open (`list` opens each board once).
            if self.board.serialNumber == nil, let index = try? device.descriptor().serialNumberIndex, index != 0 {
                self.board.serialNumber = try? handle.string(at: index)
            }
            shared.connected(bus: device.busNumber, address: device.address)
            for _ in 0..<inFlightReads {
                let t = try USBTransfer(handle: handle, endpoint: USBIdentity.bulkIn, capacity: USBIdentity.bulkPacketSize)
                try shared.read(t)
            }
            logger.debug("opened", metadata: ["board": "\(board)", "node": "\(self.board.deviceNode)"])
        } catch let e as DeviceError {
            detach()
            throw e
        } catch let e as LibUSBError {
            detach()
            throw Self.deviceError(e, board: board)
        } catch {
            detach()
            throw .io("\(error)")
        }
    }

    private func detach() {
        shared.cancelReads()
        if let handle { try? handle.releaseInterface(USBIdentity.interfaceNumber) }
        handle = nil
    }

    /// The board came back on its port: reopen it if it is the same board (serial).
    private func reattach() {
        detach()
        // Only this port is looked at (and opened): the other boards are not this one.
        guard let found = try? USBDiscovery.devices(onPort: board.port, in: context).compactMap(\.bridgeBoard).first
        else { return }
        guard board.serialNumber == nil || found.serialNumber == board.serialNumber else {
            logger.notice("another board on usb:\(board.portPath): serial \(found.serialNumber ?? "?"), not \(board.serialNumber ?? "?")")
            return
        }
        do {
            try attach(found)
            board = found
            shared.reappeared()
            logger.info("re-plugged: \(board)")
        } catch {
            logger.notice("re-plugged board could not be reopened: \(error)")
        }
    }

    /// What a libusb failure on this board means for a user.
    public static func deviceError(_ error: LibUSBError, board: USBBridgeBoard) -> DeviceError {
        deviceError(error, node: board.deviceNode, port: board.port, what: "the bridge board")
    }

    /// The same for any device discovery found (`what`: "the bridge board", "the FTDI FT232H", …).
    public static func deviceError(_ error: LibUSBError, node: String, port: USBPort, what: String) -> DeviceError {
        // Qualified: a bare `.busy` or `.timeout` here is DeviceError.Kind's, whose `~=`
        // takes any Error and never matches a LibUSBError (LIBUSB_ERROR_BUSY came out as
        // an I/O failure, and `list` said "error" for a board another program held).
        switch error {
        case LibUSBError.access: .accessDenied(device: "\(node) (usb:\(port.path))", advice: error.advice ?? "")
        case LibUSBError.busy: .busy(device: "\(what) at usb:\(port.path)")
        case LibUSBError.noDevice: .disconnected
        case LibUSBError.timeout: .timeout("\(what) at usb:\(port.path) did not take the data")
        default: .io("\(error)" + (error.advice.map { ": \($0)" } ?? ""))
        }
    }
}

extension USBBridgeTransport: LinkDiagnostics {
    public var diagnostics: (any LinkDiagnostics)? { self }
    public var discardedBytes: Int { shared.state.withLock { $0.decoder.skippedBytes } }
}

extension USBBridgeTransport {
    /// What the event thread and the owner share, behind one lock.
    final class Shared: Sendable {
        struct State {
            var events: [DeviceEvent] = []
            var decoder = FrameStreamDecoder()
            var reads: [USBTransfer] = []
            var isConnected = false
            var stopping = false
            /// Transfers submitted and not yet completed (reads and writes).
            var inFlight = 0
            var failure: DeviceError?
            var bus: UInt8 = 0
            var address: UInt8 = 0
            /// A board arrived on some port since the last look (bus, ports).
            var arrivals: [(UInt8, [UInt8])] = []
        }
        let state = Mutex(State())
        let logger: Logger
        let idle = DispatchSemaphore(value: 0)
        init(logger: Logger) { self.logger = logger }

        func connected(bus: UInt8, address: UInt8) {
            state.withLock {
                $0.isConnected = true
                $0.bus = bus
                $0.stopping = false
                $0.failure = nil
                $0.address = address
                $0.decoder.reset()
            }
        }

        func check() throws(DeviceError) {
            let (ok, failure) = state.withLock { ($0.isConnected, $0.failure) }
            if let failure { throw failure }
            if !ok { throw .disconnected }
        }

        func transferStarted() { state.withLock { $0.inFlight += 1 } }
        func transferEnded() {
            let last = state.withLock { s -> Bool in
                s.inFlight -= 1
                return s.inFlight == 0 && s.stopping
            }
            if last { idle.signal() }
        }

        func read(_ t: USBTransfer) throws(LibUSBError) {
            state.withLock { $0.reads.append(t) }
            transferStarted()
            do { try t.submit { [self] t in self.readCompleted(t) } } catch {
                transferEnded()
                throw error
            }
        }

        /// On the event thread: stamp, decode, resubmit.
        func readCompleted(_ t: USBTransfer) {
            let now = RealTimeExecutor.monotonicMicroseconds()
            switch t.status {
            case .completed:
                let resubmit = state.withLock { s -> Bool in
                    for f in s.decoder.push(t.received) { s.events.append(.frame(f, receivedAt: now)) }
                    return s.isConnected && !s.stopping
                }
                if resubmit {
                    do { try t.submit { [self] t in self.readCompleted(t) }; return } catch { lost("resubmitting a read failed: \(error)") }
                }
            case .cancelled: break
            case .noDevice: lost("the board left (NO_DEVICE)")
            case let status:
                logger.warning("bulk IN ended with \(status)")
                lost("bulk IN failed: \(status)")
            }
            transferEnded()
        }

        func written(_ t: USBTransfer) {
            switch t.status {
            case .completed: break
            case .noDevice: lost("the board left (NO_DEVICE)")
            case let status:
                state.withLock { $0.failure = $0.failure ?? .io("bulk OUT ended with \(status)") }
            }
            transferEnded()
        }

        func lost(_ why: String) {
            let report = state.withLock { s -> Bool in
                guard s.isConnected else { return false }
                s.isConnected = false
                s.events.append(.disconnected)
                return true
            }
            if report { logger.info("disconnected: \(why)") }
        }

        func hotplug(_ event: USBHotplugEvent, bus: UInt8, ports: [UInt8], address: UInt8) {
            switch event {
            case .left:
                // Bus and device number name the one that left (its port path may be gone with it).
                let ours = state.withLock { $0.isConnected && $0.bus == bus && $0.address == address }
                if ours { lost("hotplug: left") }
            case .arrived:
                state.withLock { $0.arrivals.append((bus, ports)) }
            }
        }

        func wantsReattach(bus: UInt8, ports: [UInt8]) -> Bool {
            state.withLock { s in
                let hit = !s.isConnected && s.arrivals.contains { $0.0 == bus && $0.1 == ports }
                s.arrivals.removeAll()
                return hit
            }
        }

        func reappeared() { state.withLock { $0.events.append(.reappeared) } }

        func takeEvents() -> [DeviceEvent] {
            state.withLock { s in
                defer { s.events.removeAll() }
                return s.events
            }
        }

        /// Cancels the reads and waits (bounded) until libusb has handed every
        /// transfer back, so the handle can be closed safely.
        func cancelReads() {
            let (reads, busy) = state.withLock { s -> ([USBTransfer], Bool) in
                s.stopping = true
                s.isConnected = false
                defer { s.reads.removeAll() }
                return (s.reads, s.inFlight > 0)
            }
            for r in reads { r.cancel() }
            if busy { _ = idle.wait(timeout: .now() + .seconds(2)) }
        }
    }
}
