import Hex

/// Outcome of the chip's actuator diagnostic (MODE = 6).
public struct DiagnosticsResult: Sendable, Equatable, CustomStringConvertible {
    /// DIAG_RESULT = 0.
    public var passed: Bool
    public var status: UInt8
    public var supplyVolts: Double
    /// LRA only, when the chip measured a period while it drove.
    public var resonanceHz: Double?

    public var description: String {
        var s = passed ? "PASS: actuator present and responding" : "FAIL: actuator open, shorted or not resonating"
        s += " (STATUS \(Hex.literal(status, width: 2)), VBAT \(fmt(supplyVolts, 2)) V"
        if let f = resonanceHz { s += ", resonance \(fmt(f, 1)) Hz" }
        return s + ")"
    }
}

extension DRV2605Driver {
    /// MODE = 6, GO, wait; DIAG_RESULT tells open/short. Does not throw for a failed
    /// diagnostic (that is a result), only for bus errors and over-current/temperature.
    public func runDiagnostics(timeoutMicroseconds: UInt64 = 1_000_000) async throws(DRV2605Error) -> DiagnosticsResult {
        try await setMode(.diagnostics)
        let status = try await goAndWait(mode: .diagnostics, timeoutMicroseconds: timeoutMicroseconds)
        let feedback = try await read(FeedbackControlRegister.self)
        let vbat = try await supplyVoltage()
        let f = feedback.isLRA ? try await lraResonanceHz() : nil
        try await setMode(.internalTrigger)
        return DiagnosticsResult(passed: !status.diagnosticFailed, status: status.rawValue, supplyVolts: vbat, resonanceHz: f)
    }
}
