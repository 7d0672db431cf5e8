import Foundation
import Testing

extension EmulatedBoards {
    /// `hapbridge emulate` as a process: COMMAND's exit status comes back, and a
    /// mistake is one clear line.
    @Suite
    struct ProcessTests {
        @Test("COMMAND's exit status is the emulation's")
        func exitStatusIsCommands() throws {
            #expect(try Emulate.bridge(.core, [], ["sh", "-c", "exit 3"]).status == 3)
            #expect(try Emulate.bridge(.core, [], ["true"]).status == 0)
        }

        @Test("A COMMAND killed by signal N gives 128 + N, as the shell reports it")
        func deathBySignal() throws {
            #expect(try Emulate.bridge(.core, [], ["sh", "-c", "kill -TERM $$"]).status == 128 + SIGTERM)
        }

        @Test("SIGTERM to the emulation is passed on to COMMAND, and its death by it is the exit status")
        func termIsForwarded() throws {
            // COMMAND's parent is the emulation; exec keeps the pid the signal goes to.
            let run = try Emulate.bridge(.core, [], ["sh", "-c", "kill -TERM $PPID; exec sleep 60"])
            #expect(run.status == 128 + SIGTERM, "\(run)")
        }

        @Test("Without umockdev's preload library the emulation stops with one line naming the Debian package")
        func preloadMissing() throws {
            let run = try Emulate.run(
                ["/usr/bin/env", "LD_PRELOAD=/nonexistent/libumockdev-preload.so.0", Emulate.hapbridge, "emulate", "bridge", "--", "true"])
            #expect(run.status == 125)
            #expect(run.errors.contains("Error: umockdev's preload library libumockdev-preload.so.0"), "\(run)")
            #expect(run.errors.contains("Debian package umockdev"))
        }

        @Test("A COMMAND that does not exist gives 127 and names it")
        func commandNotFound() throws {
            let run = try Emulate.bridge(.core, [], ["/nonexistent/program"])
            #expect(run.status == 127)
            #expect(run.errors.contains("cannot run /nonexistent/program"))
        }

        @Test("COMMAND runs under umockdev with the control socket in its environment")
        func environment() throws {
            let run = try Emulate.bridge(.core, [], ["sh", "-c", "echo \"$UMOCKDEV_DIR|$HAPBRIDGE_EMULATE_CONTROL|$LD_PRELOAD\""])
            #expect(run.status == 0, "\(run)")
            let parts = run.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|", omittingEmptySubsequences: false)
            try #require(parts.count == 3)
            #expect(!parts[0].isEmpty)
            #expect(parts[1].hasSuffix("/control"), "the control socket, in a private directory of its own")
            #expect(parts[2].contains("libumockdev-preload.so"))
        }

        @Test("A serial number the firmware would refuse is rejected before anything starts, naming the rule")
        func badSerial() throws {
            let run = try Emulate.bridge(.core, ["--serial", "has space"], ["true"])
            #expect(run.status != 0)
            #expect(run.errors.contains("[0-9A-Za-z._-]"), "\(run)")
        }

        @Test("--firmware elf with an --elf that is not there names the file it was given, before anything starts")
        func missingELF() throws {
            let run = try Emulate.run([Emulate.hapbridge, "emulate", "bridge", "--firmware", "elf", "--elf", "/nonexistent.elf", "--", "true"])
            #expect(run.status != 0)
            #expect(run.errors == "Error: --firmware elf: the firmware ELF /nonexistent.elf does not exist\n", "\(run)")
        }
    }
}
