import Foundation
import Testing

extension EmulatedBoards {
    /// The emulation's own surface
    /// (its control socket, `emulate control`, its set-up errors, what COMMAND starts
    /// with) holds against a hostile client, through the built executable.
    @Suite
    struct ControlSurfaceTests {
        static let escape = "\u{1B}"

        // MARK: the control socket

        @Test("A control line over 4 KiB is refused with the limit and its connection closed at once; the next client is answered")
        func longLineIsRefused() throws {
            let run = try Emulate.bridge(.core, [], [Emulate.probe, "control-flood", "8388608"])
            #expect(run.status == 0, "\(run)")
            let flood = run.record("flood")
            #expect(flood["reply"]?.hasPrefix("error line too long (more than 4096 bytes without a newline; the limit is 4096)") == true, "\(run)")
            // The emulation stopped reading after the limit: far less than 8 MiB went in.
            #expect((Int(flood["sent"] ?? "") ?? .max) < 4 << 20, "\(run)")
            #expect((Double(flood["ms"] ?? "") ?? .infinity) < 5000, "\(run)")
            #expect(flood["then-list"] == "ok", "\(run)")
        }

        @Test("300 connections at once cost the emulation no thread each; a fresh client is answered while they wait")
        func connectionsShareOneThread() throws {
            // The probe is COMMAND itself, so its parent is the emulation.
            let run = try Emulate.bridge(.core, [], [Emulate.probe, "control-crowd", "300"])
            #expect(run.status == 0, "\(run)")
            let crowd = run.record("crowd")
            let before = Int(crowd["threads-before"] ?? "") ?? -1
            let during = Int(crowd["threads-during"] ?? "") ?? .max
            #expect(before > 0 && during <= before, "no thread per connection: \(run)")
            #expect(crowd["list"] == "ok", "\(run)")
            // Each silent connection ahead of it gives way after a second of quiet.
            #expect((Double(crowd["list-ms"] ?? "") ?? .infinity) < 15000, "\(run)")
        }

        @Test("What the control socket echoes (an unknown board, a command) has no raw control bytes, and a long name is cut with its length")
        func echoesAreEscaped() throws {
            let long = String(repeating: "n", count: 300)
            let run = try Emulate.bridge(
                .core, [],
                [
                    "sh", "-c",
                    """
                    \(Emulate.probe) control-raw "$(printf 'unplug \\033]0;title\\007x')"
                    \(Emulate.probe) control-raw "frob $(printf '\\033[2J')"
                    \(Emulate.probe) control-raw "replug \(long)"
                    """,
                ])
            #expect(run.status == 0, "\(run)")
            let raws = run.records("raw")
            try #require(raws.count == 3, "\(run)")
            #expect(raws.allSatisfy { $0["raw-controls"] == "0" }, "\(run)")
            #expect(raws[0]["reply"]?.contains(#"error no board \x1B]0;title\x07x"#) == true, "\(run)")
            #expect(raws[1]["reply"]?.contains(#"error unknown command \x22frob \x1B[2J\x22"#) == true, "\(run)")
            #expect(raws[2]["reply"]?.contains("… (300 characters)") == true, "\(run)")
            #expect(raws[2]["reply"]?.contains(long) == false, "\(run)")
        }

        @Test("add --serial over the control socket refuses a serial in use in the command line's words, and one the firmware refuses")
        func addRefusesDuplicateAndBadSerials() throws {
            let script = """
                h=\(Emulate.hapbridge)
                $h emulate control add --serial 0001; echo "status dup=$?"
                $h emulate control add --serial "bad$(printf '\\033')x"; echo "status bad=$?"
                $h emulate control add --serial 123456789012345678901; echo "status long=$?"
                $h emulate control add --serial FRESH; echo "status fresh=$?"
                $h emulate control unplug "$(printf 'x\\033[31m')"; echo "status unknown=$?"
                """
            let run = try Emulate.bridge(.core, [], ["sh", "-c", script])
            #expect(run.status == 0, "\(run)")
            let status = run.merged("status")
            #expect(status["dup"] == "1" && status["bad"] == "1" && status["long"] == "1" && status["unknown"] == "1", "\(run)")
            #expect(status["fresh"] == "0", "\(run)")
            #expect(run.output.contains("error --serial: each board needs its own serial number (board 1-1 has 0001)"), "\(run)")
            #expect(run.output.contains(#"error serial number "bad\x1Bx": byte 3 is not one of [0-9A-Za-z._-]"#), "\(run)")
            #expect(run.output.contains("has 21 characters; at most 20"), "\(run)")
            #expect(run.output.contains("ok plugged 1-2 serial=FRESH"), "\(run)")
            #expect(run.output.contains(#"error no board x\x1B[31m (see `list`)"#), "\(run)")
            #expect(!run.output.contains(Self.escape), "no raw ESC reaches the terminal: \(run)")
        }

        @Test("emulate control: no command is a usage error (2) with the usage; --help is help, never a command for the emulation")
        func controlCommandLine() throws {
            let script = """
                h=\(Emulate.hapbridge)
                $h emulate control; echo "status none=$?"
                $h emulate control --help >"$HELP_OUT"; echo "status help=$?"
                $h emulate control -h >/dev/null; echo "status h=$?"
                $h emulate control --socket "$HAPBRIDGE_EMULATE_CONTROL" list; echo "status list=$?"
                """
            let help = FileManager.default.temporaryDirectory.appendingPathComponent("emulate-help-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: help) }
            let run = try Emulate.run(["/usr/bin/env", "HELP_OUT=\(help)", Emulate.hapbridge, "emulate", "bridge", "--", "sh", "-c", script])
            #expect(run.status == 0, "\(run)")
            let status = run.merged("status")
            #expect(status["none"] == "2" && status["help"] == "0" && status["h"] == "0" && status["list"] == "0", "\(run)")
            #expect(run.errors.contains("Error: give a command: list, unplug [BOARD]"), "\(run)")
            #expect(run.errors.contains("Usage: hapbridge emulate control"), "\(run)")
            let helpText = (try? String(contentsOfFile: help, encoding: .utf8)) ?? ""
            #expect(helpText.contains("USAGE: hapbridge emulate control"), "\(helpText)")
            #expect(!helpText.contains("unknown command"), "--help went to the emulation: \(helpText)")
        }

        // MARK: set-up failures and usage errors

        @Test("A set-up failure exits 125 with one line `Error: …`: an unknown actuator, a harness that is not one, an ELF that is garbage")
        func setUpFailuresAre125() throws {
            let garbage = FileManager.default.temporaryDirectory.appendingPathComponent("garbage-\(UUID().uuidString).elf").path
            try "not an ELF\n".write(toFile: garbage, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: garbage) }
            let cases: [[String]] = [
                ["--actuator", "nope"],
                ["--firmware", "elf", "--harness", "/etc/hostname", "--elf", garbage],
                ["--firmware", "elf", "--harness", "/bin/true", "--elf", garbage],
                ["--firmware", "elf", "--harness", "/bin/true", "--elf", "/nonexistent.elf"],
            ]
            for options in cases {
                let run = try Emulate.run([Emulate.hapbridge, "emulate", "bridge"] + options + ["--", "true"])
                #expect(run.status == 125, "\(options): \(run)")
                let lines = run.errors.split(separator: "\n")
                #expect(lines.count == 1 && lines.first?.hasPrefix("Error: ") == true, "\(options): \(run)")
            }
        }

        @Test("An option malformed on its face stays a usage error (2): a serial the firmware refuses, --boards out of range, no COMMAND")
        func malformedOptionsAreUsageErrors() throws {
            for options in [["--serial", "has space", "--", "true"], ["--boards", "0", "--", "true"], ["--serial", "A", "--serial", "A", "--", "true"], []] {
                let run = try Emulate.run([Emulate.hapbridge, "emulate", "bridge"] + options)
                #expect(run.status == 2, "\(options): \(run)")
                #expect(run.errors.contains("Usage: hapbridge emulate bridge"), "\(options): \(run)")
            }
        }

        // MARK: COMMAND's start

        @Test("COMMAND starts with every signal at its default and none blocked: `yes | head -1` ends quietly")
        func commandStartsWithDefaultSignals() throws {
            let run = try Emulate.bridge(.core, [], ["sh", "-c", #"grep -E '^Sig(Ign|Blk)' /proc/self/status | tr -d ':\t' | sed 's/^Sig/sig /;s/Ign/ ign=/;s/Blk/ blk=/'; yes | head -1"#])
            #expect(run.status == 0, "\(run)")
            let masks = run.merged("sig")
            // Bit N-1 is signal N. Signals 32 and 33 are glibc's own (thread cancellation,
            // set*id), which posix_spawn leaves ignored in every child; 1...31 and the
            // rest must be at their defaults.
            let ignored = UInt64(masks["ign"] ?? "", radix: 16) ?? .max
            #expect(ignored & ~(UInt64(0b11) << 31) == 0, "ignored: \(masks["ign"] ?? "?") \(run)")
            #expect(ignored & (1 << (UInt64(SIGPIPE) - 1)) == 0, "SIGPIPE ignored: \(run)")
            #expect(UInt64(masks["blk"] ?? "", radix: 16) == 0, "blocked: \(run)")
            #expect(run.output.contains("y\n"), "\(run)")
            #expect(!run.errors.contains("Broken pipe"), "\(run)")
        }

        // MARK: the socket's file

        @Test("The control socket lives in a private directory (0700) of its own, removed with the socket at the end")
        func socketInPrivateDirectory() throws {
            let run = try Emulate.bridge(.core, [], ["sh", "-c", #"d=$(dirname "$HAPBRIDGE_EMULATE_CONTROL"); echo "socket path=$HAPBRIDGE_EMULATE_CONTROL mode=$(stat -c %a "$d") type=$(stat -c %F "$HAPBRIDGE_EMULATE_CONTROL" | tr ' ' _)""#])
            #expect(run.status == 0, "\(run)")
            let socket = run.record("socket")
            #expect(socket["mode"] == "700", "\(run)")
            #expect(socket["type"] == "socket", "\(run)")
            let path = try #require(socket["path"])
            #expect(!FileManager.default.fileExists(atPath: path), "socket left behind: \(path)")
            #expect(!FileManager.default.fileExists(atPath: (path as NSString).deletingLastPathComponent), "directory left behind")
        }

        @Test("--control-socket never replaces what is not a socket (a file, a symlink): 125 and it is left as it was; a stale socket is replaced and removed at the end")
        func givenSocketPath() throws {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("emulate-socket-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let file = dir + "/file"
            try "keep me\n".write(toFile: file, atomically: true, encoding: .utf8)
            let link = dir + "/link"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
            for path in [file, link] {
                let run = try Emulate.run([Emulate.hapbridge, "emulate", "bridge", "--control-socket", path, "--", "true"])
                #expect(run.status == 125, "\(path): \(run)")
                #expect(run.errors.contains("not a socket; not replaced"), "\(run)")
            }
            #expect((try? String(contentsOfFile: file, encoding: .utf8)) == "keep me\n")
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == file)

            // A socket left by an emulation that was killed: nobody answers on it.
            let stale = dir + "/stale"
            try Self.leaveStaleSocket(at: stale)
            let run = try Emulate.run([
                Emulate.hapbridge, "emulate", "bridge", "--control-socket", stale, "--", "sh", "-c", #"hapbridge_control="$HAPBRIDGE_EMULATE_CONTROL"; echo "control path=$hapbridge_control""#,
            ])
            #expect(run.status == 0, "\(run)")
            #expect(run.record("control")["path"] == stale, "\(run)")
            #expect(!FileManager.default.fileExists(atPath: stale), "our socket is removed at the end")
        }

        /// A bound Unix socket whose listener is gone.
        static func leaveStaleSocket(at path: String) throws {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { p in
                for (i, b) in path.utf8.enumerated() { p[i] = b }
            }
            let bound = withUnsafePointer(to: &address) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            try #require(bound == 0, "bind \(path): \(String(cString: strerror(errno)))")
        }
    }
}
