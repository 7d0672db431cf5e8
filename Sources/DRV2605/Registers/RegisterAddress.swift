import Hex

/// The chip's fixed 7-bit I2C address (no address pins).
public enum DRV2605I2C {
    public static let address: UInt8 = 0x5A
}

/// Register addresses of the DRV2605 / DRV2605L (TI SLOS825, SLOS854), with their
/// reset values and which bits the host may write. CONTROL5 and OL_LRA_PERIOD
/// exist on the L variant only.
public enum RegisterAddress: UInt8, CaseIterable, Sendable, CustomStringConvertible {
    case status = 0x00
    case mode = 0x01
    case rtpInput = 0x02
    case librarySelection = 0x03
    case waveformSequence1 = 0x04
    case waveformSequence2 = 0x05
    case waveformSequence3 = 0x06
    case waveformSequence4 = 0x07
    case waveformSequence5 = 0x08
    case waveformSequence6 = 0x09
    case waveformSequence7 = 0x0A
    case waveformSequence8 = 0x0B
    case go = 0x0C
    case overdriveTimeOffset = 0x0D
    case sustainPositiveTimeOffset = 0x0E
    case sustainNegativeTimeOffset = 0x0F
    case brakeTimeOffset = 0x10
    case audioToVibeControl = 0x11
    case audioToVibeMinInput = 0x12
    case audioToVibeMaxInput = 0x13
    case audioToVibeMinOutput = 0x14
    case audioToVibeMaxOutput = 0x15
    case ratedVoltage = 0x16
    case overdriveClamp = 0x17
    case autoCalibrationCompensation = 0x18
    case autoCalibrationBackEMF = 0x19
    case feedbackControl = 0x1A
    case control1 = 0x1B
    case control2 = 0x1C
    case control3 = 0x1D
    case control4 = 0x1E
    case control5 = 0x1F
    case openLoopLRAPeriod = 0x20
    case supplyVoltage = 0x21
    case lraPeriod = 0x22

    /// The eight sequencer slots, in order (their addresses are consecutive so one
    /// auto-incrementing write fills them all).
    public static let waveformSequence: [RegisterAddress] = [
        .waveformSequence1, .waveformSequence2, .waveformSequence3, .waveformSequence4,
        .waveformSequence5, .waveformSequence6, .waveformSequence7, .waveformSequence8,
    ]
    /// Registers the datasheet lets the host store calibration in (and OTP covers).
    public static let calibrationBlock: ClosedRange<UInt8> =
        RegisterAddress.ratedVoltage.rawValue...RegisterAddress.feedbackControl.rawValue

    public var datasheetName: String {
        switch self {
        case .status: "STATUS"
        case .mode: "MODE"
        case .rtpInput: "RTP_INPUT"
        case .librarySelection: "LIBRARY_SEL"
        case .waveformSequence1, .waveformSequence2, .waveformSequence3, .waveformSequence4,
            .waveformSequence5, .waveformSequence6, .waveformSequence7, .waveformSequence8:
            "WAV_FRM_SEQ\(rawValue - RegisterAddress.waveformSequence1.rawValue + 1)"
        case .go: "GO"
        case .overdriveTimeOffset: "ODT"
        case .sustainPositiveTimeOffset: "SPT"
        case .sustainNegativeTimeOffset: "SNT"
        case .brakeTimeOffset: "BRT"
        case .audioToVibeControl: "A2V_CTRL"
        case .audioToVibeMinInput: "A2V_MIN_INPUT"
        case .audioToVibeMaxInput: "A2V_MAX_INPUT"
        case .audioToVibeMinOutput: "A2V_MIN_OUTPUT"
        case .audioToVibeMaxOutput: "A2V_MAX_OUTPUT"
        case .ratedVoltage: "RATED_VOLTAGE"
        case .overdriveClamp: "OD_CLAMP"
        case .autoCalibrationCompensation: "A_CAL_COMP"
        case .autoCalibrationBackEMF: "A_CAL_BEMF"
        case .feedbackControl: "FEEDBACK_CONTROL"
        case .control1: "CONTROL1"
        case .control2: "CONTROL2"
        case .control3: "CONTROL3"
        case .control4: "CONTROL4"
        case .control5: "CONTROL5"
        case .openLoopLRAPeriod: "OL_LRA_PERIOD"
        case .supplyVoltage: "VBAT"
        case .lraPeriod: "LRA_PERIOD"
        }
    }

    public var description: String { "\(datasheetName) (\(Hex.literal(rawValue, width: 2)))" }

    /// Present on this variant? (CONTROL5 and OL_LRA_PERIOD are DRV2605L/DRV2604L only.)
    public func exists(on variant: DeviceVariant) -> Bool {
        switch self {
        case .control5, .openLoopLRAPeriod: variant.isLVariant
        default: true
        }
    }

    /// The value after power-up or DEV_RESET. STATUS carries the DEVICE_ID; VBAT and
    /// LRA_PERIOD are measurements and start at zero.
    public func resetValue(on variant: DeviceVariant) -> UInt8 {
        switch self {
        case .status:
            var s = StatusRegister(rawValue: 0)
            s.deviceID = variant.deviceID
            return s.rawValue
        case .mode: return 0x40  // STANDBY set
        case .librarySelection: return 0x01  // ERM library A
        case .waveformSequence1: return 0x01  // Strong Click 100 %
        case .audioToVibeControl: return 0x05
        case .audioToVibeMinInput: return 0x19
        case .audioToVibeMaxInput: return 0xFF
        case .audioToVibeMinOutput: return 0x19
        case .audioToVibeMaxOutput: return 0xFF
        case .ratedVoltage: return variant.isLVariant ? 0x3E : 0x3F
        case .overdriveClamp: return variant.isLVariant ? 0x8C : 0x89
        case .autoCalibrationCompensation: return 0x0C
        case .autoCalibrationBackEMF: return 0x6C
        case .feedbackControl: return 0x36
        case .control1: return 0x93
        case .control2: return 0xF5
        case .control3: return 0xA0
        case .control4: return 0x20
        case .control5: return variant.isLVariant ? 0x80 : 0x00
        case .openLoopLRAPeriod: return variant.isLVariant ? 0x33 : 0x00
        default: return 0x00
        }
    }

    /// Bits a host write changes; the rest are read-only (or reserved) and keep their value.
    public func writableMask(on variant: DeviceVariant) -> UInt8 {
        guard exists(on: variant) else { return 0 }
        switch self {
        case .status, .supplyVoltage, .lraPeriod: return 0
        case .mode: return ModeRegister.devResetField.mask | ModeRegister.standbyField.mask | ModeRegister.modeField.mask
        case .librarySelection: return LibrarySelectionRegister.highImpedanceField.mask | LibrarySelectionRegister.libraryField.mask
        case .go: return GoRegister.goField.mask
        case .control4:
            return Control4Register.zeroCrossDetectTimeField.mask | Control4Register.autoCalibrationTimeField.mask
                | Control4Register.otpProgramField.mask
        case .openLoopLRAPeriod: return OpenLoopLRAPeriodRegister.periodField.mask
        case .audioToVibeControl:
            return AudioToVibeControlRegister.peakTimeField.mask | AudioToVibeControlRegister.filterField.mask
        default: return 0xFF
        }
    }
}
