import Foundation
import Synchronization

extension FlashProgress {
    /// Progress drawn as text (`hapbridge flash` on standard error, `hapbridge run`
    /// in its live output). On a terminal a bar redrawn in place (`\r`) when it
    /// moves a step of 5 %; elsewhere (a log, a pipe) no redraws: one line when a
    /// phase starts and one when it ends, with its bytes and rate.
    public static func drawn(terminal: Bool, write: @escaping @Sendable (String) -> Void) -> FlashProgress {
        struct Drawn: Sendable {
            var key = ""
            var started: [FlashProgress.Phase: ContinuousClock.Instant] = [:]
        }
        let drawn = Mutex(Drawn())
        return FlashProgress { phase, done, total in
            let name = phase.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)
            if !terminal {
                let line = drawn.withLock { d -> String? in
                    if d.started[phase] == nil {
                        d.started[phase] = .now
                        return "\(name) \(total) bytes\n"
                    }
                    guard done == total, let start = d.started.removeValue(forKey: phase) else { return nil }
                    let elapsed = ContinuousClock.now - start
                    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                    let rate = seconds > 0 ? String(format: ", %.1f KiB/s", Double(total) / 1024 / seconds) : ""
                    return "\(name) done: \(done)/\(total) bytes in " + String(format: "%.3f s", seconds) + rate + "\n"
                }
                if let line { write(line) }
                return
            }
            let percent = total > 0 ? done * 100 / total : 100
            let key = "\(phase.rawValue) \(percent / 5)"
            let (draw, started) = drawn.withLock { d in
                defer { d.key = key }
                if d.started[phase] == nil { d.started[phase] = .now }
                let started = d.started[phase]
                if done == total { d.started[phase] = nil }
                return (d.key != key || done == total, started)
            }
            guard draw else { return }
            let bar = String(repeating: "#", count: percent / 5) + String(repeating: " ", count: 20 - percent / 5)
            var end = ""
            if done == total, let started {
                let elapsed = ContinuousClock.now - started
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                end = String(format: " in %.3f s", seconds) + (seconds > 0 ? String(format: ", %.1f KiB/s", Double(total) / 1024 / seconds) : "") + "\n"
            }
            write("\r\(name) [\(bar)] \(done)/\(total) bytes\(end)")
        }
    }

}
