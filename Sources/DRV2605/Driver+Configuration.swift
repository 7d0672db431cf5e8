import Actuators

extension DRV2605Driver {
    /// Leaves standby and writes the actuator settings (RATED_VOLTAGE, OD_CLAMP,
    /// FEEDBACK_CONTROL, CONTROL1-4, OL_LRA_PERIOD, library). Returns what it wrote.
    @discardableResult
    public mutating func configure(for profile: ActuatorProfile) async throws(DRV2605Error) -> DriveSettings {
        let v = try await knownVariant()
        let settings = try DriveSettings(profile: profile, variant: v)
        try await apply(settings)
        return settings
    }

    public mutating func apply(_ s: DriveSettings) async throws(DRV2605Error) {
        let v = try await knownVariant()
        try await setMode(.internalTrigger)
        try await writeRaw(.ratedVoltage, [s.ratedVoltage, s.overdriveClamp])  // 0x16, 0x17 auto-increment
        try await write(s.feedback)
        try await writeRaw(.control1, [s.control1.rawValue, s.control2.rawValue, s.control3.rawValue, s.control4.rawValue])
        if let period = s.openLoopPeriod {
            guard v.isLVariant else { throw .unsupported(feature: "LRA open loop at OL_LRA_PERIOD", variant: v) }
            var r = OpenLoopLRAPeriodRegister(rawValue: 0)
            r.period = period
            try await write(r)
        }
        if v.hasROMLibraries { try await write(LibrarySelectionRegister(library: s.library)) }
    }

    /// Power-up bring-up: detect, reset, leave standby, configure.
    @discardableResult
    public mutating func bringUp(profile: ActuatorProfile) async throws(DRV2605Error) -> DriveSettings {
        try await detect()
        try await reset()
        try await setStandby(false)
        return try await configure(for: profile)
    }
}
