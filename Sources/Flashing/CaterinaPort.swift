import Foundation

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
                (try? String(contentsOfFile: usb + "/" + file, encoding: .utf8)).flatMap { UInt16($0.trimmingCharacters(in: .whitespacesAndNewlines), radix: 16) }
            }
            guard let v = id("idVendor"), let p = id("idProduct"), identities.contains(where: { $0.vendorID == v && $0.productID == p }) else { return nil }
            return "/dev/" + name
        }
    }
}
