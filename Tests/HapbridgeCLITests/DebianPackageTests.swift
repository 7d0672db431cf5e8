import Foundation
import Testing

/// The Debian package `scripts/package-deb` builds (scripts/test builds it before the
/// Swift tests; `HAPBRIDGE_REQUIRE_PACKAGE=1` makes its absence a failure): unpacked
/// into a directory of its own, as dpkg lays it out, it runs from outside any
/// checkout, with the Swift runtime inside the binary and its data found beside it.
struct DebianPackageTests {
    static var package: String? {
        let build = Hapbridge.path(".build")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: build)) ?? []
        return names.filter { $0.hasPrefix("hapbridge_") && $0.hasSuffix(".deb") }.sorted().last.map { build + "/" + $0 }
    }

    static var required: Bool { ProcessInfo.processInfo.environment["HAPBRIDGE_REQUIRE_PACKAGE"] == "1" }

    @Test("the package unpacked outside any checkout: no Swift runtime linked by any of its binaries, info, play of a built-in, its profiles, firmware, simavr harness, HIL examples, documents, udev rules, the lock directory (tmpfiles.d, made by postinst), completions and man pages")
    func unpackedPackageRunsOutsideACheckout() throws {
        guard let deb = Self.package else {
            // scripts/test keeps scripts/package-deb's log: its end says why there is no package.
            let log = (try? String(contentsOfFile: Hapbridge.path(".build/package-deb.log"), encoding: .utf8)) ?? "(no .build/package-deb.log)"
            let note = "no .build/hapbridge_*.deb: scripts/package-deb ended with:\n\(log.split(separator: "\n").suffix(25).joined(separator: "\n"))"
            if Self.required { Issue.record(Comment(rawValue: note)) } else { print("skipped: no .build/hapbridge_*.deb (scripts/package-deb)") }
            return
        }
        let scratch = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let root = scratch.appendingPathComponent("root").path
        let unpack = try ExamplePackageTests.run(["dpkg-deb", "-x", deb, root], bound: 120, in: scratch)
        #expect(unpack.status == 0, "\(unpack.output)")
        let info = try ExamplePackageTests.run(["dpkg-deb", "-f", deb, "Depends"], bound: 30, in: scratch)
        #expect(
            info.status == 0 && info.output.contains("libusb-1.0-0") && info.output.contains("libsimavr2") && info.output.contains("libyaml-0-2") && !info.output.lowercased().contains("swift"),
            "\(info.output)")

        let exe = root + "/usr/bin/hapbridge"
        // The executable, the harness and the library preloaded into every process
        // `emulate` runs: none may need the Swift toolchain.
        for binary in [exe, root + "/usr/lib/hapbridge/sim-harness", root + "/usr/lib/hapbridge/libHapbridgeEmulationPreload.so"] {
            let linked = try ExamplePackageTests.run(["ldd", binary], bound: 30, in: scratch)
            #expect(
                linked.status == 0 && !linked.output.contains("libswift") && !linked.output.contains("libFoundation") && !linked.output.contains("not found"),
                "\(binary): \(linked.output)")
        }
        for file in [
            "usr/share/hapbridge/actuators/pmd-c10-100.json", "usr/share/hapbridge/actuators/actuator-profile.schema.json",
            "usr/share/hapbridge/firmware/hapbridge-32u4.hex", "usr/lib/hapbridge/libHapbridgeEmulationPreload.so", "usr/lib/udev/rules.d/60-hapbridge.rules", "usr/lib/sysusers.d/hapbridge.conf",
            "usr/lib/tmpfiles.d/hapbridge.conf", "usr/share/bash-completion/completions/hapbridge", "usr/share/zsh/vendor-completions/_hapbridge",
            "usr/share/fish/vendor_completions.d/hapbridge.fish", "usr/share/man/man1/hapbridge.1.gz", "usr/share/man/man1/hapbridge-play.1.gz",
            "usr/share/doc/hapbridge/copyright", "usr/lib/hapbridge/sim-harness", "usr/share/hapbridge/firmware/hapbridge-32u4.elf",
            "usr/share/hapbridge/hil/README.md", "usr/share/hapbridge/hil/bench.schema.json", "usr/share/hapbridge/hil/test.schema.json",
            "usr/share/hapbridge/hil/bench-sim.yaml", "usr/share/hapbridge/hil/suite.yaml", "usr/share/doc/hapbridge/README.md",
            "usr/share/doc/hapbridge/docs/HARDWARE-STATUS.md", "usr/share/doc/hapbridge/Hardware/udev/README.md",
        ] {
            #expect(FileManager.default.fileExists(atPath: root + "/" + file), "\(file) missing from the package")
        }

        // The man pages say what the installed executable's help says: the installed
        // files, not the directory the package was staged in.
        let manual = try ExamplePackageTests.run(["zcat", root + "/usr/share/man/man1/hapbridge-run.1.gz"], bound: 30, in: scratch)
        #expect(manual.status == 0 && manual.output.contains("Formats: /usr/share/hapbridge/hil/*.schema.json"), "\(manual.output)")
        let rootManual = try ExamplePackageTests.run(["zcat", root + "/usr/share/man/man1/hapbridge.1.gz"], bound: 30, in: scratch)
        #expect(rootManual.status == 0 && rootManual.output.contains("/usr/share/doc/hapbridge.") && !rootManual.output.contains("/tmp/"), "\(rootManual.output)")

        // run's host-wide lock directory (Examples/hil/README.md, "Where"): the package's
        // tmpfiles.d entry makes it 2775 root:hapbridge, and its postinst has it made at
        // once (stubbed here: the calls it makes are recorded, nothing on this host changes).
        let control = scratch.appendingPathComponent("control").path
        let extracted = try ExamplePackageTests.run(["dpkg-deb", "-e", deb, control], bound: 30, in: scratch)
        #expect(extracted.status == 0, "\(extracted.output)")
        let stubs = scratch.appendingPathComponent("stubs").path
        try FileManager.default.createDirectory(atPath: stubs, withIntermediateDirectories: true)
        let calls = scratch.appendingPathComponent("calls.log").path
        for stub in ["systemd-sysusers", "systemd-tmpfiles", "udevadm"] {
            try "#!/bin/sh\necho \"$(basename \"$0\") $*\" >> \(calls)\n".write(toFile: stubs + "/" + stub, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: stubs + "/" + stub)
        }
        let configured = try ExamplePackageTests.run(
            ["PATH=\(stubs):/usr/bin:/bin", "sh", control + "/postinst", "configure"], bound: 30, in: scratch)
        let made = (try? String(contentsOfFile: calls, encoding: .utf8)) ?? ""
        #expect(
            configured.status == 0 && made.contains("systemd-sysusers /usr/lib/sysusers.d/hapbridge.conf")
                && made.contains("systemd-tmpfiles --create /usr/lib/tmpfiles.d/hapbridge.conf"),
            "postinst: \(configured.output)\ncalls: \(made)")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-tmpfiles") {
            // What the entry makes, applied to a scratch root whose group file has the group.
            let target = scratch.appendingPathComponent("tmpfiles-root").path
            try FileManager.default.createDirectory(atPath: target + "/etc", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: target + "/run/lock", withIntermediateDirectories: true)
            try "root:x:0:\nhapbridge:x:4242:\n".write(toFile: target + "/etc/group", atomically: true, encoding: .utf8)
            try "root:x:0:0:root:/root:/bin/sh\n".write(toFile: target + "/etc/passwd", atomically: true, encoding: .utf8)
            let created = try ExamplePackageTests.run(
                ["systemd-tmpfiles", "--root=" + target, "--create", root + "/usr/lib/tmpfiles.d/hapbridge.conf"], bound: 30, in: scratch)
            let attributes = try? FileManager.default.attributesOfItem(atPath: target + "/run/lock/hapbridge")
            #expect(
                created.status == 0 && (attributes?[.posixPermissions] as? Int) == 0o2775 && (attributes?[.groupOwnerAccountID] as? Int) == 4242,
                "\(created.output) \(String(describing: attributes))")
        }

        // Run from a directory with no checkout above it.
        let elsewhere = scratch.appendingPathComponent("elsewhere").path
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let run = try ExamplePackageTests.run([exe, "info", "--device", "sim"], bound: 60, in: scratch, directory: elsewhere)
        #expect(run.status == 0 && run.output.contains("device: simulated bridge board"), "\(run.output)")
        let play = try ExamplePackageTests.run([exe, "play", "impact.heavy"], bound: 120, in: scratch, directory: elsewhere)
        #expect(play.status == 0 && play.output.contains(" 0 late, 0 underruns"), "\(play.output)")
        // flash finds the firmware image the package carries, in PREFIX/share/hapbridge/firmware.
        let dry = try ExamplePackageTests.run([exe, "flash", "--dry-run"], bound: 60, in: scratch, directory: elsewhere)
        #expect(dry.status == 0 && dry.output.contains(root + "/usr/share/hapbridge/firmware/hapbridge-32u4.hex") && dry.output.contains("atmega32u4"), "\(dry.output)")
        // emulate preloads the package's own library (PREFIX/lib/hapbridge) in front of umockdev's.
        let emulate = try ExamplePackageTests.run(
            [exe, "emulate", "bridge", "--", "/bin/sh", "-c", "echo \"$LD_PRELOAD\""], bound: 60, in: scratch, directory: elsewhere)
        #expect(
            emulate.status == 0 && emulate.output.contains(root + "/usr/lib/hapbridge/libHapbridgeEmulationPreload.so libumockdev-preload.so.0"),
            "\(emulate.output)")
        // A shipped actuator profile by name: found in PREFIX/share/hapbridge/actuators.
        let named = try ExamplePackageTests.run([exe, "play", "impact.light", "--actuator", "pmd-307-103"], bound: 120, in: scratch, directory: elsewhere)
        #expect(named.status == 0, "\(named.output)")
    }
}
