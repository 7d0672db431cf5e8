import Glibc
import Foundation
import Hex

/// Finds a Caterina bootloader's serial port by its USB identity: every
/// /sys/class/tty/ttyACM* whose USB device (the interface's parent) has one of the
/// VID:PIDs given. Sorted by name; the caller refuses more than one.
public enum CaterinaPort {
    /// `port`: only the one on that USB port ("1-2", as `hapbridge list` shows it).
    public static func find(identities: [(vendorID: UInt16, productID: UInt16)], port: String? = nil, sysfs: String = "/sys/class/tty") -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: sysfs)) ?? []
        return names.filter { $0.hasPrefix("ttyACM") }.sorted().compactMap { name in
            let usb = sysfs + "/" + name + "/device/.."
            if let port {
                // The USB device's sysfs name is its port path (the kernel's "1-2").
                let device = URL(fileURLWithPath: usb).resolvingSymlinksInPath().lastPathComponent
                guard device == port else { return nil }
            }
            func id(_ file: String) -> UInt16? {
                (try? String(contentsOfFile: usb + "/" + file, encoding: .utf8)).flatMap { Hex.value($0.trimmingCharacters(in: .whitespacesAndNewlines), as: UInt16.self) }
            }
            guard let v = id("idVendor"), let p = id("idProduct"), identities.contains(where: { $0.vendorID == v && $0.productID == p }) else { return nil }
            return "/dev/" + name
        }
    }

    /// The USB port ("1-2") and VID:PID of the device a tty belongs to, from sysfs;
    /// nil when it is not on USB (or sysfs does not say).
    public static func usbDevice(ofTTY tty: String, sysfs: String = "/sys/class/tty") -> (port: String, vendorID: UInt16, productID: UInt16)? {
        let name = URL(fileURLWithPath: tty).lastPathComponent
        let usb = sysfs + "/" + name + "/device/.."
        func id(_ file: String) -> UInt16? {
            (try? String(contentsOfFile: usb + "/" + file, encoding: .utf8)).flatMap { Hex.value($0.trimmingCharacters(in: .whitespacesAndNewlines), as: UInt16.self) }
        }
        guard let v = id("idVendor"), let p = id("idProduct") else { return nil }
        return (URL(fileURLWithPath: usb).resolvingSymlinksInPath().lastPathComponent, v, p)
    }

    /// Waits for a Caterina tty: on `port` when given, else one that is not in
    /// `before` (the 1200-baud touch's sketch may come back on another tty name), and
    /// its node under /dev (sysfs shows the tty before udev has made the node).
    /// Looks every 50 ms up to `timeout`, or until `giveUp` says so; nil when none came.
    public static func waitForBootloader(
        identities: [(vendorID: UInt16, productID: UInt16)], port: String?, before: [String], timeout: Duration,
        giveUp: () -> Bool = { false }
    ) -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let found = find(identities: identities, port: port).filter { FileManager.default.fileExists(atPath: $0) }
            if let tty = port == nil ? found.first(where: { !before.contains($0) }) : found.first { return tty }
            if ContinuousClock.now >= deadline || giveUp() { return nil }
            usleep(50_000)
        }
    }

    /// The 1200-baud touch on a sketch's tty (`SerialPort.touch1200`): an Arduino-core
    /// sketch resets into Caterina on it.
    public static func touch1200(_ tty: String) throws(FlashError) { try SerialPort.touch1200(path: tty) }

    /// What to do when no bootloader came: one line for every message that says so.
    public static let manualReset =
        "put it in its bootloader by hand (a Pro Micro has no reset button: short RST to GND twice within a second) and run `hapbridge flash` again within the bootloader's 8 seconds"
}

