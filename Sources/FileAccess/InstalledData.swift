import Foundation

/// Where hapbridge's own files are, found from the running executable and never from
/// a path compiled in (`#filePath`), so an installed copy stands alone once the tree it
/// was built in is gone, and a copy unpacked anywhere (`dpkg -x`) finds its own files.
///
/// - Installed (the Debian package, or any `PREFIX` laid out the same way): data in
///   `PREFIX/share/hapbridge/NAME`, programs and libraries only hapbridge runs in
///   `PREFIX/lib/hapbridge/NAME`, documentation in `PREFIX/share/doc/hapbridge/PATH`,
///   for the executable at `PREFIX/bin/hapbridge`.
/// - Built (`.build/release/hapbridge`, `swift run`, `scripts/hapbridge`, a test runner
///   beside it): the checkout the executable sits in, its files by their repository
///   paths (`Hardware/…`, `Firmware/build/…`, `Examples/…`).
public enum InstalledData {
    /// `PREFIX/share/hapbridge/name` for the executable at `PREFIX/bin/…`, if it exists.
    public static func directory(_ name: String, executable: URL? = Bundle.main.executableURL) -> URL? {
        guard let prefix = prefix(executable: executable) else { return nil }
        return existingDirectory(prefix.appendingPathComponent("share/hapbridge").appendingPathComponent(name))
    }

    /// `PREFIX/lib/hapbridge/name` (a program or library only hapbridge runs), if it exists.
    public static func libraryFile(_ name: String, executable: URL? = Bundle.main.executableURL) -> URL? {
        guard let prefix = prefix(executable: executable) else { return nil }
        let file = prefix.appendingPathComponent("lib/hapbridge").appendingPathComponent(name)
        return FileManager.default.fileExists(atPath: file.path) ? file : nil
    }

    /// `PREFIX/share/doc/hapbridge/path` (a document under its repository path, e.g.
    /// `Hardware/boards/ft232h.md`), if it exists.
    public static func document(_ path: String, executable: URL? = Bundle.main.executableURL) -> URL? {
        guard let prefix = prefix(executable: executable) else { return nil }
        let file = prefix.appendingPathComponent("share/doc/hapbridge").appendingPathComponent(path)
        return FileManager.default.fileExists(atPath: file.path) ? file : nil
    }

    /// The checkout the executable was built in: the nearest of its parents (eight at
    /// most: `.build/x86_64-unknown-linux-gnu/release` is three down) holding
    /// `Package.swift` and the firmware's protocol header. Nil for an installed copy.
    public static func checkout(executable: URL? = Bundle.main.executableURL) -> URL? {
        guard var directory = executable?.resolvingSymlinksInPath().deletingLastPathComponent() else { return nil }
        let fm = FileManager.default
        for _ in 0..<8 {
            if fm.fileExists(atPath: directory.appendingPathComponent("Package.swift").path),
                fm.fileExists(atPath: directory.appendingPathComponent(checkoutMarker).path)
            {
                return directory
            }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { break }
            directory = parent
        }
        return nil
    }

    /// What tells hapbridge's checkout from any other Swift package above the executable.
    static let checkoutMarker = "Firmware/protocol/include/hapbridge/protocol.h"

    /// `PREFIX` for the executable at `PREFIX/bin/hapbridge` (whether or not anything
    /// is installed there).
    public static func prefix(executable: URL? = Bundle.main.executableURL) -> URL? {
        executable?.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
    }

    private static func existingDirectory(_ url: URL) -> URL? {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue ? url : nil
    }
}
