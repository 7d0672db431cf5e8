// The bench types (`HardwareDevice`, `AccelerationTrace`, `BridgeBench`,
// `HardwareReport`, `BenchProcedures`, `PlaySession`) live in the Bench library, which
// `play` and the HIL code share; the CLI re-exports it so its callers see them as the
// commands' own.
@_exported import Bench
import Devices

extension BridgeBench {
    /// A bench session for a hardware command: a signal (`Interruption`) cuts any wait
    /// of the session short, and a failure is one line (status 1), or the signal's exit
    /// status when a signal caused it.
    static func open(_ opened: borrowing OpenedDevice) async throws -> BridgeBench {
        do { return try await BridgeBench(opened, interruption: { Interruption.shared.reason }) } catch {
            try Interruption.shared.exitIfInterrupted()
            throw CLIError(TerminalText.safe(error.description))
        }
    }
}
