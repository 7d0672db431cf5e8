import CLibUSB
import Foundation
import Logging
import Synchronization

/// A libusb context with its own event thread.
///
/// libusb runs transfer and hotplug callbacks from whichever thread handles events;
/// here that is one dedicated thread per context, started with the context and
/// joined when it goes, so callbacks never run on a caller's thread or in Swift's
/// cooperative pool (whose threads must not block in poll()).
public final class USBContext: @unchecked Sendable {
    // @unchecked: `raw` is immutable after init and libusb contexts are thread-safe;
    // the only mutable state (the event thread's flag) is atomic.
    let raw: OpaquePointer
    let logger: Logger
    private let eventLoop = EventLoopState()

    /// Shared with the event thread: whether to go on, and a signal when it has ended.
    final class EventLoopState: Sendable {
        let running = Atomic<Bool>(true)
        let done = DispatchSemaphore(value: 0)
        /// The event thread's pthread_t, once it runs (0 before).
        let thread = Atomic<UInt>(0)
    }

    /// Whether the caller runs on this context's event thread (inside a callback).
    public var isEventThread: Bool {
        let t = eventLoop.thread.load(ordering: .acquiring)
        return t != 0 && t == UInt(pthread_self())
    }

    /// Opens libusb and starts the event thread.
    public init(logger: Logger = Logger(label: "hapbridge.libusb")) throws(LibUSBError) {
        var context: OpaquePointer?
        try LibUSBError.check(libusb_init(&context))
        guard let context else { throw .other }
        raw = context
        self.logger = logger
        // libusb contexts are thread-safe; the pointer itself is just an address.
        nonisolated(unsafe) let eventContext = context
        let thread = Thread { [eventLoop] in
            eventLoop.thread.store(UInt(pthread_self()), ordering: .releasing)
            var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
            while eventLoop.running.load(ordering: .acquiring) {
                // Returns on any event, after the timeout, or when interrupted at shutdown.
                _ = libusb_handle_events_timeout_completed(eventContext, &timeout, nil)
            }
            eventLoop.done.signal()
        }
        thread.name = "hapbridge.libusb.events"
        // Completions are stamped with the host time they ran at: keep this thread prompt.
        thread.qualityOfService = .userInteractive
        thread.start()
        logger.debug("libusb context opened", metadata: ["version": "\(Self.version)"])
    }

    deinit {
        eventLoop.running.store(false, ordering: .releasing)
        libusb_interrupt_event_handler(raw)
        eventLoop.done.wait()
        libusb_exit(raw)
    }

    /// libusb's version, e.g. "1.0.26".
    public static var version: String {
        guard let v = libusb_get_version() else { return "?" }
        return "\(v.pointee.major).\(v.pointee.minor).\(v.pointee.micro)"
    }

    /// Whether this libusb can report arrivals and departures (udev backend).
    public static var supportsHotplug: Bool { libusb_has_capability(UInt32(LIBUSB_CAP_HAS_HOTPLUG.rawValue)) != 0 }

    /// Every USB device the system lists now.
    public func devices() throws(LibUSBError) -> [USBDevice] {
        var list: UnsafeMutablePointer<OpaquePointer?>?
        let count = try LibUSBError.check(Int32(truncatingIfNeeded: libusb_get_device_list(raw, &list)))
        guard let list else { return [] }
        defer { libusb_free_device_list(list, 1) }
        return (0..<Int(count)).compactMap { list[$0].map { USBDevice(retaining: $0, context: self) } }
    }
}
