import FileAccess
import Foundation
import Glibc

/// umockdev only works for processes running under its preload library: the clients
/// (COMMAND and everything it starts) and the process that owns the testbed, whose
/// uevents otherwise never reach libudev ("uevent_sender_send: No such device").
/// `hapbridge emulate` therefore re-executes itself with the library preloaded, and
/// ours (`Sources/EmulationPreload`) in front of it: umockdev names each process's
/// uevent socket by its descriptor alone, so two clients starting at the same moment
/// fight over one name and one of them fails `libusb_init` (or never hears a uevent);
/// ours gives each process a name of its own.
public enum Preload {
    public static let library = "libumockdev-preload.so.0"
    /// The Debian package that has it.
    public static let package = "umockdev"
    /// Ours, the build's `HapbridgeEmulationPreload` product.
    public static let ownLibrary = "libHapbridgeEmulationPreload.so"

    /// Where ours is: beside the executable (a build: `.build/release`), else
    /// `PREFIX/lib/hapbridge` beside `PREFIX/bin/hapbridge` (the Debian package).
    public static func ownLibraryPath(executable: String = "/proc/self/exe") -> String? {
        let exe = URL(fileURLWithPath: executable)
        let beside = exe.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(ownLibrary).path
        if FileManager.default.fileExists(atPath: beside) { return beside }
        return InstalledData.libraryFile(ownLibrary, executable: exe)?.path
    }

    /// Returns when both libraries are loaded in this process; otherwise re-executes
    /// the program under them (and does not return). The guard is the environment
    /// variable, not `umockdev_in_mock_environment()`, which caches its first answer
    /// and would pin "no" for the whole run when asked before the testbed exists.
    /// `arguments` are as `ArgumentText` decoded them (bytes that are not UTF-8
    /// escaped), so the re-executed process gets exactly the bytes it was given.
    public static func ensureLoaded(arguments: [String] = ArgumentText.commandLineArguments()) throws(EmulationError) {
        let current = getenv("LD_PRELOAD").map { String(cString: $0) } ?? ""
        // ld.so takes spaces and colons between the entries.
        let entries = current.split(whereSeparator: { $0 == " " || $0 == ":" }).map(String.init)
        let own = ownLibraryPath()
        let hasUmockdev = entries.contains { $0.contains("libumockdev-preload.so") }
        let hasOwn = own.map { path in entries.contains { $0 == path } } ?? true
        if hasUmockdev, hasOwn {
            guard dlopen(library, RTLD_NOLOAD | RTLD_LAZY) != nil else {
                throw .preload(
                    "umockdev's preload library \(library) could not be loaded: install the Debian package \(package) (scripts/setup does)")
            }
            if own == nil {
                FileHandle.standardError.write(
                    Data(
                        ("hapbridge emulate: warning: \(ownLibrary) is neither beside this hapbridge nor in PREFIX/lib/hapbridge: "
                            + "clients started at the same moment may fail to initialise libusb (build it: swift build --product HapbridgeEmulationPreload)\n")
                            .utf8))
            }
            return
        }
        // Ours first: its bind() must see the call before umockdev's (an umockdev
        // already named stays as named).
        let preloads = (own.map { [$0] } ?? []) + (hasUmockdev ? [] : [library]) + entries.filter { $0 != own }
        setenv("LD_PRELOAD", preloads.joined(separator: " "), 1)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { ArgumentText.cString($0) } + [nil]
        execv("/proc/self/exe", &argv)
        throw .preload("cannot re-execute /proc/self/exe under \(library): \(String(cString: strerror(errno)))")
    }
}
