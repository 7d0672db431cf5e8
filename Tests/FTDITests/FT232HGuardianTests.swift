import FTDIBridge
import Foundation
import HostedBoard
import Testing

/// The FT232H never drives unattended: `play --device ftdi` hosts the firmware core (and
/// its host-silence watchdog) in the player, so whatever leaves the player unable to act
/// — stopped, killed, or left without its guardian — must end the drive from outside it.
/// Each case through the built CLI under `hapbridge emulate ft232h`, the chip's I2C log
/// the witness of what it got; the scripts act on the processes' own output, never on a
/// clock (`HostedPlayTests.script`).
@Suite("the FT232H never drives unattended: the player's guardian", .serialized)
struct FT232HGuardianTests {
    static let standbyWithENLow = "chip at the end: MODE 0x40, RTP 0x00, EN low: the actuator is not driven"

    /// The chip's writes: the last non-zero RTP amplitude came before the last STANDBY
    /// (nothing drove after the stop), and there was a drive at all.
    static func lastDriveBeforeLastStandby(_ log: String) throws -> Bool {
        let writes = try HostedPlayTests.chipWrites(log)
        let lastDrive = try #require(writes.lastIndex { $0.register == 0x02 && $0.value != 0 }, "the chip was never driven")
        let lastStandby = try #require(writes.lastIndex { $0.register == 0x01 && $0.value == 0x40 }, "never put in standby")
        return lastDrive < lastStandby
    }

    @Test(
        "SIGSTOP of the player mid-play: the guardian takes the FT232H from it (its claim too) and puts the chip in standby with EN low; continued a second later, the player drives nothing more and stops, exit 3, giving the guardian's reason"
    )
    func stoppedPlayerIsTakenOver() throws {
        let pattern = try HostedPlayTests.writeLongPattern()
        let log = EmulatedFT232H.scratch("i2c.jsonl")
        defer { try? FileManager.default.removeItem(atPath: log) }
        // Held stopped for a second after the takeover (the stimulus, not a wait for a
        // result): past the hosted core's own 500 ms keep-alive, whose watchdog, stopped
        // with the player, may fire as it is continued; the guardian's reason must be said
        // whichever the engine hears first.
        let script = try HostedPlayTests.script(
            pattern: pattern, action: "kill -STOP $PLAYER", later: ["took the FT232H from it": "sleep 1; kill -CONT $PLAYER"])
        let run = try EmulatedFT232H.run(["--log", log], [script])
        #expect(run.output.contains("hapbridge guard ftdi: FT232H FT0001: player (pid "), "\(run)")
        #expect(run.output.contains("was stopped (SIGSTOP"), "\(run)")
        #expect(run.output.contains("took the FT232H from it and put the DRV2605 in standby with EN low"), "\(run)")
        #expect(run.output.contains("player-status 3"), "\(run)")
        #expect(run.output.contains("stopped early") && run.output.contains("the FT232H's guardian took the adapter and stopped the chip: this player was stopped"), "\(run)")
        #expect(run.errors.contains(Self.standbyWithENLow), "\(run)")
        #expect(try Self.lastDriveBeforeLastStandby(log), "the continued player drove the chip again")
    }

    @Test(
        "SIGTSTP (Ctrl-Z) mid-play: the player stops the chip, writes its record and closes the FT232H (the guardian disarmed) before it suspends; continued, it exits 148"
    )
    func tstpStopsThenSuspends() throws {
        let pattern = try HostedPlayTests.writeLongPattern()
        let record = EmulatedFT232H.scratch("record.json")
        defer { try? FileManager.default.removeItem(atPath: record) }
        // Suspended: the kernel's state letter T, polled within a generous bound; the record
        // already written; then continued.
        let suspended = """
            i=0; until grep -q ') T ' /proc/$PLAYER/stat || [ $i -ge 3000 ]; do sleep 0.01; i=$((i+1)); done; \
            echo "player-state $(sed 's/.*) //' /proc/$PLAYER/stat | cut -d' ' -f1)"; \
            [ -s "\(record)" ] && echo record-written-before-continuing; kill -CONT $PLAYER
            """
        let script = try HostedPlayTests.script(
            pattern: pattern, options: ["--record", record], action: "kill -TSTP $PLAYER", later: ["suspended (SIGTSTP)": suspended])
        let run = try EmulatedFT232H.run([], [script])
        #expect(run.output.contains("stopped: interrupted by SIGTSTP"), "\(run)")
        #expect(run.output.contains("player-state T"), "\(run)")
        #expect(run.output.contains("record-written-before-continuing"), "\(run)")
        #expect(run.output.contains("player-status 148"), "\(run)")
        #expect(!run.output.contains("hapbridge guard ftdi:"), "an orderly stop disarms the guardian: \(run)")
        #expect(run.errors.contains(Self.standbyWithENLow), "\(run)")
    }

    @Test("the guardian killed alone mid-play: the player stops the chip at once and its play, exit 3, saying its guardian ended (killed by SIGKILL)")
    func killedGuardianStopsThePlay() throws {
        let pattern = try HostedPlayTests.writeLongPattern()
        let log = EmulatedFT232H.scratch("i2c.jsonl")
        defer { try? FileManager.default.removeItem(atPath: log) }
        let script = try HostedPlayTests.script(pattern: pattern, action: "kill -KILL $GUARDIAN")
        let run = try EmulatedFT232H.run(["--log", log], [script])
        #expect(run.output.contains("player-status 3"), "\(run)")
        #expect(run.output.contains("the FT232H's guardian (pid ") && run.output.contains("ended (killed by SIGKILL)"), "\(run)")
        #expect(run.errors.contains(Self.standbyWithENLow), "\(run)")
        #expect(try Self.lastDriveBeforeLastStandby(log))
    }

    @Test("the guardian stopped (SIGSTOP) mid-play: the player stops the chip and its play, exit 3, saying its guardian is stopped")
    func stoppedGuardianStopsThePlay() throws {
        let pattern = try HostedPlayTests.writeLongPattern()
        let script = try HostedPlayTests.script(
            pattern: pattern, action: "kill -STOP $GUARDIAN", later: ["stopped early": "kill -CONT $GUARDIAN"])
        let run = try EmulatedFT232H.run([], [script])
        #expect(run.output.contains("player-status 3"), "\(run)")
        #expect(run.output.contains("the FT232H's guardian (pid ") && run.output.contains("is stopped (SIGSTOP"), "\(run)")
        #expect(run.errors.contains(Self.standbyWithENLow), "\(run)")
    }

    @Test(
        "pkill -9 by the name hapbridge, by comm and with -f by command line, kills the player and spares its guardian (named ft232h-guardian), which then stops the chip"
    )
    func pkillByNameSparesTheGuardian() throws {
        let pattern = try HostedPlayTests.writeLongPattern()
        // `pkill -9 hapbridge` as a user types it, kept to this run's processes (-P: the
        // guardian is the player's child, the player the script's), the guardian's first.
        let action = """
            echo "guardian-comm $(cat /proc/$GUARDIAN/comm)"; echo "guardian-cmdline $(tr '\\0' ' ' </proc/$GUARDIAN/cmdline)"; \
            pkill -9 -P $PLAYER hapbridge; pkill -9 -f -P $PLAYER hapbridge; pkill -9 -P $$ hapbridge
            """
        let script = try HostedPlayTests.script(pattern: pattern, action: action)
        let run = try EmulatedFT232H.run([], [script])
        #expect(run.output.contains("guardian-comm \(FT232HGuardian.processName)"), "\(run)")
        let cmdline = try #require(run.output.split(separator: "\n").first { $0.hasPrefix("guardian-cmdline ") })
        #expect(!cmdline.contains("hapbridge") && cmdline.contains("\(FT232HGuardian.processName) guard ftdi --player "), "\(cmdline)")
        #expect(run.output.contains("player-status 137"), "\(run)")
        #expect(run.output.contains("hapbridge guard ftdi: FT232H FT0001: the player went away without stopping the DRV2605"), "\(run)")
        #expect(run.errors.contains(Self.standbyWithENLow), "\(run)")
    }

    @Test("a guardian that cannot be started, or ends before it is ready, is an error saying why (the player then refuses to drive)")
    func guardianThatCannotStartIsAnError() throws {
        let missing = FT232HGuardian.Command(executable: "/nonexistent/hapbridge", arguments: [])
        #expect {
            _ = try FT232HGuardian(command: missing, usbfs: "/dev/null", sclHz: 400_000, serial: nil)
        } throws: { error in
            (error as? FT232HGuardianError)?.description == "/nonexistent/hapbridge: No such file or directory"
        }
        let failing = FT232HGuardian.Command(executable: "/bin/false", arguments: [])
        #expect {
            _ = try FT232HGuardian(command: failing, usbfs: "/dev/null", sclHz: 400_000, serial: nil)
        } throws: { error in
            (error as? FT232HGuardianError)?.description == "it ended before it was ready (exit status 1)"
        }
    }
}
