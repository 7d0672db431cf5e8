import Foundation
import Testing

/// The layering the architecture promises, read from the sources as built: a module's
/// dependencies are its `import` lines (scripts/check-target-dependencies holds
/// Package.swift to exactly those), followed through every module under `Sources/`.
///
/// Measurements is pure analysis over samples and numbers (docs/ARCHITECTURE.md): a
/// figure computed from a recording must not depend on how the recording was made, and
/// nothing in it may open, drive or wait on a device. The runs that drive the chip are
/// Bench's and sit above it.
@Suite struct ModuleLayeringTests {
    /// What reaches a device: the device seam, the bench above it, the USB, FTDI and
    /// umockdev libraries and their wrappers. Every other device module (the driver, a
    /// transport, the link, the engine, the catalog) imports the seam, so the seam stands
    /// for them in a closure; they are named too so a failure says which one came in.
    static let deviceFacing: Set<String> = [
        "DeviceInterface", "Bench", "Devices", "BridgeLink", "HapticEngine", "DRV2605", "DRV2605Model", "SensorModel",
        "USBBridge", "FTDIBridge", "HostedBoard", "SimulatedBoard", "SimulatedBridgeDevice", "SimavrBridgeDevice", "USBEmulation",
        "Flashing", "HIL", "LibUSB", "CLibUSB", "LibFTDI", "CLibFTDI", "CUMockdev", "CUSBDevFS",
    ]

    /// "@testable import X", "import struct X.Y", "@_exported import X": X.
    static func importedModule(_ line: Substring) -> String? {
        var words = line.split(separator: " ", omittingEmptySubsequences: true)[...]
        while let first = words.first, first.hasPrefix("@") || ["public", "package", "internal", "fileprivate", "private"].contains(first) {
            words = words.dropFirst()
        }
        guard words.first == "import" else { return nil }
        words = words.dropFirst()
        if let kind = words.first, ["struct", "enum", "class", "func", "protocol", "typealias", "var", "let"].contains(kind) {
            words = words.dropFirst()
        }
        guard let path = words.first, let module = path.split(separator: ".").first else { return nil }
        return String(module)
    }

    /// The modules the Swift sources of `Sources/<module>` import (none for a C or
    /// system-library target, whose dependencies Package.swift declares for it).
    static func imports(of module: String) throws -> Set<String> {
        let directory = Hapbridge.repository.appendingPathComponent("Sources").appendingPathComponent(module)
        guard let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { return [] }
        var modules = Set<String>()
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            var inLiteral = false  // inside a multi-line string literal ("""…"""): text, not code
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if !inLiteral, let imported = importedModule(line.drop { $0 == " " }) { modules.insert(imported) }
                if line.components(separatedBy: "\"\"\"").count % 2 == 0 { inLiteral.toggle() }
            }
        }
        return modules
    }

    /// Every module `module` reaches through imports, each with the chain that reaches it
    /// ("Measurements → AccelerationData"), breadth first: the shortest chain.
    static func reach(from module: String) throws -> [String: [String]] {
        var chains: [String: [String]] = [:]
        var queue = [[module]]
        var next = 0
        while next < queue.count {
            let chain = queue[next]
            next += 1
            for imported in try imports(of: chain[chain.count - 1]).sorted() where imported != module && chains[imported] == nil {
                chains[imported] = chain + [imported]
                queue.append(chain + [imported])
            }
        }
        return chains
    }

    @Test("Measurements reaches no device: neither it nor any module it imports, however indirectly, is the device seam, Bench, a transport, the driver or a USB or FTDI library")
    func measurementsIsPureAnalysis() throws {
        // The reader sees the real graph: Bench reaches the seam and Measurements (the
        // measuring runs hand their recordings down), Measurements its data values.
        let bench = try Self.reach(from: "Bench")
        #expect(bench["DeviceInterface"] != nil && bench["Measurements"] != nil, "Bench reaches \(bench.keys.sorted())")
        let measurements = try Self.reach(from: "Measurements")
        #expect(measurements["AccelerationData"] != nil, "Measurements reaches \(measurements.keys.sorted())")

        for module in Self.deviceFacing.sorted() {
            if let chain = measurements[module] {
                Issue.record("Measurements must stay pure analysis, but reaches \(module): \(chain.joined(separator: " → "))")
            }
        }
    }
}
