#if canImport(Glibc)
import Glibc
#endif

/// A DRV2605 keeps driving its last RTP value when its host dies, and an FT232H keeps its
/// pins (EN high) as long as it has power: nothing on the adapter notices a dead process.
/// The guardian is a small process started beside the player, waiting on a pipe whose
/// only writer is the player: when the player ends in any way (SIGKILL, a crash) the
/// kernel closes its end, the guardian reads EOF, opens the FT232H (free once the kernel
/// released the dead process's claim) and puts the chip in standby with EN low. An
/// orderly close disarms it first (one byte, then EOF).
///
/// The guardian is an exec'd program (`command`, e.g. `hapbridge guard-ft232h SERIAL`),
/// never a bare fork: the player has threads, and only exec is safe after fork there.
/// It runs in its own process group, so a Ctrl-C meant for the player does not end it.
public final class FT232HGuardian: @unchecked Sendable {
    // @unchecked: `disarm` runs once, from the transport's close (its one owner).
    private var writeEnd: Int32
    public let pid: pid_t

    /// Starts `command` with the pipe's read end as its standard input; nil when it could
    /// not be started (the caller plays without one and says so).
    public init?(command: [String]) {
        guard let path = command.first else { return nil }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        // Both ends close-on-exec (the guardian gets its copy by dup2 below).
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears FD_CLOEXEC on the copy, so the guardian keeps its stdin; the write end
        // stays close-on-exec, so no other child ever holds it open.
        posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var child: pid_t = 0
        let r = posix_spawn(&child, path, &actions, &attributes, &argv, environ)
        close(ends[0])
        guard r == 0 else {
            close(ends[1])
            return nil
        }
        pid = child
        writeEnd = ends[1]
    }

    deinit { disarm() }

    /// The player stopped the chip itself: tell the guardian to leave, and reap it.
    public func disarm() {
        guard writeEnd >= 0 else { return }
        var byte = Self.disarmByte
        _ = write(writeEnd, &byte, 1)
        close(writeEnd)
        writeEnd = -1
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    static let disarmByte: UInt8 = 0x64 // "d"

    /// What the guardian did, for its one line on standard error.
    public enum Outcome: Sendable, Equatable {
        case disarmed
        case stopped(String)
        case failed(String)
    }

    /// The guardian's side: waits for EOF on standard input; unless disarmed, opens the
    /// FT232H (retrying for `retrySeconds` while the dead player's claim is released)
    /// and shuts the chip down.
    public static func watch(serial: String?, retrySeconds: Double = 3) -> Outcome {
        var disarmed = false
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let n = read(0, &buffer, buffer.count)
            if n > 0 {
                if buffer.prefix(n).contains(disarmByte) { disarmed = true }
                continue
            }
            if n < 0 && errno == EINTR { continue }
            break
        }
        if disarmed { return .disarmed }
        let deadline = HostedClock.nanoseconds() + UInt64(retrySeconds * 1e9)
        var last = ""
        while true {
            do {
                let port = try FT232HHostedI2C(serial: serial)
                port.shutDown()
                return .stopped("the player went away without stopping the DRV2605: put it in standby with EN low")
            } catch {
                last = error.description
            }
            guard HostedClock.nanoseconds() < deadline else { return .failed(last) }
            HostedClock.sleep(untilNanoseconds: HostedClock.nanoseconds() + 50_000_000)
        }
    }
}
