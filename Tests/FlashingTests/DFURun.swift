import Foundation
import Testing
import TestSupport

/// Runs `hapbridge emulate dfu` as a user would: the built CLI (beside this test
/// bundle), a real COMMAND (dfu-programmer, the dfu-flash-probe, a shell), its output,
/// exit status and the flash it left (`--dump`). The only clock is a generous guard
/// against a hang.
enum DFURun {
    static let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    static let hapbridge = products + "/hapbridge"
    static let probe = products + "/dfu-flash-probe"
    /// Tests/FlashingTests/DFURun.swift -> the package root.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    /// The firmware image `make -C Firmware firmware` builds (Firmware/Makefile's HEX).
    static let firmwareHex = packageRoot + "/Firmware/build/hapbridge-32u4.hex"
    /// HAPBRIDGE_REQUIRE_SIMAVR=1 (scripts/test) turns "firmware not built, skipped" into a failure.
    static let firmwareRequired = ProcessInfo.processInfo.environment["HAPBRIDGE_REQUIRE_SIMAVR"] == "1"
    static let hangGuardSeconds: Double = 120

    struct Result: CustomStringConvertible {
        var status: Int32
        var output: String
        var errors: String
        /// The flash as the emulation left it (32 KiB).
        var flash: [UInt8]

        /// The fields of the first "kind key=value ..." line of this kind (a quoted value keeps its spaces).
        func record(_ kind: String) -> [String: String] {
            for line in output.split(separator: "\n") where line.hasPrefix(kind + " ") {
                var fields: [String: String] = [:]
                let scanner = Scanner(string: String(line.dropFirst(kind.count + 1)))
                scanner.charactersToBeSkipped = .whitespaces
                while let key = scanner.scanUpToString("=") {
                    _ = scanner.scanString("=")
                    if scanner.scanString("\"") != nil {
                        fields[key] = scanner.scanUpToString("\"") ?? ""
                        _ = scanner.scanString("\"")
                    } else {
                        fields[key] = scanner.scanUpToCharacters(from: .whitespaces) ?? ""
                    }
                }
                return fields
            }
            return [:]
        }

        var description: String { "exit \(status)\nstdout:\n\(output)\nstderr:\n\(errors)" }
    }

    /// `hapbridge emulate dfu --dump FILE -- sh -c SCRIPT`, in a fresh directory (the
    /// script's working directory, for files it writes).
    static func emulate(_ script: String, in directory: URL, options: [String] = []) throws -> Result {
        let dump = directory.appendingPathComponent("flash.bin").path
        let r = try BoundedProcess.run(
            hapbridge, ["emulate", "dfu", "--dump", dump] + options + ["--", "sh", "-c", script], directory: directory,
            hangGuardSeconds: hangGuardSeconds)
        if r.hung { Issue.record("hung for \(Int(hangGuardSeconds)) s: \(script)") }
        let flash = (try? Data(contentsOf: URL(fileURLWithPath: dump))).map { [UInt8]($0) } ?? []
        return Result(status: r.status, output: r.output, errors: r.errors, flash: flash)
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hapbridge-dfu-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// An Intel HEX file as the application section should hold it: binutils'
    /// avr-objcopy (not our code) turns it into bytes from address 0, padded with
    /// 0xFF to `length`.
    static func applicationBytes(ofHex hex: String, length: Int, in directory: URL) throws -> [UInt8] {
        let bin = directory.appendingPathComponent("image.bin").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/avr-objcopy")
        process.arguments = ["-I", "ihex", "-O", "binary", "--gap-fill", "0xFF", hex, bin]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw DFUTestError("avr-objcopy could not read \(hex)") }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: bin)))
        bytes += [UInt8](repeating: 0xFF, count: max(0, length - bytes.count))
        return bytes
    }

    /// `count` bytes with no page of 0xFF only: a pattern from a multiplicative hash, the
    /// same every run (a full application section's worth to time a flash).
    static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { i in UInt8(truncatingIfNeeded: (UInt32(i) &* 2_654_435_761) >> 13) }
    }

    /// `bytes` from address 0 as Intel HEX, 16 bytes a record.
    static func intelHex(_ bytes: [UInt8]) -> String {
        var lines: [String] = []
        for at in stride(from: 0, to: bytes.count, by: 16) {
            let data = Array(bytes[at..<min(at + 16, bytes.count)])
            let record = [UInt8(data.count), UInt8(at >> 8), UInt8(at & 0xFF), 0] + data
            let sum = record.reduce(UInt8(0), &+)
            lines.append(":" + (record + [0 &- sum]).map { String(format: "%02X", $0) }.joined())
        }
        return (lines + [":00000001FF"]).joined(separator: "\n") + "\n"
    }
}

struct DFUTestError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

