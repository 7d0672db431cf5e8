import Foundation
import Testing

/// The Debian package with the tree it was built in out of reach: unpacked into a
/// directory of its own and run with the checkout and the Swift toolchain hidden
/// behind empty mounts in a private mount namespace (as root, where `unshare` is
/// allowed), so a path into either fails as it would on a user's machine; with strace
/// there, every file system call is recorded and none may name the checkout. Without
/// `unshare`, the trace alone is the proof.
@Suite(.serialized)
struct StandalonePackageTests {
    /// How the build tree is kept out of reach, or nil when neither way is available.
    enum Isolation: String {
        case hidden = "the checkout and the Swift toolchain hidden (unshare)"
        case traced = "every file system call traced (strace)"
    }

    static func commandWorks(_ arguments: [String], in scratch: URL) -> Bool {
        (try? ExamplePackageTests.run(arguments, bound: 60, in: scratch).status) == 0
    }

    /// The toolchain the test runner's Swift runtime comes from (`/opt/swift` for
    /// `/opt/swift/usr/lib/swift/linux/libswiftCore.so`), nil when it is under /usr
    /// itself and cannot be hidden without hiding the system.
    static var toolchain: String? {
        let maps = (try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)) ?? ""
        guard let line = maps.split(separator: "\n").first(where: { $0.hasSuffix("/libswiftCore.so") }),
            let path = line.split(separator: " ").last.map(String.init),
            let range = path.range(of: "/usr/lib/swift/")
        else { return nil }
        let root = String(path[..<range.lowerBound])
        return root.isEmpty ? nil : root
    }

    @Test(
        "The installed package stands alone: with its build tree out of reach, emulate bridge --firmware elf runs the harness and ELF it carries, run plays its shipped HIL examples, flash --dry-run finds its image, and the help names the installed files"
    )
    func installedPackageStandsAlone() throws {
        guard let deb = DebianPackageTests.package else {
            let note = "no .build/hapbridge_*.deb: run scripts/package-deb"
            if DebianPackageTests.required { Issue.record(Comment(rawValue: note)) } else { print("skipped: \(note)") }
            return
        }
        let checkout = Hapbridge.repository.standardizedFileURL.path
        let scratch = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        #expect(!scratch.path.hasPrefix(checkout + "/"), "the scratch directory \(scratch.path) is inside the checkout")
        let root = scratch.appendingPathComponent("root").path
        let unpack = try ExamplePackageTests.run(["dpkg-deb", "-x", deb, root], bound: 120, in: scratch)
        try #require(unpack.status == 0, "\(unpack.output)")

        let canHide = Self.commandWorks(["unshare", "--mount", "--propagation", "private", "--", "true"], in: scratch)
        let canTrace = Self.commandWorks(["strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=%file", "-o", "/dev/null", "true"], in: scratch)
        guard canHide || canTrace else {
            let note = "neither unshare (as root) nor strace (scripts/apt-packages.txt) is available to keep the build tree out of reach"
            if DebianPackageTests.required { Issue.record(Comment(rawValue: note)) } else { print("skipped: \(note)") }
            return
        }
        let isolation: Isolation = canHide ? .hidden : .traced

        // Each command's output and status in a file of its own; the working directory
        // and HOME outside the checkout; nothing from this environment passed on.
        let work = scratch.appendingPathComponent("work").path
        try FileManager.default.createDirectory(atPath: work + "/home", withIntermediateDirectories: true)
        let exe = root + "/usr/bin/hapbridge", hil = root + "/usr/share/hapbridge/hil"
        let commands: [(name: String, line: String)] = [
            ("emulate", "'\(exe)' emulate bridge --firmware elf -- '\(exe)' info --device usb"),
            ("run", "'\(exe)' run '\(hil)/bench-sim.yaml' '\(hil)/suite.yaml' --lock-dir '\(work)/locks' --json '\(work)/run.json'"),
            ("flash", "'\(exe)' flash --dry-run"),
            ("run-help", "'\(exe)' run --help"),
            ("help", "'\(exe)' --help"),
        ]
        let script = (["cd '\(work)' || exit 1"] + commands.map { "\($0.line) >'\(work)/\($0.name).out' 2>&1; echo $? >'\(work)/\($0.name).status'" })
            .joined(separator: "\n")
        try script.write(toFile: work + "/commands.sh", atomically: true, encoding: .utf8)
        let environment = ["env", "-i", "PATH=/usr/bin:/bin", "HOME=\(work)/home", "LANG=C.UTF-8", "COLUMNS=1000"]
        let traced = canTrace ? ["strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=%file", "-o", work + "/trace"] : []
        let inner = environment + traced + ["/bin/sh", work + "/commands.sh"]
        var arguments = inner
        if isolation == .hidden {
            // Empty read-only mounts over the checkout and the toolchain, then the commands.
            let hide = ([checkout] + (Self.toolchain.map { [$0] } ?? [])).map { "mount -t tmpfs -o size=64k,mode=0555 hidden '\($0)' || exit 125" }
            arguments = ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", hide.joined(separator: "; ") + "; exec \"$@\"", "sh"] + inner
        }
        let ran = try ExamplePackageTests.run(arguments, bound: 900, in: scratch, directory: work)
        try #require(ran.status == 0, "the commands did not run (\(isolation.rawValue)): \(ran.output)")

        func result(_ name: String) -> (status: Int32?, output: String) {
            let status = (try? String(contentsOfFile: "\(work)/\(name).status", encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            return (status, (try? String(contentsOfFile: "\(work)/\(name).out", encoding: .utf8)) ?? "")
        }
        // The ELF under simavr behind emulated USB: the firmware's own identity.
        let emulate = result("emulate")
        #expect(
            emulate.status == 0 && emulate.output.contains("firmware 0.") && emulate.output.contains("chip: DRV2605L"),
            "emulate bridge --firmware elf (\(isolation.rawValue)): \(emulate.output)")
        // The shipped examples: the suite's designed verdicts, exit 9 (Examples/hil/README.md).
        let run = result("run")
        #expect(run.status == 9, "run on \(hil) (\(isolation.rawValue)): \(run.output)")
        let record = (try? Data(contentsOf: URL(fileURLWithPath: work + "/run.json"))).flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]
        let verdicts = Dictionary(
            ((record?["tests"] as? [[String: Any]]) ?? []).map { ($0["name"] as? String ?? "", $0["verdict"] as? String ?? "") }, uniquingKeysWith: { a, _ in a })
        #expect(verdicts["bring-up"] == "PASS" && verdicts["device vanishes"] == "ERROR" && verdicts["rise time too tight"] == "FAIL", "\(verdicts)")
        let flash = result("flash")
        #expect(flash.status == 0 && flash.output.contains(root + "/usr/share/hapbridge/firmware/hapbridge-32u4.hex"), "flash --dry-run: \(flash.output)")
        let runHelp = result("run-help")
        #expect(runHelp.status == 0 && runHelp.output.contains("Formats: \(hil)/*.schema.json"), "run --help: \(runHelp.output)")
        let help = result("help")
        #expect(help.status == 0 && help.output.contains(root + "/usr/share/doc/hapbridge"), "--help: \(help.output)")

        if canTrace {
            let trace = (try? String(contentsOfFile: work + "/trace", encoding: .utf8)) ?? ""
            #expect(!trace.isEmpty, "strace wrote no trace")
            let intoCheckout = trace.split(separator: "\n").filter { $0.contains("\"\(checkout)/") || $0.contains("\"\(checkout)\"") }
            #expect(intoCheckout.isEmpty, "the installed package looked into the checkout:\n\(intoCheckout.prefix(10).joined(separator: "\n"))")
        }
    }

    @Test(
        "The copyright file is machine-readable (format 1.0, read by Debian's own parser), names the copyright holder and carries the notice of everything the package bundles: each Swift package dependency and none it no longer has (swift-log's NOTICE), the Swift runtime's exception, ICU, avr-libc; libyaml is named as linked from Debian's package, not carried"
    )
    func copyrightCarriesEveryNotice() throws {
        guard let deb = DebianPackageTests.package else {
            let note = "no .build/hapbridge_*.deb: run scripts/package-deb"
            if DebianPackageTests.required { Issue.record(Comment(rawValue: note)) } else { print("skipped: \(note)") }
            return
        }
        let scratch = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let root = scratch.appendingPathComponent("root").path
        let unpack = try ExamplePackageTests.run(["dpkg-deb", "-x", deb, root], bound: 120, in: scratch)
        try #require(unpack.status == 0, "\(unpack.output)")
        // Debian's parser (python3-debian, scripts/apt-packages.txt), strict: each Files
        // paragraph as "files|copyright|licence synopsis|licence text|comment", then each
        // licence; the header's comment too. (`from`, not `import`, at a line's start:
        // scripts/check-target-dependencies reads such lines as Swift imports.)
        let dump = """
            from sys import argv
            from debian.copyright import Copyright
            c = Copyright(open(argv[1], encoding="utf-8"), strict=True)
            print("FORMAT", c.header.format)
            print("HEADER", " ".join((c.header.comment or "").split()))
            for p in c.all_files_paragraphs():
                print("FILES", " ".join(p.files), "|", " ".join(p.copyright.split()), "|", p.license.synopsis, "|", " ".join((p.license.text or "").split()), "|", " ".join((p.comment or "").split()))
            for p in c.all_license_paragraphs():
                print("LICENSE", p.license.synopsis, "|", " ".join((p.license.text or "").split()))
            """
        let parsed = try ExamplePackageTests.run(["/usr/bin/python3", "-c", dump, root + "/usr/share/doc/hapbridge/copyright"], bound: 60, in: scratch)
        try #require(parsed.status == 0, "Debian's parser refused the copyright file (or python3-debian is missing): \(parsed.output)")
        let lines = parsed.output.split(separator: "\n").map(String.init)
        func files(_ pattern: String) -> [String]? {
            lines.first { $0.hasPrefix("FILES \(pattern) | ") }?.components(separatedBy: " | ")
        }
        func license(_ synopsis: String) -> String? {
            let prefix = "LICENSE \(synopsis) | "
            return lines.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        }
        #expect(lines.first == "FORMAT https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/")
        #expect(files("*")?[1] == "The hapbridge authors" && files("*")?[2] == "Apache-2.0", "\(lines.first { $0.hasPrefix("FILES * ") } ?? "no Files: * paragraph")")
        // Every Swift package Package.swift depends on (all are linked into the binary).
        let manifest = try String(contentsOfFile: Hapbridge.path("Package.swift"), encoding: .utf8)
        let dependencies = manifest.split(separator: "\n").compactMap { line -> String? in
            guard let url = line.range(of: ".package(url: \"") else { return nil }
            return line[url.upperBound...].split(separator: "\"").first.map { String($0.split(separator: "/").last ?? "") }
        }
        // The parse found them (the argument parser is one hapbridge will always have).
        #expect(dependencies.contains("swift-argument-parser"), "\(dependencies)")
        for dependency in dependencies {
            #expect(files(".build/checkouts/\(dependency)/*") != nil, "no Files paragraph for the Swift package \(dependency)")
        }
        // And no notice for a package the binary no longer carries (Yams, dropped for
        // Debian's libyaml, which is linked dynamically and carries its own notice).
        let carried = lines.compactMap { line -> String? in
            guard line.hasPrefix("FILES .build/checkouts/") else { return nil }
            return line.dropFirst("FILES .build/checkouts/".count).split(separator: "/").first.map(String.init)
        }
        #expect(Set(carried) == Set(dependencies), "Files paragraphs \(carried), Package.swift's dependencies \(dependencies)")
        let header = lines.first { $0.hasPrefix("HEADER ") } ?? ""
        #expect(header.contains("libyaml") && header.contains("linked dynamically") && header.contains("/usr/share/doc/libyaml-0-2/copyright"), "\(header)")
        #expect(files(".build/checkouts/swift-log/*")?[4].contains("The SwiftLog Project") == true, "swift-log's NOTICE")
        #expect(license("Apache-2.0 with Runtime-Library exception")?.contains("Runtime Library Exception") == true)
        #expect(license("Unicode-3.0")?.contains("UNICODE LICENSE V3") == true)
        #expect(license("BSD-3-clause")?.contains("Redistributions in binary form must reproduce") == true)
        #expect(lines.contains { $0.hasPrefix("FILES avr-libc/") && $0.contains("BSD-3-clause") })
    }

    @Test(
        "Every document the shipped README and hardware documents name by repository path is in the package, under /usr/share/doc/hapbridge, and their links between one another resolve there"
    )
    func shippedDocumentsAreComplete() throws {
        guard let deb = DebianPackageTests.package else {
            let note = "no .build/hapbridge_*.deb: run scripts/package-deb"
            if DebianPackageTests.required { Issue.record(Comment(rawValue: note)) } else { print("skipped: \(note)") }
            return
        }
        let scratch = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let root = scratch.appendingPathComponent("root").path
        let unpack = try ExamplePackageTests.run(["dpkg-deb", "-x", deb, root], bound: 120, in: scratch)
        try #require(unpack.status == 0, "\(unpack.output)")
        let docs = root + "/usr/share/doc/hapbridge"
        let fm = FileManager.default
        let documents = (fm.enumerator(atPath: docs)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".md") } + ["Examples/hil/README.md"]
        #expect(documents.contains("README.md") && documents.contains("docs/HARDWARE-STATUS.md") && documents.contains("Hardware/boards/README.md"), "\(documents)")
        // Hardware documents, the firmware's, the HIL examples and the emulation's, named
        // by repository path anywhere in the text.
        let named = try NSRegularExpression(
            pattern: #"(?<![\w/.-])((?:Hardware|Firmware|docs|Examples/hil|Sources/USBEmulation)/[\w./-]*\w\.(?:md|json|rules|yaml))"#)
        let link = try NSRegularExpression(pattern: #"\]\(([^)#\s]+)"#)
        // What the README links to that only makes sense with the source: developer material.
        let sourceOnly = ["CONTRIBUTING.md", "Examples/SwiftPackage", "Examples/HILPackage", "Examples/compilation/README.md"]
        var missing: [String] = []
        for document in documents {
            let text = try String(contentsOfFile: docs + "/" + document, encoding: .utf8)
            let range = NSRange(text.startIndex..., in: text)
            for match in named.matches(in: text, range: range) {
                let path = String(text[Range(match.range(at: 1), in: text)!])
                if !fm.fileExists(atPath: docs + "/" + path) { missing.append("\(document): \(path)") }
            }
            for match in link.matches(in: text, range: range) {
                let target = String(text[Range(match.range(at: 1), in: text)!])
                if target.hasPrefix("http") || sourceOnly.contains(target) { continue }
                let resolved = URL(fileURLWithPath: docs + "/" + document).deletingLastPathComponent().appendingPathComponent(target).standardizedFileURL.path
                if !fm.fileExists(atPath: resolved) { missing.append("\(document): link \(target)") }
            }
        }
        #expect(missing.isEmpty, "named but not in the package:\n\(missing.joined(separator: "\n"))")
    }
}
