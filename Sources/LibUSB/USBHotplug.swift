import CLibUSB

public enum USBHotplugEvent: Sendable, Equatable {
    case arrived, left
}

/// A hotplug callback registration; deregistered when released.
public final class USBHotplugRegistration: @unchecked Sendable {
    // @unchecked: immutable after registration; libusb serialises the callbacks.
    let context: USBContext
    let handle: libusb_hotplug_callback_handle
    let box: Unmanaged<HandlerBox>

    init(context: USBContext, handle: libusb_hotplug_callback_handle, box: Unmanaged<HandlerBox>) {
        self.context = context
        self.handle = handle
        self.box = box
    }

    deinit {
        libusb_hotplug_deregister_callback(context.raw, handle)
        box.release()
    }
}

final class HandlerBox: Sendable {
    let handler: @Sendable (USBHotplugEvent, USBDevice) -> Void
    let context: USBContext
    init(_ handler: @escaping @Sendable (USBHotplugEvent, USBDevice) -> Void, context: USBContext) {
        self.handler = handler
        self.context = context
    }
}

extension USBContext {
    /// Calls `handler` on the event thread when a device with this VID:PID (nil: any)
    /// arrives or leaves (and, with `enumerate`, once for each one already present). The handler
    /// must not block or close devices: hand the work to another thread.
    public func onHotplug(
        vendorID: UInt16?, productID: UInt16?, enumerate: Bool = false,
        _ handler: @escaping @Sendable (USBHotplugEvent, USBDevice) -> Void
    ) throws(LibUSBError) -> USBHotplugRegistration {
        guard USBContext.supportsHotplug else { throw .notSupported }
        let box = Unmanaged.passRetained(HandlerBox(handler, context: self))
        var handle = libusb_hotplug_callback_handle()
        let events = Int32(LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED.rawValue | LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT.rawValue)
        let flags = enumerate ? Int32(LIBUSB_HOTPLUG_ENUMERATE.rawValue) : 0
        let result = libusb_hotplug_register_callback(
            raw, events, flags, vendorID.map(Int32.init) ?? LIBUSB_HOTPLUG_MATCH_ANY, productID.map(Int32.init) ?? LIBUSB_HOTPLUG_MATCH_ANY,
            LIBUSB_HOTPLUG_MATCH_ANY,
            { _, device, event, userData in
                guard let device, let userData else { return 0 }
                let box = Unmanaged<HandlerBox>.fromOpaque(userData).takeUnretainedValue()
                let kind: USBHotplugEvent = event == LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED ? .arrived : .left
                box.handler(kind, USBDevice(retaining: device, context: box.context))
                return 0  // stay registered
            }, box.toOpaque(), &handle)
        guard result >= 0 else {
            box.release()
            throw LibUSBError(rawValue: result)
        }
        return USBHotplugRegistration(context: self, handle: handle, box: box)
    }
}
