import Actuators
import CHapbridgeProtocol
import DRV2605
import DRV2605Model
import Foundation
import Testing

/// What the board asks of USB (the configuration descriptor's bMaxPower,
/// `HB_USB_MAX_POWER_MA` in usb_identity.h) must cover its worst case: every shipped
/// actuator profile driven at full RTP amplitude by the chip model, from rest (an ERM
/// at stall, an LRA before its back-EMF builds), on top of the board's own budget.
/// USB 2.0 §7.2.1: a bus-powered function draws no more than its descriptor says.
@Suite("Supply current")
struct SupplyCurrentTests {
    /// The board without the actuator: an ATmega32U4 at 16 MHz and 5 V with its USB
    /// pad regulator, the DRV2605L's own quiescent current and a power LED. A budget
    /// above their datasheets' active-mode figures (tens of mA together), not a
    /// measurement; Hardware/boards/README.md gives the same figure.
    static let boardBudgetMilliamps = 50.0

    static var profiles: [String] {
        let dir = ModelBench.profileDirectory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.filter { $0.hasSuffix(".json") && !$0.contains("schema") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// The largest coil current (A) the model draws from the chip's output in 300 ms
    /// of full drive from rest, in the mode the profile plays in.
    static func peakCurrent(_ name: String) throws -> Double {
        let chip = try ModelBench.configuredChip(name)
        try ModelBench.rtp(chip, 127)
        var peak = 0.0
        for _ in 0..<3000 {
            chip.advance(microseconds: DRV2605Chip.stepMicroseconds)
            peak = max(peak, abs(chip.load.actuator?.current ?? 0))
        }
        return peak
    }

    @Test("the descriptor's bMaxPower covers every shipped actuator at full drive, from the chip model, plus the board's budget")
    func maxPowerCoversTheWorstCase() throws {
        #expect(Self.profiles.count >= 5, "profiles found: \(Self.profiles)")
        var worst = (name: "", amps: 0.0)
        for name in Self.profiles {
            let amps = try Self.peakCurrent(name)
            #expect(amps > 0.01, "\(name) drew no current at full drive")
            if amps > worst.amps { worst = (name, amps) }
        }
        let needed = Self.boardBudgetMilliamps + worst.amps * 1000
        #expect(Double(HB_USB_MAX_POWER_MA) >= needed, "worst \(worst.name) \(worst.amps * 1000) mA + board \(Self.boardBudgetMilliamps) mA")
        // Asked for no more than the worst case rounded up to 50 mA: a host budgets ports by it.
        #expect(Double(HB_USB_MAX_POWER_MA) < needed + 50, "bMaxPower \(HB_USB_MAX_POWER_MA) mA, worst case \(needed) mA")
    }
}
