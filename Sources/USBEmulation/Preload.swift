import FileAccess
import Glibc

/// umockdev only works for processes running under its preload library: the clients
/// (COMMAND and everything it starts) and the process that owns the testbed, whose
/// uevents otherwise never reach libudev ("uevent_sender_send: No such device").
/// `hapbridge emulate` therefore re-executes itself with the library preloaded.
public enum Preload {
    public static let library = "libumockdev-preload.so.0"
    /// The Debian package that has it.
    public static let package = "umockdev"

    /// Returns when the library is loaded in this process; otherwise re-executes the
    /// program under it (and does not return). The guard is the environment variable,
    /// not `umockdev_in_mock_environment()`, which caches its first answer and would
    /// pin "no" for the whole run when asked before the testbed exists.
    /// `arguments` are as `ArgumentText` decoded them (bytes that are not UTF-8
    /// escaped), so the re-executed process gets exactly the bytes it was given.
    public static func ensureLoaded(arguments: [String] = ArgumentText.commandLineArguments()) throws(EmulationError) {
        let current = getenv("LD_PRELOAD").map { String(cString: $0) } ?? ""
        if current.contains("libumockdev-preload.so") {
            guard dlopen(library, RTLD_NOLOAD | RTLD_LAZY) != nil else {
                throw .preload(
                    "umockdev's preload library \(library) could not be loaded: install the Debian package \(package) (scripts/setup does)")
            }
            return
        }
        setenv("LD_PRELOAD", current.isEmpty ? library : library + " " + current, 1)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { ArgumentText.cString($0) } + [nil]
        execv("/proc/self/exe", &argv)
        throw .preload("cannot re-execute /proc/self/exe under \(library): \(String(cString: strerror(errno)))")
    }
}
