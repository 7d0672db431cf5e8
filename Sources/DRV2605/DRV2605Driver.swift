import DeviceInterface

/// The host-side driver for one DRV2605/DRV2605L on an `I2CBus`. Pure logic: every
/// effect on the world goes through the bus, including waiting (see `I2CBus.wait`).
///
/// A value type holding its bus; `Sendable` when the bus is (e.g. an actor on real
/// hardware). Methods are `async` and throw `DRV2605Error` only.
public struct DRV2605Driver<Bus: I2CBus> {
    public let bus: Bus
    public let address: UInt8
    /// Known after `detect()`; methods that depend on the variant call `detect()` if nil.
    public private(set) var variant: DeviceVariant?
    /// How often GO / DEV_RESET are polled.
    public var pollIntervalMicroseconds: UInt64 = 1_000

    public init(bus: Bus, address: UInt8 = DRV2605I2C.address) {
        self.bus = bus
        self.address = address
    }

    // MARK: register access

    public func readRaw(_ register: RegisterAddress) async throws(DRV2605Error) -> UInt8 {
        do { return try await bus.readByte(address: address, register: register.rawValue) } catch { throw .bus(error, register: register) }
    }

    public func readRaw(from register: RegisterAddress, count: Int) async throws(DRV2605Error) -> [UInt8] {
        do { return try await bus.read(address: address, register: register.rawValue, count: count) } catch { throw .bus(error, register: register) }
    }

    public func writeRaw(_ register: RegisterAddress, _ bytes: [UInt8]) async throws(DRV2605Error) {
        do { try await bus.write(address: address, register: register.rawValue, bytes: bytes) } catch { throw .bus(error, register: register) }
    }

    public func read<R: DRV2605Register>(_: R.Type) async throws(DRV2605Error) -> R {
        R(rawValue: try await readRaw(R.address))
    }

    public func write<R: DRV2605Register>(_ value: R) async throws(DRV2605Error) {
        try await writeRaw(R.address, [value.rawValue])
    }

    /// Read-modify-write of one register.
    public func update<R: DRV2605Register>(_: R.Type, _ change: (inout R) -> Void) async throws(DRV2605Error) {
        var value = try await read(R.self)
        change(&value)
        try await write(value)
    }

    public func wait(microseconds: UInt64) async throws(DRV2605Error) {
        do { try await bus.wait(microseconds: microseconds) } catch { throw .waitFailed(error) }
    }

    // MARK: identity, reset, standby

    /// Reads STATUS and names the chip by DEVICE_ID.
    @discardableResult
    public mutating func detect() async throws(DRV2605Error) -> DeviceVariant {
        let status = try await read(StatusRegister.self)
        // With EN low the chip still ACKs but drives no data: 0xFF reads DEVICE_ID 7,
        // a DRV2605L. MODE's reserved bits 5:3 read 0 on a chip that is on.
        if status.rawValue == 0xFF, try await read(ModeRegister.self).rawValue == 0xFF { throw .shutDown }
        guard let v = DeviceVariant(deviceID: status.deviceID) else {
            throw .unknownDevice(deviceID: status.deviceID, status: status.rawValue)
        }
        variant = v
        return v
    }

    mutating func knownVariant() async throws(DRV2605Error) -> DeviceVariant {
        if let variant { return variant }
        return try await detect()
    }

    /// DEV_RESET, then poll until the bit clears (every register back to reset, STANDBY set).
    public func reset(timeoutMicroseconds: UInt64 = 100_000) async throws(DRV2605Error) {
        try await write(ModeRegister(mode: .internalTrigger, standby: false, reset: true))
        var waited: UInt64 = 0
        while true {
            let mode = try await read(ModeRegister.self)
            if !mode.devReset { return }
            guard waited < timeoutMicroseconds else { throw .resetTimedOut(afterMicroseconds: waited) }
            try await wait(microseconds: pollIntervalMicroseconds)
            waited += pollIntervalMicroseconds
        }
    }

    public func setStandby(_ standby: Bool) async throws(DRV2605Error) {
        try await update(ModeRegister.self) { $0.standby = standby }
    }

    public func setMode(_ mode: OperatingMode) async throws(DRV2605Error) {
        // Writing MODE whole also clears STANDBY, which every active mode needs.
        try await write(ModeRegister(mode: mode))
    }

    // MARK: faults

    /// Reads STATUS and throws for OVER_TEMP / OC_DETECT; returns STATUS otherwise.
    @discardableResult
    public func checkFaults() async throws(DRV2605Error) -> StatusRegister {
        let status = try await read(StatusRegister.self)
        if status.overTemperature { throw .overTemperature(status: status.rawValue) }
        if status.overCurrent { throw .overCurrent(status: status.rawValue) }
        return status
    }

    /// Sets GO and polls it until the chip clears it, then checks STATUS for faults.
    public func goAndWait(mode: OperatingMode, timeoutMicroseconds: UInt64) async throws(DRV2605Error) -> StatusRegister {
        try await write(GoRegister(go: true))
        return try await waitForGoClear(mode: mode, timeoutMicroseconds: timeoutMicroseconds)
    }

    public func waitForGoClear(mode: OperatingMode, timeoutMicroseconds: UInt64) async throws(DRV2605Error) -> StatusRegister {
        var waited: UInt64 = 0
        while try await read(GoRegister.self).go {
            guard waited < timeoutMicroseconds else { throw .goTimedOut(mode: mode, afterMicroseconds: waited) }
            try await wait(microseconds: pollIntervalMicroseconds)
            waited += pollIntervalMicroseconds
        }
        return try await checkFaults()
    }

    // MARK: measurements

    /// VBAT: the supply as the chip sees it.
    public func supplyVoltage() async throws(DRV2605Error) -> Double {
        DRV2605Formulas.supplyVolts(code: try await readRaw(.supplyVoltage))
    }

    /// LRA_PERIOD as a frequency; nil when the chip has not measured one (reads 0).
    /// Only meaningful while an LRA is being driven in closed loop.
    public func lraResonanceHz() async throws(DRV2605Error) -> Double? {
        DRV2605Formulas.resonanceHz(lraPeriodCode: try await readRaw(.lraPeriod))
    }
}

extension DRV2605Driver: Sendable where Bus: Sendable {}
