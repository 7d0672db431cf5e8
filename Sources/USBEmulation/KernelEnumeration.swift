import Foundation
import Hex
import SimavrBridgeDevice
import Synchronization

/// What Linux does with a device that appears on a port, before any program sees it
/// (hub_port_init, usb_new_device, usb_choose_configuration): reset the port, read
/// the first 8 bytes of the device descriptor at address 0 (Linux asks for 64),
/// assign the address, read the device descriptor, every configuration descriptor
/// and the strings sysfs shows, then select the configuration a driver-less device
/// gets (its first). The answers are the device's own: the record libusb later
/// reads is built from them.
enum KernelEnumeration {
    /// Longest wait for one answer: a harness that is slow to boot is still well inside.
    static let timeoutSeconds: Double = 10

    static func enumerate(_ device: any USBDeviceModel, address: UInt8, board: String) throws(EmulationError) -> (USBDeviceDescription, UInt8) {
        func fail(_ step: String, _ detail: String) -> EmulationError { .enumeration(board: board, step: step, detail: detail) }
        func request(_ step: String, _ setup: USBSetupPacket) throws(EmulationError) -> [UInt8] {
            switch wait(step, board: board, { done in device.control(setup, data: [], completion: done) }) {
            case .success(.done(let data)): return data
            case .success(.stall): throw fail(step, "the device STALLed it")
            case .success(.gone): throw fail(step, "the device is gone")
            case .failure(let e): throw e
            }
        }
        func descriptor(_ step: String, type: UInt8, index: UInt8, language: UInt16 = 0, length: UInt16) throws(EmulationError) -> [UInt8] {
            try request(
                step, USBSetupPacket(requestType: 0x80, request: StandardRequest.getDescriptor, value: UInt16(type) << 8 | UInt16(index), index: language, length: length))
        }

        if case .failure(let e) = wait("bus reset", board: board, { done in device.busReset { done(.done([])) } }) { throw e }
        let first = try descriptor("GET_DESCRIPTOR(device, 64) at address 0", type: 1, index: 0, length: 64)
        guard first.count >= 8, first[1] == 1 else { throw fail("GET_DESCRIPTOR(device, 64)", "\(Hex.bytes(first, case: .lower)) is no device descriptor") }
        _ = try request("SET_ADDRESS(\(address))", USBSetupPacket(requestType: 0x00, request: StandardRequest.setAddress, value: UInt16(address)))
        let device18 = try descriptor("GET_DESCRIPTOR(device, 18)", type: 1, index: 0, length: 18)
        guard device18.count == 18 else { throw fail("GET_DESCRIPTOR(device, 18)", "\(device18.count) bytes") }
        var configurations: [[UInt8]] = []
        for i in 0..<device18[17] {
            let head = try descriptor("GET_DESCRIPTOR(configuration \(i), 9)", type: 2, index: i, length: 9)
            guard head.count == 9 else { throw fail("GET_DESCRIPTOR(configuration \(i), 9)", "\(head.count) bytes") }
            configurations.append(try descriptor("GET_DESCRIPTOR(configuration \(i), \(le16(head, 2)))", type: 2, index: i, length: le16(head, 2)))
        }
        // String 0 lists the languages; Linux reads the others in the first one.
        var strings: [UInt8: String] = [:]
        let indexes = Set([device18[14], device18[15], device18[16]]).subtracting([0])
        if !indexes.isEmpty {
            let languages = try descriptor("GET_DESCRIPTOR(string 0)", type: 3, index: 0, length: 255)
            guard languages.count >= 4 else { throw fail("GET_DESCRIPTOR(string 0)", "\(Hex.bytes(languages, case: .lower)) lists no language") }
            let language = le16(languages, 2)
            for i in indexes.sorted() {
                let bytes = try descriptor("GET_DESCRIPTOR(string \(i))", type: 3, index: i, language: language, length: 255)
                do { strings[i] = try USBDeviceDescription.text(ofStringDescriptor: bytes) } catch {
                    throw fail("GET_DESCRIPTOR(string \(i))", error.description)
                }
            }
        }
        let description: USBDeviceDescription
        do {
            description = try USBDeviceDescription(
                device: device18, configurations: configurations, manufacturer: strings[device18[14]], product: strings[device18[15]],
                serial: strings[device18[16]])
        } catch { throw fail("descriptors", error.description) }
        let value = description.configurations[0].value
        _ = try request("SET_CONFIGURATION(\(value))", USBSetupPacket(requestType: 0x00, request: StandardRequest.setConfiguration, value: UInt16(value)))
        return (description, value)
    }

    /// Starts an asynchronous device call and waits for its answer.
    static func wait(
        _ step: String, board: String, _ start: (@escaping @Sendable (USBPipeResult) -> Void) -> Void
    ) -> Result<USBPipeResult, EmulationError> {
        let answer = Mutex<USBPipeResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        start { result in
            answer.withLock { $0 = result }
            done.signal()
        }
        guard done.wait(timeout: .now() + timeoutSeconds) == .success, let result = answer.withLock({ $0 }) else {
            return .failure(.enumeration(board: board, step: step, detail: "no answer within \(Int(timeoutSeconds)) s"))
        }
        return .success(result)
    }
}
