import BridgeProtocol

extension StandardRequests {
    /// Endpoint 0 of a bridge board whose USB stack is not simulated (the core and
    /// noise boards): the ATmega32U4 port's answers, from `usb_identity.h`'s descriptors
    /// (the firmware's own), with this board's serial number as its string 3.
    /// `bcdDevice` replaces the descriptor's firmware version (an older firmware's).
    static func bridgeBoard(serial: String, bcdDevice: UInt16? = nil) throws(EmulationError) -> StandardRequests {
        let serialNumber: BoardSerialNumber
        do { serialNumber = try BoardSerialNumber(serial) } catch { throw .invalidSerial(error.description) }
        guard let serialDescriptor = USBIdentity.stringDescriptor(serialNumber.text) else {
            throw .invalidSerial("serial number \"\(serial)\" does not fit a USB string descriptor")
        }
        let strings: [[UInt8]] = [
            [4, 3, UInt8(USBIdentity.languageID & 0xFF), UInt8(USBIdentity.languageID >> 8)],
            USBIdentity.stringDescriptor(USBIdentity.manufacturer) ?? [],
            USBIdentity.stringDescriptor(USBIdentity.product) ?? [],
            serialDescriptor,
        ]
        var device = USBIdentity.deviceDescriptor
        if let bcdDevice {
            // USB 2.0, table 9-8: bcdDevice at offset 12, little-endian.
            device[12] = UInt8(truncatingIfNeeded: bcdDevice)
            device[13] = UInt8(truncatingIfNeeded: bcdDevice >> 8)
        }
        do {
            return try StandardRequests(deviceDescriptor: device, configurationDescriptor: USBIdentity.configurationDescriptor, strings: strings)
        } catch {
            throw .enumeration(board: serial, step: "usb_identity.h descriptors", detail: error.description)
        }
    }
}
