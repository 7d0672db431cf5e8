import Glibc

/// Where board locks live: one directory for the whole host, so that every user's runs
/// (a CI runner's and an engineer's) meet in it. `--lock-dir` or `$HAPBRIDGE_LOCK_DIR`
/// name another (a test's own, a CI job on its own simulated board); otherwise
/// `/run/lock/hapbridge`: /run/lock is the FHS place for lock files, on a tmpfs (nothing
/// survives a reboot, as no lock should).
///
/// The Debian package makes it with systemd-tmpfiles (`scripts/package/tmpfiles.conf`) as
/// `2775 root:hapbridge`: the group
/// that may use the boards (Hardware/udev) may take their locks, and its lock files
/// inherit the group (setgid). Where nobody made it (hapbridge built from source), the
/// first run makes it as /run/lock itself is made, `1777`: anyone may create a lock file,
/// nobody may remove another's (hapbridge never removes one: the file is the lock).
public struct BoardLockDirectory: Sendable, Equatable {
    public enum Origin: Sendable, Equatable {
        case option, environment, host
    }

    public var path: String
    public var origin: Origin

    /// The host's directory.
    public static let host = "/run/lock/hapbridge"
    /// The variable that names another.
    public static let variable = "HAPBRIDGE_LOCK_DIR"

    public init(path: String, origin: Origin) {
        self.path = path
        self.origin = origin
    }

    /// `option` (`--lock-dir`), else `$HAPBRIDGE_LOCK_DIR`, else the host's.
    public static func choose(option: String?, environment: [String: String]) -> BoardLockDirectory {
        if let option, !option.isEmpty { return BoardLockDirectory(path: option, origin: .option) }
        if let d = environment[variable], !d.isEmpty { return BoardLockDirectory(path: d, origin: .environment) }
        return BoardLockDirectory(path: host, origin: .host)
    }

    /// "--lock-dir /x", "$HAPBRIDGE_LOCK_DIR (/x)", "/run/lock/hapbridge": for messages.
    public var named: String {
        switch origin {
        case .option: "the lock directory \(path) (--lock-dir)"
        case .environment: "the lock directory \(path) ($\(Self.variable))"
        case .host: "the lock directory \(path)"
        }
    }

    /// Makes sure it is there, making it (and, for a directory named by option or
    /// variable, its parents) if not. True when it is setgid: its lock files then take
    /// its group and need be writable by the group only.
    func prepare() throws(BoardLockError) -> Bool {
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT else { throw unusable(errno) }
            try make()
            guard lstat(path, &info) == 0 else { throw unusable(errno) }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw BoardLockError.unusable(what: named, problem: info.st_mode & S_IFMT == S_IFLNK ? "is a symbolic link, which a shared lock directory may not be" : "is not a directory", advice: advice)
        }
        return info.st_mode & S_ISGID != 0
    }

    private func make() throws(BoardLockError) {
        if origin == .host {
            // Made as /run/lock is: open to all, sticky. The umask would narrow it.
            guard mkdir(path, 0o1777) == 0 || errno == EEXIST else { throw unusable(errno) }
            _ = chmod(path, 0o1777)
            return
        }
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            prefix += "/" + part
            guard mkdir(prefix, 0o777) == 0 || errno == EEXIST else { throw unusable(errno) }
        }
    }

    func unusable(_ code: Int32) -> BoardLockError {
        .unusable(what: named, problem: String(cString: strerror(code)), advice: advice)
    }

    /// What to do about a directory that cannot be used.
    var advice: String {
        switch origin {
        case .option, .environment: "name a directory you can write"
        case .host:
            "the Debian package makes it for the hapbridge group: join it (sudo adduser $USER hapbridge, then log in again), or name another with --lock-dir or $\(Self.variable)"
        }
    }
}
