import Foundation
import Synchronization

/// A bench's lock: a file named for the bench, created exclusively, holding who took it
/// and until when. Two runs on one bench (two CI jobs) cannot overlap: the second is
/// refused with who holds it. A run that died leaves its lock behind; it expires at the
/// time written in it (the bench's `lock-expiry-seconds` after it was taken), or at once
/// when its process is gone from this host.
public final class BenchLock: Sendable {
    public let path: String

    public struct Busy: Error, Sendable, CustomStringConvertible {
        public var bench: String
        public var path: String
        public var holder: String
        public var description: String { "the bench \(bench) is in use: \(holder) holds \(path) (wait for it, or delete the file if that run is gone)" }
    }

    /// The directory locks go in: $HAPBRIDGE_LOCK_DIR, else $XDG_RUNTIME_DIR/hapbridge, else /tmp/hapbridge-locks.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let d = environment["HAPBRIDGE_LOCK_DIR"], !d.isEmpty { return d }
        if let d = environment["XDG_RUNTIME_DIR"], !d.isEmpty { return d + "/hapbridge" }
        return "/tmp/hapbridge-locks"
    }

    /// Takes the lock, or says who holds it.
    public static func acquire(bench: String, directory: String, expirySeconds: Double, now: Date = Date()) throws -> BenchLock {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = "\(directory)/\(bench).lock"
        let pid = getpid()
        let host = ProcessInfo.processInfo.hostName
        // Held to TimeLimits (which the bench file's loader checks): a whole number of
        // seconds since 1970 that no expiry overflows.
        let expires = (now.timeIntervalSince1970 + TimeLimits.clamped(expirySeconds)).rounded(.down)
        let content = "pid \(pid)\nhost \(host)\nexpires \(Int(exactly: expires) ?? 0)\n"
        for _ in 0..<2 {
            // O_EXCL is the lock itself: the one safe writer (FileWriter) replaces a file
            // atomically, which would take a lock another run holds.
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 {
                _ = content.withCString { write(fd, $0, strlen($0)) }
                close(fd)
                return BenchLock(path: path)
            }
            guard errno == EEXIST else { throw Busy(bench: bench, path: path, holder: "cannot create it: \(String(cString: strerror(errno)))") }
            let held = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            let fields = Dictionary(
                held.split(separator: "\n").compactMap { line -> (String, String)? in
                    let parts = line.split(separator: " ", maxSplits: 1)
                    return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
                }, uniquingKeysWith: { a, _ in a })
            let heldExpiry = fields["expires"].flatMap(Double.init) ?? 0
            let heldPID = fields["pid"].flatMap(Int32.init)
            let gone = fields["host"] == host && heldPID.map { kill($0, 0) != 0 && errno == ESRCH } == true
            if heldExpiry > now.timeIntervalSince1970, !gone {
                let until = Date(timeIntervalSince1970: heldExpiry)
                throw Busy(bench: bench, path: path, holder: "process \(fields["pid"] ?? "?") on \(fields["host"] ?? "?") until \(until)")
            }
            unlink(path)  // expired, or its process is gone: take it over
        }
        throw Busy(bench: bench, path: path, holder: "another run that took it at the same moment")
    }

    private let released = Mutex(false)

    init(path: String) { self.path = path }

    /// Removes the lock file, once: a second call (a signal's last-moment release, then
    /// the run's own) must not remove a lock another run has taken since.
    public func release() {
        guard released.withLock({ r in defer { r = true }; return !r }) else { return }
        unlink(path)
    }
}
