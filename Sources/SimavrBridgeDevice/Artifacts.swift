import FileAccess
import Foundation

extension SimavrBridgeDevice {
    /// Where the harness and the ELF are.
    public struct Artifacts: Sendable, Equatable {
        public var harness: String
        public var firmware: String
        public init(harness: String, firmware: String) {
            self.harness = harness
            self.firmware = firmware
        }

        /// Both are there: the harness an executable file, the ELF a file.
        public var exist: Bool {
            FileManager.default.isExecutableFile(atPath: harness) && FileManager.default.fileExists(atPath: firmware)
        }
    }

    /// The harness's file name, in `Firmware/build/host` and in `PREFIX/lib/hapbridge`.
    public static let harnessName = "sim-harness"
    /// The ELF's file name, in `Firmware/build` and in `PREFIX/share/hapbridge/firmware`
    /// (beside the .hex `hapbridge flash` writes).
    public static let firmwareName = "hapbridge-32u4.elf"

    /// What to do when they are missing.
    public static let buildHint = "run make -C Firmware firmware sim"

    /// Where a hapbridge may find the pair it runs `--firmware elf` on, in the order
    /// tried, each with what to do when it is missing: installed, `PREFIX/lib/hapbridge/
    /// sim-harness` with `PREFIX/share/hapbridge/firmware/hapbridge-32u4.elf` (the Debian
    /// package); built, `Firmware/build/host/sim-harness` with `Firmware/build/
    /// hapbridge-32u4.elf` in the checkout the executable was built in. Found from the
    /// executable (`InstalledData`), never from a path compiled in, so an installed copy
    /// needs nothing of the tree it was built in. A pair comes from one place: the
    /// harness speaks the line protocol of the sources it was built with.
    public static func candidates(executable: URL? = Bundle.main.executableURL) -> [(artifacts: Artifacts, hint: String)] {
        var found: [(Artifacts, String)] = []
        if let prefix = InstalledData.prefix(executable: executable) {
            let installed = Artifacts(
                harness: prefix.appendingPathComponent("lib/hapbridge/" + harnessName).path,
                firmware: prefix.appendingPathComponent("share/hapbridge/firmware/" + firmwareName).path)
            found.append((installed, "installed with hapbridge (reinstall its package)"))
        }
        if let checkout = InstalledData.checkout(executable: executable) {
            found.append((locations(packageRoot: checkout.path), "built in \(checkout.path) (run make -C \(checkout.path)/Firmware firmware sim)"))
        }
        return found
    }

    /// The first of `candidates` that is there, or nil.
    public static func carried(executable: URL? = Bundle.main.executableURL) -> Artifacts? {
        candidates(executable: executable).map(\.artifacts).first { $0.exist }
    }

    /// The harness and ELF built under a package root, or nil when either is missing
    /// (tests and benchmarks, which run in the checkout).
    public static func locate(packageRoot: String) -> Artifacts? {
        let a = locations(packageRoot: packageRoot)
        return a.exist ? a : nil
    }

    /// Where a build leaves them under a package root.
    static func locations(packageRoot: String) -> Artifacts {
        Artifacts(harness: packageRoot + "/Firmware/build/host/" + harnessName, firmware: packageRoot + "/Firmware/build/" + firmwareName)
    }

    /// The package root (the directory with Package.swift and Firmware/) at or above
    /// `path` (pass `#filePath`), else at or above the working directory. For tests and
    /// benchmarks only: a path compiled in names the tree the binary was built in,
    /// which an installed hapbridge must not need (`candidates` is what it uses).
    public static func packageRoot(above path: String = #filePath) -> String? {
        func search(from start: URL) -> String? {
            var dir = start
            while true {
                let fm = FileManager.default
                if fm.fileExists(atPath: dir.appendingPathComponent("Package.swift").path),
                    fm.fileExists(atPath: dir.appendingPathComponent("Firmware/Makefile").path)
                {
                    return dir.path
                }
                let up = dir.deletingLastPathComponent()
                if up.path == dir.path { return nil }
                dir = up
            }
        }
        return search(from: URL(fileURLWithPath: path).standardizedFileURL)
            ?? search(from: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
    }
}
