import DeviceInterface
import HostedBoard
import LibFTDI
import MPSSE
#if canImport(Glibc)
import Glibc
#endif

/// The FT232H as the device catalog opens it (`ftdi`, `ftdi:SERIAL`): a DRV2605 on its
/// MPSSE I2C (`FT232HHostedI2C`), played through the firmware core hosted in the player,
/// its guardian process (`FT232HGuardian`, `hapbridge guard-ft232h`) stopping the chip if
/// the player dies, is stopped or hangs. Hardware/boards/ft232h.md has the wiring.
public struct FT232HAdapter: HostedAdapter {
    public let scheme = "ftdi"
    public let name = "FT232H"

    public init() {}

    /// The hapbridge subcommand that runs the guardian (`GuardFT232HCommand`).
    public static let guardianSubcommand = "guard-ft232h"

    /// `HAPBRIDGE_FT232H_TIMING` set: the stamped writes' lateness on standard error at close.
    static let timingSwitch = "HAPBRIDGE_FT232H_TIMING"

    /// Opens the FT232H and, with `settings.guardian`, starts its guardian once the FT232H
    /// is open (it takes the adapter by the usbfs node libusb opened) and before the chip
    /// is brought up. A guardian that cannot be started, or ends before it is ready, is an
    /// error: nothing is driven unguarded unless the caller asked (no guardian command).
    public func open(serial: String?, settings: HostedAdapterSettings) throws(HostedAdapterError) -> HostedAdapterConnection {
        let address = DeviceAddress.ftdi(serial: serial)
        // Plain `ftdi`: the first FT232H's serial, read before it is opened and then opened
        // by it, so the serial the core states is the opened adapter's (libftdi's
        // ftdi_usb_get_strings2, the USB serial string: the FT232H's EEPROM).
        let named = serial ?? firstSerial()
        let port: FT232HHostedI2C
        do { port = try FT232HHostedI2C(serial: named, sclHz: settings.i2cClockHz) } catch {
            throw .open(DeviceError.notFound("\(address): \(error.description)"))
        }
        let command: GuardianCommand?
        switch settings.guardian {
        case .none: command = nil
        case .command(let c): command = c
        case .installed:
            guard let found = GuardianCommand.installedHapbridge(arguments: [Self.guardianSubcommand]) else {
                port.shutDown()
                throw .refused(
                    "\(address): no hapbridge executable beside this program or on PATH to run the FT232H's guardian "
                        + "(`hapbridge \(Self.guardianSubcommand)`): without it nothing would stop the chip if this program died, "
                        + "were stopped or hung, so it is not driven (install hapbridge, or open with HostedAdapterSettings(guardian: .none) to drive unguarded)")
            }
            command = found
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
                        + "player died, were stopped or hung, so it is not driven (HAPBRIDGE_FT232H_GUARDIAN=off plays without one)")
            }
        }
        return HostedAdapterConnection(
            port: port, serial: named, guardian: guardian, reportsTiming: getenv(Self.timingSwitch) != nil)
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
