import DeviceInterface
import Devices
import Foundation
import Synchronization

/// The locks that keep two runs off one board, whoever starts them (a CI runner, an
/// engineer) and whatever their bench files call it: one lock file per board in the
/// host's lock directory (`BoardLockDirectory`), held with flock(2) for the run's life.
///
/// - The kernel holds an flock for as long as the process that took it lives and drops
///   it when the process ends, however it ends (SIGKILL, a crash): no lock outlives its
///   run, and none expires under a run still alive, so nothing guesses at staleness.
/// - Taking it is one atomic call: of two runs started at the same moment exactly one
///   gets it. The file is created once and never removed or replaced (either would let a
///   second run lock a different file of the same name).
/// - The holder writes who it is into the file (`BoardLockHolder`); a run refused reads
///   at most 4 KiB of it, and says who holds the board.
/// - `--wait` queues: the lock is tried again until it is free, the time given passes,
///   or a signal ends the wait.
///
/// A board is keyed by what it is, not by what a bench file calls it
/// (`BoardLock.Key.keys(for:catalog:)`): a bridge board by its USB port and its serial,
/// so `usb:1-2`, `usb:SERIAL` and `usb` on one board meet; a hosted adapter by its scheme and serial; the
/// simulated board as `sim`, so a rehearsal on it behaves as the bench will (a CI job
/// running simulations alongside others gives each its own `--lock-dir`).
public final class BoardLock: Sendable {
    /// One board's lock: the file's name in the directory, and the bench device it was
    /// taken for (for messages).
    public struct Key: Sendable, Hashable {
        /// "usb-1-2", "usb-serial-HB0001", "ftdi-FT1234", "sim".
        public var name: String
        /// "dut (usb:1-2)".
        public var device: String

        public init(name: String, device: String) {
            self.name = Self.fileSafe(name)
            self.device = device
        }

        /// Letters, digits, '-', '_' and '.', never a leading '.', at most 100 bytes: a
        /// serial a device reported makes no path of it.
        static func fileSafe(_ s: String) -> String {
            let name = String(s.utf8.prefix(100).map { b -> Character in
                let kept = (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == 0x2D || b == 0x5F || b == 0x2E
                return kept ? Character(UnicodeScalar(b)) : "_"
            })
            return name.hasPrefix(".") ? "_" + name.dropFirst() : name
        }

        /// The keys of the board a bench device names, as it is found now: a bridge board
        /// on USB by its port ("usb-1-2") and its serial ("usb-serial-HB0001"); one not
        /// found (unplugged, in its bootloader) by what its address says. A hosted adapter
        /// by its scheme and serial ("ftdi-FT1234"), the simulated board as "sim".
        public static func keys(for device: BenchFile.Device, catalog: DeviceCatalog) -> [Key] {
            let label = "\(device.name) (\(device.address))"
            switch device.address {
            case .simulated:
                return [Key(name: "sim", device: label)]
            case .hosted(let scheme, _):
                return [Key(name: catalog.hostedSerial(device.address).map { "\(scheme)-\($0)" } ?? scheme, device: label)]
            case .usb(let selector):
                if case .usb(let board)? = try? catalog.choose(device.address) {
                    return [Key(name: "usb-\(board.portPath)", device: label)] + (board.serialNumber.map { [Key(name: "usb-serial-\($0)", device: label)] } ?? [])
                }
                switch selector {
                case .any: return [Key(name: "usb", device: label)]
                case .serial(let s): return [Key(name: "usb-serial-\(s)", device: label)]
                case .port(let bus, let ports): return [Key(name: "usb-\(DeviceAddress.portPath(bus: bus, ports: ports))", device: label)]
                }
            }
        }
    }

    public let directory: BoardLockDirectory
    public let keys: [Key]
    /// The open lock files, each flocked; nil once released.
    private let files: Mutex<[Int32]?>

    private init(directory: BoardLockDirectory, keys: [Key], files: [Int32]) {
        self.directory = directory
        self.keys = keys
        self.files = Mutex(files)
    }

    deinit { release() }

    /// How often a wait tries again.
    static let retry = Duration.milliseconds(50)

    /// Takes every board's lock (in the order of their names, so two runs wanting the
    /// same boards never each hold one the other waits for), or none: a board another
    /// run holds is an error naming the holder, once `waitSeconds` passed without it
    /// coming free (0: at once). `stop` ends a wait with its reason (a signal);
    /// `progress` hears when a wait starts and ends.
    public static func acquire(
        _ keys: [Key], in directory: BoardLockDirectory, waitSeconds: Double = 0, stop: @Sendable () -> String? = { nil },
        progress: @Sendable (String) -> Void = { _ in }
    ) async throws(BoardLockError) -> BoardLock {
        var unique: [Key] = []
        for key in keys.sorted(by: { $0.name < $1.name }) where !unique.contains(where: { $0.name == key.name }) { unique.append(key) }
        let setgid = try directory.prepare()
        let start = ContinuousClock.now
        let deadline = start + TimeLimits.duration(waitSeconds)
        var taken: [Int32] = []
        do throws(BoardLockError) {
            for key in unique {
                let path = "\(directory.path)/\(key.name).lock"
                let fd = try open(path, setgid: setgid, directory: directory)
                var waiting = false
                while flock(fd, LOCK_EX | LOCK_NB) != 0 {
                    let code = errno
                    if code == EINTR { continue }
                    guard code == EWOULDBLOCK else {
                        close(fd)
                        throw BoardLockError.unusable(what: path, problem: "flock: \(String(cString: strerror(code)))", advice: directory.advice)
                    }
                    if let why = stop() {
                        close(fd)
                        throw BoardLockError.interrupted(why)
                    }
                    if ContinuousClock.now >= deadline {
                        let holder = await holder(of: fd)
                        if flock(fd, LOCK_EX | LOCK_NB) == 0 { break }  // let go while its record was read
                        close(fd)
                        throw BoardLockError.busy(key: key, holder: holder, file: path, waitedSeconds: waitSeconds > 0 ? waitSeconds : nil)
                    }
                    if !waiting {
                        waiting = true
                        let holder = await holder(of: fd)
                        progress("\(key.device) is locked by \(describe(holder, file: path)): waiting up to \(Limit.format(TimeLimits.clamped(waitSeconds))) s")
                    }
                    try? await Task.sleep(for: min(retry, max(.zero, deadline - ContinuousClock.now)))
                }
                taken.append(fd)
                guard BoardLockHolder.current(device: key.device).write(to: fd) else {
                    throw BoardLockError.unusable(what: path, problem: "its holder record cannot be written: \(String(cString: strerror(errno)))", advice: directory.advice)
                }
                if waiting { progress("\(key.device): took the lock after \(String(format: "%.1f", DeviceSlot.seconds(ContinuousClock.now - start))) s") }
            }
        } catch {
            for fd in taken { close(fd) }
            throw error
        }
        return BoardLock(directory: directory, keys: unique, files: taken)
    }

    /// Opens (creating if need be) a lock file: a regular file, not a link (a link in a
    /// shared directory could point a root run's record write anywhere), writable by
    /// whoever may take it next: its group in a setgid directory, anyone otherwise.
    /// Opened here rather than through FileAccess's writer, which replaces a regular
    /// file atomically: the lock is flock(2) on this inode, so the holder's record is
    /// written in place, and a replaced file would leave the lock on an unlinked inode.
    static func open(_ path: String, setgid: Bool, directory: BoardLockDirectory) throws(BoardLockError) -> Int32 {
        let flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        while true {
            var fd = Glibc.open(path, flags | O_CREAT | O_EXCL, 0o666)
            if fd >= 0 {
                _ = fchmod(fd, setgid ? 0o664 : 0o666)
            } else if errno == EEXIST {
                fd = Glibc.open(path, flags)
                if fd < 0, errno == ENOENT { continue }  // removed meanwhile (by hand): make it again
            }
            guard fd >= 0 else {
                let code = errno
                let problem = code == ELOOP ? "is a symbolic link, which a lock file may not be" : String(cString: strerror(code))
                throw BoardLockError.unusable(what: path, problem: problem, advice: directory.advice)
            }
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                close(fd)
                throw BoardLockError.unusable(what: path, problem: "is not a regular file", advice: "remove it")
            }
            return fd
        }
    }

    /// Who holds the lock `fd` is open on. A record names a process gone from this host
    /// when its holder has taken the lock but not yet written over the last holder's
    /// record: it is read again for a moment before it is reported as it is.
    static func holder(of fd: Int32) async -> BoardLockHolder? {
        var last: BoardLockHolder?
        for _ in 0..<10 {
            last = BoardLockHolder.read(fd)
            if let last, last.mayBeAlive { return last }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return last
    }

    /// Who holds a lock, in words: the holder its record names, or what is known when
    /// the record is unreadable or names a process this host no longer has (a holder
    /// that never wrote one: not hapbridge, or one in another PID namespace).
    static func describe(_ holder: BoardLockHolder?, file: String) -> String {
        guard let holder else { return "a process whose record in \(file) cannot be read" }
        if holder.mayBeAlive { return holder.description }
        return "a process that wrote no record in \(file) (the record there is older: pid \(holder.pid) on \(holder.host), which this host does not have)"
    }

    /// Releases every board (once; the kernel would at the process's end anyway).
    public func release() {
        guard let fds = files.withLock({ f -> [Int32]? in defer { f = nil }; return f }) else { return }
        for fd in fds { close(fd) }
    }
}

/// Why a board's lock could not be taken.
public enum BoardLockError: Error, Sendable, CustomStringConvertible {
    /// Another run holds it (`hapbridge run` exits 10). `holder` nil: its record cannot be
    /// read. `waitedSeconds`: how long it was waited for, if at all.
    case busy(key: BoardLock.Key, holder: BoardLockHolder?, file: String, waitedSeconds: Double?)
    /// The lock directory or a lock file cannot be used (exit 1): what, why, what to do.
    case unusable(what: String, problem: String, advice: String)
    /// A signal ended the wait.
    case interrupted(String)

    public var description: String {
        switch self {
        case .busy(let key, let holder, let file, let waited):
            return "\(key.device) is locked by \(BoardLock.describe(holder, file: file))" + (waited.map { "; still locked after waiting \(Limit.format($0)) s" } ?? "")
        case .unusable(let what, let problem, let advice):
            return "cannot lock the board: \(what): \(problem) (\(advice))"
        case .interrupted(let why):
            return "stopped waiting for the board's lock: \(why)"
        }
    }
}
