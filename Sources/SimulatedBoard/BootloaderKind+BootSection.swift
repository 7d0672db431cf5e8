import BridgeProtocol
import FirmwareCore

extension BootloaderKind {
    /// What the firmware reports for a boot section holding `bytes`: the firmware's own
    /// scan (`hb_bootloader_kind`, board_identity.c), which the ATmega32U4 port runs over
    /// its boot section at start-up (ports/atmega32u4/identity.c). An emulated board
    /// whose bootloader is modelled reports it as a board with that bootloader would.
    public init(scanningBootSection bytes: [UInt8]) {
        let size = UInt16(clamping: bytes.count)
        let raw = bytes.withUnsafeBufferPointer { buffer -> UInt8 in
            var section = buffer
            return withUnsafeMutablePointer(to: &section) { context in
                hb_bootloader_kind(
                    { context, offset in
                        guard let section = context?.assumingMemoryBound(to: UnsafeBufferPointer<UInt8>.self).pointee,
                            Int(offset) < section.count
                        else { return 0xFF }
                        return section[Int(offset)]
                    }, context, size)
            }
        }
        self.init(rawValue: raw)
    }
}
