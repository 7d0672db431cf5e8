/// What an emulated board reports besides its USB traffic: what reached the chip,
/// and the firmware leaving or rejoining the bus on its own.
enum BoardEvent: Sendable {
    /// One I2C transaction at the DRV2605. `boardMicroseconds` is the firmware's clock
    /// at START (`stopBoardMicroseconds` at STOP, where the simulation has it).
    case i2c(boardMicroseconds: Double, stopBoardMicroseconds: Double?, hostMicroseconds: UInt64, isWrite: Bool, address: UInt8, bytes: [UInt8], acknowledged: Bool)
    /// Host bytes the firmware took from bulk OUT, at its clock; `submittedHostMicroseconds`
    /// is when the transfer reached the device model (the host's side of the bus).
    case bulkOut(boardMicroseconds: Double, hostMicroseconds: UInt64, submittedHostMicroseconds: UInt64, bytes: [UInt8])
    /// The device left the bus (the bootloader jump detaches it).
    case left(reason: String)
    /// The firmware restarted and is on the bus again, waiting to be enumerated.
    case returned(reason: String)
    /// The board stopped working (a simulation error, the harness died).
    case failed(String)
}
