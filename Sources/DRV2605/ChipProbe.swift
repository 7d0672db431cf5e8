import DeviceInterface

/// What a probe of the chip at 0x5A means when it found no DRV260x, in the words a user
/// at the bench needs: the board's probe (HELLO_REPLY's DEVICE_ID, 0xFF when nothing
/// acknowledged) and the driver's own (`DRV2605Error.unknownDevice`) say it alike.
public enum ChipProbe {
    /// The DEVICE_IDs the DRV260x family reads (STATUS bits 7:5, datasheet §8.6.1).
    public static let expected = "expected DEVICE_ID 3 (DRV2605), 4, 6 or 7 (DRV2605L)"

    /// A bus that reads every bit 0: no DRV260x reads DEVICE_ID 0, but a bus whose SDA
    /// is held low (no pull-ups, a short) reads every bit, the ACKs included, as 0.
    public static let everyBitLow = "every bit read 0, as when SDA is held low: are there pull-ups on SDA and SCL? is SDA shorted to GND?"

    /// What to check when nothing acknowledges 0x5A and the adapter has no advice of its
    /// own (`FrameTransport.i2cNoAcknowledgeAdvice`, the FT232H's SDA on two pins): the
    /// bus's general checks, as a NACK's `I2CError` gives them.
    public static let noAcknowledgeAdvice = I2CError.noAcknowledgeAdvice

    /// The sentence for a probe that found DEVICE_ID `deviceID` (0xFF: no ACK), with the
    /// adapter's advice for a NACK where it has one.
    public static func notFound(deviceID: UInt8, advice: String?) -> String {
        switch deviceID {
        case 0xFF: "no DRV2605 answered at 0x5A on the board's I2C bus (\(advice ?? noAcknowledgeAdvice))"
        case 0x00: "unknown chip DEVICE_ID 0: \(everyBitLow) \(expected)"
        default: "unknown chip DEVICE_ID \(deviceID): \(expected)"
        }
    }
}
