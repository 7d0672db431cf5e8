/// STATUS (0x00, read-only).
public struct StatusRegister: DRV2605Register {
    public static let address = RegisterAddress.status
    public static let deviceIDField = BitField(shift: 5, width: 3)
    public static let diagnosticResultField = BitField(shift: 3, width: 1)
    public static let feedbackStatusField = BitField(shift: 2, width: 1)
    public static let overTemperatureField = BitField(shift: 1, width: 1)
    public static let overCurrentField = BitField(shift: 0, width: 1)

    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var deviceID: UInt8 {
        get { Self.deviceIDField.get(rawValue) }
        set { Self.deviceIDField.set(&rawValue, newValue) }
    }
    /// 1 = the last diagnostic or auto-calibration failed.
    public var diagnosticFailed: Bool {
        get { Self.diagnosticResultField.getFlag(rawValue) }
        set { Self.diagnosticResultField.setFlag(&rawValue, newValue) }
    }
    public var feedbackStatus: Bool {
        get { Self.feedbackStatusField.getFlag(rawValue) }
        set { Self.feedbackStatusField.setFlag(&rawValue, newValue) }
    }
    public var overTemperature: Bool {
        get { Self.overTemperatureField.getFlag(rawValue) }
        set { Self.overTemperatureField.setFlag(&rawValue, newValue) }
    }
    public var overCurrent: Bool {
        get { Self.overCurrentField.getFlag(rawValue) }
        set { Self.overCurrentField.setFlag(&rawValue, newValue) }
    }
}

/// MODE[2:0]: what GO (or the IN/TRIG pin) starts.
public enum OperatingMode: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case internalTrigger = 0
    case externalEdgeTrigger = 1
    case externalLevelTrigger = 2
    case pwmOrAnalogInput = 3
    case audioToVibe = 4
    case realTimePlayback = 5
    case diagnostics = 6
    case autoCalibration = 7

    public var description: String {
        switch self {
        case .internalTrigger: "internal trigger"
        case .externalEdgeTrigger: "external trigger (edge)"
        case .externalLevelTrigger: "external trigger (level)"
        case .pwmOrAnalogInput: "PWM / analog input"
        case .audioToVibe: "audio-to-vibe"
        case .realTimePlayback: "real-time playback"
        case .diagnostics: "diagnostics"
        case .autoCalibration: "auto-calibration"
        }
    }
}

/// MODE (0x01).
public struct ModeRegister: DRV2605Register {
    public static let address = RegisterAddress.mode
    public static let devResetField = BitField(shift: 7, width: 1)
    public static let standbyField = BitField(shift: 6, width: 1)
    public static let modeField = BitField(shift: 0, width: 3)

    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(mode: OperatingMode, standby: Bool = false, reset: Bool = false) {
        rawValue = 0
        self.mode = mode
        self.standby = standby
        self.devReset = reset
    }

    public var devReset: Bool {
        get { Self.devResetField.getFlag(rawValue) }
        set { Self.devResetField.setFlag(&rawValue, newValue) }
    }
    public var standby: Bool {
        get { Self.standbyField.getFlag(rawValue) }
        set { Self.standbyField.setFlag(&rawValue, newValue) }
    }
    /// Every 3-bit value is a mode, so this never fails.
    public var mode: OperatingMode {
        get { OperatingMode(rawValue: Self.modeField.get(rawValue)) ?? .internalTrigger }
        set { Self.modeField.set(&rawValue, newValue.rawValue) }
    }
}

/// GO (0x0C).
public struct GoRegister: DRV2605Register {
    public static let address = RegisterAddress.go
    public static let goField = BitField(shift: 0, width: 1)
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(go: Bool) { rawValue = 0; self.go = go }
    public var go: Bool {
        get { Self.goField.getFlag(rawValue) }
        set { Self.goField.setFlag(&rawValue, newValue) }
    }
}

/// RTP_INPUT (0x02): the amplitude byte; its meaning (signed or unsigned) is set by
/// CONTROL3.DATA_FORMAT_RTP.
public struct RTPInputRegister: DRV2605Register {
    public static let address = RegisterAddress.rtpInput
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
}
