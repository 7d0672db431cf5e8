import Foundation
import Testing

/// `hapbridge play --device ftdi` as a user runs it: the built CLI under
/// `hapbridge emulate ft232h`, the firmware core hosted in the player, its I2C over
/// libftdi on the emulated MPSSE pins. COMMAND is a small sh script where the test must
/// act mid-play (unplug, a signal): it acts on the player's own output, never on a clock.
@Suite("play on an FT232H with host timing, on the emulation", .serialized)
struct HostedPlayTests {
    /// A 4 s continuous event: long enough to act on mid-play.
    static let longPattern = """
        {"Version": 1.0, "Pattern": [{"Event": {"Time": 0.0, "EventType": "HapticContinuous", "EventDuration": 4.0,
         "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.3}]}}]}
        """

    static func writeLongPattern() throws -> String {
        let path = EmulatedFT232H.scratch("long.ahap")
        try longPattern.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A script that starts `hapbridge play PATTERN --device ftdi` (and `options`), echoes
    /// its output and, at its first progress line (the drive is on), does `action`
    /// (`$PLAYER` is the player's pid, `$GUARDIAN` its guardian's, `$PPID` the
    /// emulation's); at the first line containing each `later` key, its action. It ends
    /// when every writer of the output has (a guardian the player left holds it too),
    /// then prints the player's status.
    static func script(pattern: String, options: [String] = [], action: String, later: KeyValuePairs<String, String> = [:]) throws -> String {
        let path = EmulatedFT232H.scratch("play.sh")
        let quoted = options.map { "\"\($0)\"" }.joined(separator: " ")
        let reactions = later.enumerated().map { i, reaction in
            "  case \"$line\" in *\"\(reaction.key)\"*) if [ -z \"$done\(i)\" ]; then done\(i)=1; \(reaction.value); fi ;; esac"
        }.joined(separator: "\n")
        let text = """
            #!/bin/sh
            fifo=$(mktemp -u); mkfifo "$fifo"
            "\(EmulatedFT232H.hapbridge)" play "\(pattern)" --device ftdi --actuator pmd-c10-100 \(quoted) >"$fifo" 2>&1 &
            PLAYER=$!
            acted=0
            while IFS= read -r line; do
              echo "$line"
              case "$line" in *" / 4000 ms ["*) if [ $acted = 0 ]; then acted=1; GUARDIAN=$(pgrep -P $PLAYER); \(action); fi ;; esac
            \(reactions)
            done <"$fifo"
            rm -f "$fifo"
            wait $PLAYER; echo "player-status $?"
            """
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    /// The chip's I2C writes from `emulate --log`: (register, value) of each one-register write.
    static func chipWrites(_ log: String) throws -> [(register: Int, value: Int)] {
        let text = try String(contentsOfFile: log, encoding: .utf8)
        return try text.split(separator: "\n").compactMap { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let bytes = try #require(object["bytes"] as? [Int])
            guard object["read"] as? Bool == false, bytes.count == 2 else { return nil }
            return (bytes[0], bytes[1])
        }
    }

    // The hosted core's clock is the host's: how late a write leaves is the host's
    // wake-up, which a test on a shared machine cannot promise (underruns are a
    // benchmark's figure: EngineBenchmarks --ft232h-only). What a test can pin is that
    // every command was sent on time and none refused.
    @Test("a pattern plays to its end on the FT232H: every command sent on time (0 late), none refused, exit 0, the device named as an FT232H with the core hosted")
    func playsToTheEnd() throws {
        let run = try EmulatedFT232H.run([], [EmulatedFT232H.hapbridge, "play", "ios.notification.error", "--device", "ftdi", "--actuator", "pmd-c10-100"])
        #expect(run.playedToTheEnd, "\(run)")
        #expect(run.output.contains("device: FT232H FT0001 (firmware core hosted in process, MPSSE I2C at 400 kHz"), "\(run)")
        #expect(run.output.contains("engine: started on DRV2605L"), "\(run)")
        #expect(run.output.contains(" commands, 0 late, ") && run.output.contains(" underruns, 0 rejected"), "\(run)")
    }

    /// What a user without CAP_SYS_NICE or an rtprio limit gets (CI's own user; as root
    /// the capability is dropped with setpriv first).
    static func withoutRealTime(_ command: [String]) -> [String] {
        geteuid() == 0 ? ["/usr/bin/setpriv", "--inh-caps=-sys_nice", "--bounding-set=-sys_nice"] + command : command
    }

    @Test("without real-time permission it still plays to the end and says once what precision to expect (one note: the engine's service thread, refused for the same cause, adds none); info says how to allow it")
    func withoutRealTimePermission() throws {
        let hapbridge = EmulatedFT232H.hapbridge
        let play = try EmulatedFT232H.run([], Self.withoutRealTime([hapbridge, "play", "ios.notification.error", "--device", "ftdi", "--actuator", "pmd-c10-100"]))
        #expect(play.playedToTheEnd, "\(play)")
        let notes = play.errors.split(separator: "\n").filter { $0.hasPrefix("note: ") }
        #expect(notes.count == 1, "\(play)")
        #expect(notes.first?.hasPrefix("note: the FT232H's timer thread runs at normal priority") == true, "\(play)")
        #expect(notes.first?.contains("hapbridge info --device ftdi") == true, "\(play)")
        #expect(play.output.contains("host-timed: normal priority"), "\(play)")
        let info = try EmulatedFT232H.run([], Self.withoutRealTime([hapbridge, "info", "--device", "ftdi"]))
        #expect(info.status == 0, "\(info)")
        #expect(info.output.contains("host timing: normal priority"), "\(info)")
        #expect(info.output.contains("rtprio") && info.output.contains("setcap cap_sys_nice"), "\(info)")
    }

    @Test("the RTP amplitudes the chip model saw over MPSSE are the ones the engine stamped, in order; the chip ends in standby")
    func chipSawThePlayedAmplitudes() throws {
        let log = EmulatedFT232H.scratch("i2c.jsonl")
        let record = EmulatedFT232H.scratch("record.json")
        defer {
            try? FileManager.default.removeItem(atPath: log)
            try? FileManager.default.removeItem(atPath: record)
        }
        let run = try EmulatedFT232H.run(
            ["--log", log], [EmulatedFT232H.hapbridge, "play", "ios.notification.error", "--device", "ftdi", "--actuator", "pmd-c10-100", "--record", record])
        #expect(run.playedToTheEnd, "\(run)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: record))) as? [String: Any])
        let commands = try #require(object["commands"] as? [[String: Any]])
        // Signed RTP amplitudes as the chip's byte (two's complement); 0s are also written
        // by bring-up and the stop, so the comparison is of the non-zero drive.
        let stamped = commands.filter { $0["kind"] as? String == "rtp" }.compactMap { $0["amplitude"] as? Int }.map { $0 & 0xFF }.filter { $0 != 0 }
        let seen = try Self.chipWrites(log).filter { $0.register == 0x02 }.map(\.value).filter { $0 != 0 }
        #expect(stamped.count >= 6, "\(commands.count) commands")
        #expect(seen == stamped)
        #expect(run.errors.contains("chip at the end: MODE 0x40, RTP 0x00, EN low: the actuator is not driven"), "\(run)")
    }

    @Test("the FT232H unplugged mid-play (SIGUSR1 to the emulation): the engine stops and says the device disconnected, exit 3")
    func unplugMidPlay() throws {
        let pattern = try Self.writeLongPattern()
        let script = try Self.script(pattern: pattern, action: "kill -USR1 $PPID")
        let run = try EmulatedFT232H.run([], [script])
        #expect(run.output.contains("stopped early") && run.output.contains("device disconnected"), "\(run)")
        #expect(run.output.contains("player-status 3"), "\(run)")
        #expect(run.errors.contains("ft232h unplugged"), "\(run)")
    }

    @Test("SIGINT and SIGTERM mid-play stop the engine (STOP_ALL) and close: the chip is left in standby with EN low, exit 130 / 143")
    func signalsStopTheChip() throws {
        let pattern = try Self.writeLongPattern()
        for (signal, status) in [("INT", 130), ("TERM", 143)] {
            let script = try Self.script(pattern: pattern, action: "kill -\(signal) $PLAYER")
            let run = try EmulatedFT232H.run([], [script])
            #expect(run.output.contains("player-status \(status)"), "\(signal): \(run)")
            #expect(run.output.contains("the engine stopped and the board's queue was flushed"), "\(signal): \(run)")
            #expect(!run.output.contains("hapbridge guard ftdi:"), "an orderly stop disarms the guardian: \(run)")
            #expect(run.errors.contains("chip at the end: MODE 0x40, RTP 0x00, EN low: the actuator is not driven"), "\(signal): \(run)")
        }
    }

    @Test("SIGKILL mid-play: the guardian opens the FT232H the dead player let go of and stops the chip; unguarded, the chip keeps driving")
    func killedPlayerIsStoppedByTheGuardian() throws {
        let pattern = try Self.writeLongPattern()
        let script = try Self.script(pattern: pattern, action: "kill -KILL $PLAYER")
        let guarded = try EmulatedFT232H.run([], [script])
        #expect(guarded.output.contains("player-status 137"), "\(guarded)")
        #expect(guarded.output.contains("hapbridge guard ftdi: FT232H FT0001: the player went away without stopping the DRV2605"), "\(guarded)")
        #expect(guarded.errors.contains("chip at the end: MODE 0x40, RTP 0x00, EN low: the actuator is not driven"), "\(guarded)")

        // The same without the guardian: the emulated FT232H keeps its pins and the chip
        // its registers across the player's death, as the hardware does.
        let unguarded = try EmulatedFT232H.run([], [script], environment: ["HAPBRIDGE_FT232H_GUARDIAN": "off"])
        #expect(unguarded.output.contains("player-status 137"), "\(unguarded)")
        #expect(unguarded.errors.contains("EN high: the actuator is still driven"), "\(unguarded)")
    }
}
