// bridge-session-probe [ADDRESS [REG COUNT]]: the product's own path to a bridge board,
// as `hapbridge` takes it — DeviceCatalog opens ADDRESS (default `usb`) through
// USBBridgeTransport (or the FT232H's hosted core for `ftdi`), BridgeSession says HELLO
// and reads the chip's STATUS register (or COUNT bytes from register REG, both hex, in
// one I2C_READ) — run as COMMAND under `hapbridge emulate bridge|ft232h` by
// Tests/USBEmulationTests. One line per step on stdout:
//
//   device address=usb:1-1 summary="..."
//   identity protocol=1.1 firmware=0.2 serial=0001 chip=DRV2605L register_access=yes
//   register address=0x5a register=0x00 value=0xe0
//   error during=open|hello|read kind=device.accessDenied message="..."
//
// Exit status 0 when every step worked, 1 after an error line.
import BridgeLink
import DRV2605
import DeviceInterface
import Devices
import Foundation

/// The error's case path ("device.accessDenied"): what a test can match besides the message.
/// A `DeviceError` is a struct with an open set of kinds (as swift-system's `Errno`): its
/// kind's name ends the path.
func kind(of error: any Error) -> String {
    var names: [String] = []
    var value: Any = error
    while true {
        if let device = value as? DeviceError {
            names.append(device.kind.name)
            break
        }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .enum, let child = mirror.children.first, let label = child.label else { break }
        names.append(label)
        value = child.value
    }
    return names.isEmpty ? String(describing: type(of: error)) : names.joined(separator: ".")
}

func quoted(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        .replacingOccurrences(of: "\n", with: "\\n") + "\""
}

func hex(_ bytes: [UInt8]) -> String { "0x" + bytes.map { String(format: "%02x", $0) }.joined() }

func fail(during step: String, _ error: any Error) -> Never {
    print("error during=\(step) kind=\(kind(of: error)) message=\(quoted("\(error)"))")
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let text = arguments.first ?? "usb"
let span: (register: UInt8, count: Int) = {
    guard arguments.count >= 3 else { return (RegisterAddress.status.rawValue, 1) }
    guard let r = UInt8(arguments[1], radix: 16), let n = Int(arguments[2], radix: 16) else {
        print("usage: bridge-session-probe [ADDRESS [REG COUNT]] (REG and COUNT in hex)")
        exit(2)
    }
    return (r, n)
}()
let address: DeviceAddress
do { address = try DeviceAddress(parsing: text) } catch { fail(during: "address", error) }
let catalog = DeviceCatalog()
let opened: OpenedDevice
do { opened = try catalog.open(address, simulated: SimulatedBoardSetup(actuator: nil)) } catch { fail(during: "open", error) }
print("device address=\(opened.address) summary=\(quoted(opened.summary))")
let session = opened.takeLink()
let identity: BoardIdentity
do { identity = try await session.open() } catch { fail(during: "hello", error) }
print(
    "identity protocol=\(identity.protocolVersion) firmware=\(identity.firmwareVersion) serial=\(identity.serialNumber ?? "-")"
        + " chip=\(identity.chip.map { "\($0)" } ?? "-") register_access=\(identity.canAccessRegisters ? "yes" : "no")")
do {
    let register = span.register
    let value = try await session.read(address: DRV2605I2C.address, register: register, count: span.count)
    print("register address=\(hex([DRV2605I2C.address])) register=\(hex([register])) value=\(hex(value))")
} catch {
    fail(during: "read", error)
}
