import CUMockdev
import Glibc
import Synchronization

/// A umockdev testbed: the fake /sys and /dev that every process started under
/// umockdev's preload library with this testbed's `UMOCKDEV_DIR` sees instead of the
/// real ones. Creating it sets `UMOCKDEV_DIR` in this process's environment, so
/// children inherit it; destroying it removes the directory.
///
/// umockdev's testbed object is not thread-safe, and devices are plugged from the
/// control socket, signals and the boards' own threads: every call goes through one
/// lock.
public final class Testbed: Sendable {
    private let testbed: Mutex<TestbedPointer?>
    /// The testbed's root directory (`UMOCKDEV_DIR`).
    public let root: String

    /// The process must run under umockdev's preload library already (see
    /// `Preload`): otherwise uevents fail and clients never hear of hotplugs.
    public init() throws(EmulationError) {
        guard let raw = umockdev_testbed_new() else { throw .testbed("umockdev_testbed_new failed") }
        guard let dir = umockdev_testbed_get_root_dir(raw) else {
            g_object_unref(raw)
            throw .testbed("the testbed has no root directory")
        }
        root = String(cString: dir)
        g_free(dir)
        testbed = Mutex(TestbedPointer(raw: raw) as TestbedPointer?)
    }

    deinit { close() }

    /// Removes the testbed (its directory, its device nodes, the handlers' sockets).
    /// Idempotent; later calls on the testbed do nothing. Device handlers hold the
    /// testbed (they update sysfs), so it is closed explicitly rather than left to
    /// reference counting.
    public func close() {
        testbed.withLock { t in
            if let t { g_object_unref(t.raw) }
            t = nil
        }
    }

    /// Adds devices from umockdev's record format (one paragraph per device); each
    /// added device sends its "add" uevent.
    public func add(record: String) throws(EmulationError) {
        var error: UnsafeMutablePointer<GError>?
        let ok = testbed.withLock { t in t.map { umockdev_testbed_add_from_string($0.raw, record, &error) } ?? 0 }
        if ok == 0 { throw .testbed("cannot add the device record: \(Self.take(error))\n\(record)") }
    }

    /// Routes every ioctl on `node` (a /dev path) to `handler`.
    func attach(_ handler: UnsafeMutablePointer<UMockdevIoctlBase>, to node: String) throws(EmulationError) {
        var error: UnsafeMutablePointer<GError>?
        let ok = testbed.withLock { t in t.map { umockdev_testbed_attach_ioctl($0.raw, node, handler, &error) } ?? 0 }
        if ok == 0 { throw .testbed("cannot attach the ioctl handler to \(node): \(Self.take(error))") }
    }

    /// The master end of the pty umockdev backs a tty node with (a record with an `N:`
    /// line for a tty), or nil: what an emulated serial device reads and writes.
    func ptyMaster(node: String) -> Int32? {
        let fd = testbed.withLock { t in t.map { umockdev_testbed_get_dev_fd($0.raw, node) } ?? -1 }
        return fd >= 0 ? fd : nil
    }

    func detach(node: String) {
        testbed.withLock { t in _ = t.map { umockdev_testbed_detach_ioctl($0.raw, node, nil) } }
    }

    /// Sends a uevent ("add", "remove", "change") for a sysfs path.
    public func uevent(_ syspath: String, _ action: String) {
        testbed.withLock { t in t.map { umockdev_testbed_uevent($0.raw, syspath, action) } }
    }

    public func remove(_ syspath: String) {
        testbed.withLock { t in t.map { umockdev_testbed_remove_device($0.raw, syspath) } }
    }

    /// Makes a device node read-only (mode 0444), as a node without a udev rule
    /// granting access is to a user (root's, 0664): opening it for writing, which
    /// libusb does, fails with EACCES for any process without CAP_DAC_OVERRIDE.
    func denyWrites(node: String) throws(EmulationError) {
        let path = root + node
        guard chmod(path, 0o444) == 0 else {
            throw .accessDenial("cannot make \(path) read-only: \(String(cString: strerror(errno)))")
        }
    }

    /// Whether this process could still open a node for writing (root's
    /// CAP_DAC_OVERRIDE ignores the mode).
    func canWrite(node: String) -> Bool { faccessat(AT_FDCWD, root + node, W_OK, AT_EACCESS) == 0 }

    public func setAttribute(_ syspath: String, _ name: String, _ value: String) {
        testbed.withLock { t in t.map { umockdev_testbed_set_attribute($0.raw, syspath, name, value) } }
    }

    private static func take(_ error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "unknown error" }
        defer { g_error_free(error) }
        return error.pointee.message.map { String(cString: $0) } ?? "unknown error"
    }
}

struct TestbedPointer: @unchecked Sendable {
    let raw: UnsafeMutablePointer<UMockdevTestbed>
}
