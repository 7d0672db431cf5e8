import DeviceInterface
import FirmwareImage
import Devices
import Flashing
import Logging
import Measurements

/// The `flash` step: a bridge board programmed as `hapbridge flash --device ADDRESS`
/// programs it, through the same library path (`FlashTarget`): the image loaded and
/// checked first (a refused image is an ERROR naming the file and the rule, and the
/// board is not touched), the running firmware sent into its bootloader with
/// ENTER_BOOTLOADER, the bootloader found on the same port, erased, written, verified
/// and started, and the firmware awaited until it enumerates again and answers HELLO.
enum StepFlash {
    /// The part every bridge board carries (Hardware/boards).
    static let part = AVRPart.atmega32u4
    /// The figures a flash step records: the bytes programmed and the bytes read back equal.
    static let writtenFigure = "written", verifiedFigure = "verified"

    static func run(image: String?, on slot: DeviceSlot, scriptDirectory: String, note: @escaping @Sendable (String) -> Void) async throws(StepProblem)
        -> StepOutcome
    {
        switch slot.spec.address {
        case .simulated: return StepOutcome(verdict: .skipped, message: "the simulated board has no bootloader to flash")
        case .hosted:
            let adapter = DeviceCatalog.hostedAdapter(slot.spec.address)?.nameWithArticle ?? "a hosted adapter"
            return StepOutcome(verdict: .skipped, message: "\(adapter) runs no firmware of ours: nothing to flash")
        case .usb: break
        }
        let loaded = try load(image, relativeTo: scriptDirectory)
        // The board leaving for its bootloader and coming back is expected here: USB
        // events are warnings only (as `hapbridge flash` logs them).
        var logger = Logger(label: "hapbridge.flash")
        logger.logLevel = .warning
        let catalog = DeviceCatalog(logger: logger)
        do throws(FlashError) {
            let target = try await FlashTarget.choose(port: nil, device: slot.spec.address.description, catalog: catalog)
            note("\(target.entry == "enter-bootloader" ? "sent into its bootloader: " : "")\(target.programmer.protocolName) on \(target.location)")
            let progress = FlashProgress.drawn(terminal: false) { line in note(line.trimmingCharacters(in: .whitespacesAndNewlines)) }
            let done = try await target.flash(loaded.image, expected: part, mode: .write, progress: progress, catalog: catalog)
            var message = "flashed \(done.report.imageBytes) bytes of \(loaded.path) through \(done.report.bootloader) on \(target.location), verified"
            if let now = done.firmware { message += "; firmware \(now) answers (it ran \(target.previousFirmware ?? "?"))" }
            return StepOutcome(
                message: message,
                figures: [
                    BenchMeasurement(name: writtenFigure, unit: .bytes, value: Double(done.report.writtenBytes)),
                    BenchMeasurement(name: verifiedFigure, unit: .bytes, value: Double(done.report.verifiedBytes)),
                ])
        } catch {
            throw .error("flash: \(error.message)")
        }
    }

    /// The step's image (relative to the script) or the firmware hapbridge carries,
    /// read and checked for the part before any board is touched.
    static func load(_ image: String?, relativeTo directory: String) throws(StepProblem) -> (path: String, image: FirmwareImage) {
        let path: String
        if let image {
            path = HILRunner.path(image, relativeTo: directory)
        } else {
            do { path = try CarriedFirmware.locate() } catch { throw .error("flash: \(error.message)") }
        }
        // One refusal for every way the image cannot be used, as `hapbridge flash` gives it.
        do { return (path, try FlashPlan.loadImage(path, for: part)) } catch { throw .error("flash: \(error.message)") }
    }
}
