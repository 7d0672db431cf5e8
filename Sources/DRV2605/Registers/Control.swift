/// CONTROL1 (0x1B).
public struct Control1Register: DRV2605Register {
    public static let address = RegisterAddress.control1
    public static let startupBoostField = BitField(shift: 7, width: 1)
    public static let acCoupleField = BitField(shift: 5, width: 1)
    public static let driveTimeField = BitField(shift: 0, width: 5)
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public var startupBoost: Bool {
        get { Self.startupBoostField.getFlag(rawValue) }
        set { Self.startupBoostField.setFlag(&rawValue, newValue) }
    }
    public var acCouple: Bool {
        get { Self.acCoupleField.getFlag(rawValue) }
        set { Self.acCoupleField.setFlag(&rawValue, newValue) }
    }
    public var driveTime: UInt8 {
        get { Self.driveTimeField.get(rawValue) }
        set { Self.driveTimeField.set(&rawValue, newValue) }
    }
}

/// CONTROL2 (0x1C).
public struct Control2Register: DRV2605Register {
    public static let address = RegisterAddress.control2
    public static let bidirectionalInputField = BitField(shift: 7, width: 1)
    public static let brakeStabilizerField = BitField(shift: 6, width: 1)
    public static let sampleTimeField = BitField(shift: 4, width: 2)
    public static let blankingTimeField = BitField(shift: 2, width: 2)
    public static let currentDissipationTimeField = BitField(shift: 0, width: 2)
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public var bidirectionalInput: Bool {
        get { Self.bidirectionalInputField.getFlag(rawValue) }
        set { Self.bidirectionalInputField.setFlag(&rawValue, newValue) }
    }
    public var brakeStabilizer: Bool {
        get { Self.brakeStabilizerField.getFlag(rawValue) }
        set { Self.brakeStabilizerField.setFlag(&rawValue, newValue) }
    }
    /// SAMPLE_TIME code: 150, 200, 250, 300 us (LRA back-EMF sample time).
    public var sampleTime: UInt8 {
        get { Self.sampleTimeField.get(rawValue) }
        set { Self.sampleTimeField.set(&rawValue, newValue) }
    }
    public var blankingTime: UInt8 {
        get { Self.blankingTimeField.get(rawValue) }
        set { Self.blankingTimeField.set(&rawValue, newValue) }
    }
    public var currentDissipationTime: UInt8 {
        get { Self.currentDissipationTimeField.get(rawValue) }
        set { Self.currentDissipationTimeField.set(&rawValue, newValue) }
    }
    /// SAMPLE_TIME codes in microseconds.
    public static let sampleTimesMicroseconds: [Double] = [150, 200, 250, 300]
    public var sampleTimeMicroseconds: Double { Self.sampleTimesMicroseconds[Int(sampleTime)] }
}

/// CONTROL3 (0x1D).
public struct Control3Register: DRV2605Register {
    public static let address = RegisterAddress.control3
    public static let noiseGateThresholdField = BitField(shift: 6, width: 2)
    public static let ermOpenLoopField = BitField(shift: 5, width: 1)
    public static let supplyCompensationDisableField = BitField(shift: 4, width: 1)
    public static let dataFormatRTPField = BitField(shift: 3, width: 1)
    public static let lraDriveModeField = BitField(shift: 2, width: 1)
    public static let inputIsAnalogField = BitField(shift: 1, width: 1)
    public static let lraOpenLoopField = BitField(shift: 0, width: 1)
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public var ermOpenLoop: Bool {
        get { Self.ermOpenLoopField.getFlag(rawValue) }
        set { Self.ermOpenLoopField.setFlag(&rawValue, newValue) }
    }
    public var supplyCompensationDisabled: Bool {
        get { Self.supplyCompensationDisableField.getFlag(rawValue) }
        set { Self.supplyCompensationDisableField.setFlag(&rawValue, newValue) }
    }
    /// DATA_FORMAT_RTP: true = unsigned (0x00...0xFF), false = signed (two's complement).
    public var rtpUnsigned: Bool {
        get { Self.dataFormatRTPField.getFlag(rawValue) }
        set { Self.dataFormatRTPField.setFlag(&rawValue, newValue) }
    }
    public var lraDriveTwicePerCycle: Bool {
        get { Self.lraDriveModeField.getFlag(rawValue) }
        set { Self.lraDriveModeField.setFlag(&rawValue, newValue) }
    }
    /// N_PWM_ANALOG: true = analog input on IN/TRIG, false = PWM.
    public var inputIsAnalog: Bool {
        get { Self.inputIsAnalogField.getFlag(rawValue) }
        set { Self.inputIsAnalogField.setFlag(&rawValue, newValue) }
    }
    public var lraOpenLoop: Bool {
        get { Self.lraOpenLoopField.getFlag(rawValue) }
        set { Self.lraOpenLoopField.setFlag(&rawValue, newValue) }
    }
}

/// AUTO_CAL_TIME codes.
public enum AutoCalibrationTime: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case ms150 = 0, ms250 = 1, ms500 = 2, ms1000 = 3
    /// The minimum calibration time; the model takes exactly this long.
    public var microseconds: UInt64 {
        switch self {
        case .ms150: 150_000
        case .ms250: 250_000
        case .ms500: 500_000
        case .ms1000: 1_000_000
        }
    }
    public var description: String { "\(microseconds / 1000) ms" }
}

/// CONTROL4 (0x1E).
public struct Control4Register: DRV2605Register {
    public static let address = RegisterAddress.control4
    public static let zeroCrossDetectTimeField = BitField(shift: 6, width: 2)
    public static let autoCalibrationTimeField = BitField(shift: 4, width: 2)
    public static let otpStatusField = BitField(shift: 2, width: 1)
    public static let otpProgramField = BitField(shift: 0, width: 1)
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public var zeroCrossDetectTime: UInt8 {
        get { Self.zeroCrossDetectTimeField.get(rawValue) }
        set { Self.zeroCrossDetectTimeField.set(&rawValue, newValue) }
    }
    public var autoCalibrationTime: AutoCalibrationTime {
        get { AutoCalibrationTime(rawValue: Self.autoCalibrationTimeField.get(rawValue)) ?? .ms150 }
        set { Self.autoCalibrationTimeField.set(&rawValue, newValue.rawValue) }
    }
    public var otpProgrammed: Bool { Self.otpStatusField.getFlag(rawValue) }
}

/// CONTROL5 (0x1F, L variants only).
public struct Control5Register: DRV2605Register {
    public static let address = RegisterAddress.control5
    public static let autoOpenLoopCountField = BitField(shift: 6, width: 2)
    public static let lraAutoOpenLoopField = BitField(shift: 5, width: 1)
    public static let playbackIntervalField = BitField(shift: 4, width: 1)
    public static let blankingTimeHighField = BitField(shift: 2, width: 2)
    public static let currentDissipationTimeHighField = BitField(shift: 0, width: 2)
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// PLAYBACK_INTERVAL: true = 1 ms library timing step, false = 5 ms.
    public var oneMillisecondPlaybackInterval: Bool {
        get { Self.playbackIntervalField.getFlag(rawValue) }
        set { Self.playbackIntervalField.setFlag(&rawValue, newValue) }
    }
    public var lraAutoOpenLoop: Bool {
        get { Self.lraAutoOpenLoopField.getFlag(rawValue) }
        set { Self.lraAutoOpenLoopField.setFlag(&rawValue, newValue) }
    }
}

/// OL_LRA_PERIOD (0x20, L variants only).
public struct OpenLoopLRAPeriodRegister: DRV2605Register {
    public static let address = RegisterAddress.openLoopLRAPeriod
    public static let periodField = BitField(shift: 0, width: 7)
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public var period: UInt8 {
        get { Self.periodField.get(rawValue) }
        set { Self.periodField.set(&rawValue, newValue) }
    }
}

/// A2V_CTRL (0x11).
public struct AudioToVibeControlRegister: DRV2605Register {
    public static let address = RegisterAddress.audioToVibeControl
    public static let peakTimeField = BitField(shift: 2, width: 2)
    public static let filterField = BitField(shift: 0, width: 2)
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
}
