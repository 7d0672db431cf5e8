import Foundation

/// Where an installed hapbridge keeps its data: `PREFIX/share/hapbridge/NAME` beside
/// `PREFIX/bin/hapbridge` (the Debian package: /usr/share/hapbridge), found from the
/// running executable, so a copy unpacked anywhere (`dpkg -x`) finds its own data.
/// A checkout build finds the repository's instead (`Hardware/…`, `Firmware/build`).
public enum InstalledData {
    /// `PREFIX/share/hapbridge/name` for the executable at `PREFIX/bin/…`, if it exists.
    public static func directory(_ name: String, executable: URL? = Bundle.main.executableURL) -> URL? {
        guard let exe = executable?.resolvingSymlinksInPath() else { return nil }
        let dir = exe.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("share/hapbridge")
            .appendingPathComponent(name)
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: dir.path, isDirectory: &isDirectory) && isDirectory.boolValue ? dir : nil
    }
}
