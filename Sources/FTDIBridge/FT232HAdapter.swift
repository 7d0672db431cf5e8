import DeviceInterface
import HostedBoard
import LibFTDI
import MPSSE
#if canImport(Glibc)
import Glibc
#endif

/// The FT232H as the device catalog opens it (`ftdi`, `ftdi:SERIAL`): a DRV2605 on its
/// MPSSE I2C (`FT232HHostedI2C`), played through the firmware core hosted in the player,
/// its guardian process (`FT232HGuardian`, `hapbridge guard ftdi`) stopping the chip if
/// the player dies, is stopped or hangs. Hardware/boards/ft232h.md has the wiring.
public struct FT232HAdapter: HostedAdapter {
    public let scheme = "ftdi"
    public let name = "FT232H"
    public let nameWithArticle = "an FT232H"
    public let wiringDocument = "Hardware/boards/ft232h.md"
    public var usbIdentity: (vendorID: UInt16, productID: UInt16) { (FT232HIdentity.vendorID, FT232HIdentity.productID) }
    public var guardianProcessName: String { FT232HGuardian.processName }

    public init() {}

    /// `HAPBRIDGE_FT232H_TIMING` set: the stamped writes' lateness on standard error at close.
    static let timingSwitch = "HAPBRIDGE_FT232H_TIMING"
    /// `HAPBRIDGE_FT232H_GUARDIAN=off`: no guardian, whatever the settings ask (what the
    /// tests use to show the chip keeps driving when an unguarded player dies).
    static let guardianSwitch = "HAPBRIDGE_FT232H_GUARDIAN"

    /// Opens the FT232H and, with `settings.guardian`, starts its guardian once the FT232H
    /// is open (it takes the adapter by the usbfs node libusb opened) and before the chip
    /// is brought up. A guardian that cannot be started, or ends before it is ready, is an
    /// error: nothing is driven unguarded unless the caller asked (no guardian command).
    public func open(serial: String?, settings: HostedAdapterSettings) throws(HostedAdapterError) -> HostedAdapterConnection {
        let address = DeviceAddress.hosted(scheme: scheme, serial: serial)
        // Before anything is opened: the clock divisor and the guardian's command line
        // are integers made from it (the catalog checks too; a library may call this).
        if let problem = settings.i2cClockProblem { throw .refused("\(address): \(problem)") }
        // Plain `ftdi`: the first FT232H's serial, read before it is opened and then opened
        // by it, so the serial the core states is the opened adapter's (libftdi's
        // ftdi_usb_get_strings2, the USB serial string: the FT232H's EEPROM).
        let named = serial ?? firstSerial()
        let port: FT232HHostedI2C
        do { port = try FT232HHostedI2C(serial: named, sclHz: settings.i2cClockHz) } catch {
            throw .open(DeviceError.notFound("\(address): \(error.description)"))
        }
        let command: GuardianCommand?
        do {
            command = getenv(Self.guardianSwitch).map { String(cString: $0) } == "off"
                ? nil : try settings.guardian.command(for: self, address: address.description)
        } catch {
            port.shutDown()
            throw error
        }
        var guardian: FT232HGuardian?
        if let command {
            do throws(FT232HGuardianError) {
                guard let node = port.usbDevicePath else { throw .spawn("libusb did not say which device node the FT232H is") }
                guardian = try FT232HGuardian(command: command, usbfs: node, sclHz: settings.i2cClockHz, serial: named)
            } catch {
                port.shutDown()
                throw .refused(
                    "\(address): could not start the FT232H's guardian (\(error)): without it nothing would stop the chip if this "
                        + "player died, were stopped or hung, so it is not driven (\(Self.guardianSwitch)=off plays without one)")
            }
        }
        return HostedAdapterConnection(
            port: port, serial: named, guardian: guardian, reportsTiming: getenv(Self.timingSwitch) != nil)
    }

    /// The guardian's side (`hapbridge guard ftdi`): the FT232H's usbfs node opened
    /// (`FT232HTakeover`), then watched over (`FT232HGuardianWatch`).
    public func runGuardian(_ request: HostedGuardianRequest, say: (String) -> Void) -> HostedGuardianOutcome {
        let takeover: FT232HTakeover
        do { takeover = try FT232HTakeover(path: request.node) } catch { return .cannotWatch(error.description) }
        let watch = FT232HGuardianWatch(player: request.player, serial: request.serial, sclHz: Double(request.sclHz), takeover: takeover)
        switch watch.run(say: say) {
        case .disarmed, .tookOver: return .done
        case .stoppedAfterDeath(let what): return .stoppedAfterDeath(what)
        case .failed(let why): return .failed(why)
        }
    }

    /// The serial of the first FT232H on the bus, nil when there is none or it has none.
    public func firstSerial() -> String? {
        guard let context = try? FTDIContext(),
            let first = try? context.devices(vendor: FT232HIdentity.vendorID, product: FT232HIdentity.productID).first,
            !first.serial.isEmpty
        else { return nil }
        return first.serial
    }
}
