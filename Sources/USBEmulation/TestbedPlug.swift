import CUMockdev

extension Testbed {
    /// A device model on the bus as the kernel would put it there: enumerated
    /// (`KernelEnumeration`), its sysfs record made, usbfs (`USBDevFSHandler`) answering
    /// its node, then the record added ("add" uevent). `attached` runs between the
    /// handler's attach and the uevent, for an owner that must know the handler before
    /// a client can hear of the device. On a failure nothing is left on the bus.
    func plug(
        _ model: any USBDeviceModel, bus: Int, port: Int, address: UInt8, board: String,
        attached: (USBDevFSHandler) -> Void = { _ in }
    ) throws(EmulationError) -> (record: USBDeviceRecord, handler: USBDevFSHandler) {
        let (description, configuration) = try KernelEnumeration.enumerate(model, address: address, board: board)
        let record = USBDeviceRecord(bus: bus, port: port, address: Int(address), description: description, configuration: configuration)
        let handler = USBDevFSHandler(
            device: model, description: description, address: address, configuration: configuration,
            configurationChanged: { [self] value in
                setAttribute(record.syspath, "bConfigurationValue", USBDeviceRecord.configurationAttribute(value))
            })
        model.connect(to: handler)
        let ioctl = handler.makeIoctlHandler()
        defer { g_object_unref(ioctl) }  // the testbed keeps its own reference
        do throws(EmulationError) {
            try attach(ioctl, to: record.node)
            attached(handler)
            try add(record: record.text)
        } catch {
            handler.disconnect()
            throw error
        }
        return (record, handler)
    }
}
