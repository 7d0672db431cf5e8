import HostedBoard
#if canImport(Glibc)
import Glibc
#endif

/// The guardian's side of `FT232HGuardian` (`hapbridge guard ftdi`): standard input is
/// its end of the socket pair; it watches the player's heartbeats and the socket's end,
/// and when the player can no longer stop the chip itself — dead, stopped, frozen, hung,
/// or stuck closing — takes the FT232H and stops it (`FT232HTakeover`).
public struct FT232HGuardianWatch {
    public let player: pid_t
    public let serial: String?
    public let sclHz: Double
    public let takeover: FT232HTakeover
    /// The socket to the player (standard input).
    let channel: Int32 = 0

    /// What the guardian did, for its one line on standard error.
    public enum Outcome: Sendable, Equatable {
        /// The player closed in order; nothing to do.
        case disarmed
        /// The player died: the chip stopped.
        case stoppedAfterDeath(String)
        /// The player could not act: the FT232H taken from it, the chip stopped (already
        /// said, as it happened); the player has now ended.
        case tookOver
        /// The chip could not be stopped.
        case failed(String)
    }

    public init(player: pid_t, serial: String?, sclHz: Double, takeover: FT232HTakeover) {
        self.player = player
        self.serial = serial
        self.sclHz = sclHz
        self.takeover = takeover
    }

    /// Tells the player it is ready, then watches until the player's end. `say` prints a
    /// line as things happen (the takeover, while the player may still be stopped).
    public func run(say: (String) -> Void) -> Outcome {
        send([FT232HGuardian.Message.ready])
        var lastWord = HostedClock.nanoseconds()
        var beating = false
        var closingSince: UInt64?
        var disarmed = false
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            var p = pollfd(fd: channel, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, Int32(FT232HGuardian.Timing.heartbeat / 1_000_000))
            let now = HostedClock.nanoseconds()
            if ready > 0 {
                let n = recv(channel, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) {
                    return disarmed ? .disarmed : afterDeath()
                }
                for byte in buffer.prefix(max(0, n)) {
                    switch byte {
                    case FT232HGuardian.Message.heartbeat: beating = true
                    case FT232HGuardian.Message.closing: closingSince = closingSince ?? now
                    case FT232HGuardian.Message.disarm: disarmed = true
                    default: break
                    }
                }
                lastWord = now
            } else if ready < 0 && errno != EINTR {
                return disarmed ? .disarmed : afterDeath()
            }
            guard !disarmed else { continue }
            // The player can no longer stop the chip: closing for too long, or silent
            // while stopped, or silent for long whatever it is doing.
            let why: String?
            if let since = closingSince {
                why = now - since >= FT232HGuardian.Timing.closing
                    ? "did not finish closing the FT232H within \(FT232HGuardian.Timing.closing / 1_000_000_000) s" : nil
            } else if beating, now - lastWord >= FT232HGuardian.Timing.stoppedSilence {
                let state = ProcessState.of(player)
                let silent = Self.seconds(now - lastWord)
                if state.isStopped {
                    why = "was \(state.description) for \(silent) s while it held the FT232H"
                } else if now - lastWord >= FT232HGuardian.Timing.silence {
                    why = "gave no sign of life for \(silent) s while it held the FT232H (\(state.description))"
                } else {
                    why = nil
                }
            } else {
                why = nil
            }
            if let why { return takeOver(because: why, say: say) }
        }
    }

    /// Takes the FT232H from the player and stops the chip, tells the player (should it
    /// ever be continued) and holds the FT232H until the player ends. A take that fails
    /// (the FT232H unplugged meanwhile: nothing is driven then) is tried a few times, then
    /// given up: the guardian leaves, and a player that is continued halts without it.
    private func takeOver(because why: String, say: (String) -> Void) -> Outcome {
        var failure: String?
        for attempt in 1...Self.takeAttempts {
            do {
                try takeover.stopChip(sclHz: sclHz)
                failure = nil
                break
            } catch {
                failure = error.description
                if takeover.holdsInterface || attempt == Self.takeAttempts { break }
                HostedClock.sleep(untilNanoseconds: HostedClock.nanoseconds() + FT232HGuardian.Timing.heartbeat)
            }
        }
        guard takeover.holdsInterface else {
            return .failed("player (pid \(player)) \(why), but the FT232H could not be taken from it: \(failure ?? "")")
        }
        if let failure {
            say("player (pid \(player)) \(why): took the FT232H from it, but could not stop the DRV2605: \(failure)")
        } else {
            say(
                "player (pid \(player)) \(why): took the FT232H from it and put the DRV2605 in standby with EN low; "
                    + "the player cannot drive it again (continued, its play stops)")
        }
        send([FT232HGuardian.Message.tookOver] + Array("this player \(why)\n".utf8))
        // Held until the player ends (or disarms): its transfers are refused meanwhile.
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let n = recv(channel, &buffer, buffer.count, 0)
            if n == 0 || (n < 0 && errno != EINTR) { break }
        }
        return failure.map { .failed($0) } ?? .tookOver
    }

    static let takeAttempts = 5

    /// The player died without disarming: the FT232H (its claim gone with the player)
    /// taken and the chip stopped over usbfs; where that fails (the FT232H re-enumerated
    /// under another node), through libftdi by serial, retried for 3 s while the kernel
    /// releases the dead player's claim.
    private func afterDeath() -> Outcome {
        let what = "the player went away without stopping the DRV2605: put it in standby with EN low"
        do {
            try takeover.stopChip(sclHz: sclHz)
            return .stoppedAfterDeath(what)
        } catch {
            let first = error.description
            let deadline = HostedClock.nanoseconds() + 3_000_000_000
            var last = first
            while true {
                do {
                    let port = try FT232HHostedI2C(serial: serial, sclHz: sclHz)
                    port.shutDown()
                    return .stoppedAfterDeath(what)
                } catch {
                    last = error.description
                }
                guard HostedClock.nanoseconds() < deadline else { return .failed("\(first); then through libftdi: \(last)") }
                HostedClock.sleep(untilNanoseconds: HostedClock.nanoseconds() + 50_000_000)
            }
        }
    }

    private func send(_ bytes: [UInt8]) {
        var b = bytes
        _ = Glibc.send(channel, &b, b.count, Int32(MSG_NOSIGNAL))
    }

    static func seconds(_ nanoseconds: UInt64) -> String {
        let ms = nanoseconds / 1_000_000
        let tenths = (ms % 1000) / 10
        return "\(ms / 1000).\(tenths < 10 ? "0" : "")\(tenths)"
    }
}
