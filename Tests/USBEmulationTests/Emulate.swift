import Foundation
import SimavrBridgeDevice
import Testing
import TestSupport

/// Runs `hapbridge emulate bridge` as a user would: the built CLI, a real COMMAND
/// (lsusb, the libusb probe, a shell), its output and exit status. The only clock is
/// a generous guard against a hang; nothing waits on time to pass.
enum Emulate {
    /// The build's products: the test runner sits beside `hapbridge` and the probe.
    static let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    static let hapbridge = products + "/hapbridge"
    static let probe = products + "/usb-emulation-probe"
    /// The product's path (DeviceCatalog, USBBridgeTransport, BridgeSession) as a COMMAND.
    static let sessionProbe = products + "/bridge-session-probe"
    static let packageRoot = SimavrBridgeDevice.packageRoot(above: #filePath) ?? "."

    /// HAPBRIDGE_REQUIRE_SIMAVR=1 (scripts/test) turns "ELF not built, skipped" into a failure.
    static let simavrRequired = ProcessInfo.processInfo.environment["HAPBRIDGE_REQUIRE_SIMAVR"] == "1"
    static let artifacts = SimavrBridgeDevice.locate(packageRoot: packageRoot)
    /// The firmware backings the tests run on: the core always, the ELF when built.
    static let backings: [Backing] = artifacts != nil || simavrRequired ? [.core, .elf] : [.core]

    enum Backing: String, CustomTestStringConvertible, Sendable {
        case core, elf
        /// No firmware: noise on bulk IN (a misbehaving board, not a backing of the bridge).
        case noise
        var testDescription: String { "--firmware \(rawValue)" }

        var arguments: [String] {
            switch self {
            case .core: return ["--firmware", "core"]
            case .noise: return ["--firmware", "noise"]
            case .elf:
                let a = Emulate.artifacts
                return ["--firmware", "elf", "--elf", a?.firmware ?? "missing.elf", "--harness", a?.harness ?? "missing-harness"]
            }
        }
    }

    /// What a run left behind.
    struct Run: CustomStringConvertible {
        var status: Int32
        var output: String
        var errors: String

        /// The probe's "kind key=value ..." lines of one kind, as dictionaries.
        func records(_ kind: String) -> [[String: String]] {
            output.split(separator: "\n").compactMap { line in
                let words = Emulate.words(String(line))
                guard words.first == kind else { return nil }
                var fields: [String: String] = [:]
                for w in words.dropFirst() {
                    guard let eq = w.firstIndex(of: "=") else { continue }
                    fields[String(w[..<eq])] = String(w[w.index(after: eq)...])
                }
                return fields
            }
        }

        func record(_ kind: String) -> [String: String] { records(kind).first ?? [:] }

        /// A `play` or `measure` ran to its end with every command sent on time: exit 0,
        /// or 4 where the only lateness is the board's underruns — under a loaded host the
        /// emulated board's own clock (the ELF's simulator paced to the wall clock) runs
        /// behind, which a test where timing is not the subject cannot promise.
        var ranToTheEnd: Bool {
            status == 0 || (status == 4 && errors.contains("played late: ") && !errors.contains("sent after their stamps"))
        }

        /// Every line of one kind, their fields merged (a later line's value wins).
        func merged(_ kind: String) -> [String: String] {
            records(kind).reduce(into: [:]) { all, r in all.merge(r) { $1 } }
        }

        var description: String { "exit \(status)\nstdout:\n\(output)\nstderr:\n\(errors)" }
    }

    /// `hapbridge emulate bridge OPTIONS -- COMMAND`.
    static func bridge(_ backing: Backing, _ options: [String] = [], _ command: [String]) throws -> Run {
        try run([hapbridge, "emulate", "bridge"] + backing.arguments + options + ["--"] + command)
    }

    /// Longest a run may take before it counts as hung (an ELF board boots in ~1 s).
    static let hangGuardSeconds: Double = 120

    static func run(_ arguments: [String], hangGuardSeconds guardSeconds: Double = hangGuardSeconds) throws -> Run {
        let r = try BoundedProcess.run(arguments[0], Array(arguments.dropFirst()), hangGuardSeconds: guardSeconds)
        if r.hung { Issue.record("hung for \(Int(guardSeconds)) s: \(arguments.joined(separator: " "))") }
        return Run(status: r.status, output: r.output, errors: r.errors)
    }

    /// Words of a line; a value in double quotes keeps its spaces (key="a b").
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        for c in line {
            if c == "\"" { quoted.toggle(); continue }
            if c == " " && !quoted {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(c)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}


/// Every suite that runs `hapbridge emulate`, one test at a time: a board on the ELF
/// needs about half a core to keep up with real time, and the machine is shared.
@Suite(.serialized) enum EmulatedBoards {}
