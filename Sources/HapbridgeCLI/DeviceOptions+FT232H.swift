import Bench
import DeviceInterface

extension DeviceOptions {
    /// `--device ftdi` / `ftdi:SERIAL`: the FT232H opened as a bench (nil for any other
    /// address). A failure is one line (status 1), with libftdi's own words. A signal
    /// (`Interruption`) stops the procedure at its next bus access.
    func openFT232H() async throws(CLIError) -> FT232HBench? {
        guard case .ftdi(let serial)? = address else { return nil }
        if simulatorOptionsGiven {
            throw CLIError("--variant, --supply and --simulate-fault apply to the simulated board (--device sim), not \(DeviceAddress.ftdi(serial: serial))")
        }
        do { return try await FT232HBench(serial: serial, sclHz: Double(i2cKHz) * 1000, interruption: { Interruption.shared.reason }) } catch {
            throw CLIError(TerminalText.safe("\(DeviceAddress.ftdi(serial: serial)): \(error.description)"))
        }
    }
}
