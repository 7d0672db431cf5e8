import FileAccess
import Foundation

/// The firmware image this hapbridge carries, for `hapbridge flash` with no IMAGE: the
/// one built from the same sources as this host (the same protocol and USB identity),
/// so a board flashed with it always speaks what this hapbridge speaks.
///
/// Where it is, in order: an installed hapbridge's `PREFIX/share/hapbridge/firmware`
/// (the Debian package); the checkout the running executable was built in
/// (`Firmware/build/hapbridge-32u4.hex`), built there first with `make -C Firmware
/// firmware` when it is missing and the AVR toolchain is installed.
public enum CarriedFirmware {
    public static let fileName = "hapbridge-32u4.hex"

    /// The image's path, or why there is none with what to do.
    public static func locate(executable: URL? = Bundle.main.executableURL, build: Bool = true) throws(FlashError) -> String {
        if let installed = InstalledData.directory("firmware", executable: executable) {
            let path = installed.appendingPathComponent(fileName).path
            if FileManager.default.fileExists(atPath: path) { return path }
        }
        guard let firmware = checkoutFirmwareDirectory(executable: executable) else {
            throw FlashError(.badImage, "no firmware image carried with this hapbridge (looked in PREFIX/share/hapbridge/firmware and the checkout it was built in): give an IMAGE")
        }
        let path = firmware.appendingPathComponent("build/" + fileName).path
        if FileManager.default.fileExists(atPath: path) { return path }
        guard build else { throw FlashError(.badImage, "\(path) is not built: run `make -C \(firmware.path) firmware` (needs gcc-avr and avr-libc)") }
        // Built from the checkout, its output on standard error (progress, as flash's own).
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        make.arguments = ["make", "-C", firmware.path, "firmware"]
        make.standardOutput = FileHandle.standardError
        do { try make.run() } catch {
            throw FlashError(.badImage, "\(path) is not built and make could not run (\(error)): run `make -C \(firmware.path) firmware`")
        }
        make.waitUntilExit()
        guard make.terminationStatus == 0, FileManager.default.fileExists(atPath: path) else {
            throw FlashError(.badImage, "building the firmware failed (make -C \(firmware.path) firmware, exit \(make.terminationStatus)): install gcc-avr and avr-libc (Firmware/apt-packages.txt), or give an IMAGE")
        }
        return path
    }

    /// `Firmware/` in the checkout the executable was built in (`InstalledData.checkout`).
    static func checkoutFirmwareDirectory(executable: URL?) -> URL? {
        InstalledData.checkout(executable: executable)?.appendingPathComponent("Firmware")
    }
}
