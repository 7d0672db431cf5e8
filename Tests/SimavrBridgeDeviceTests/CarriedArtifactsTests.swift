import Foundation
import SimavrBridgeDevice
import Testing

/// Where a hapbridge finds the harness and ELF it runs `emulate bridge --firmware elf`
/// on: from its own executable, installed layout first, then the checkout it was built
/// in. Laid out in a scratch directory (the files' content does not matter to the
/// lookup: the harness need only be executable).
@Suite struct CarriedArtifactsTests {
    let scratch: URL

    init() throws {
        let made = FileManager.default.temporaryDirectory.appendingPathComponent("hapbridge-artifacts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
        // As the lookup sees it (it resolves the executable's links).
        scratch = made.resolvingSymlinksInPath()
    }

    func file(_ path: String, executable: Bool = false) throws -> String {
        let url = scratch.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: executable ? 0o755 : 0o644], ofItemAtPath: url.path)
        return url.path
    }

    @Test("An installed hapbridge runs the harness in PREFIX/lib/hapbridge with the ELF in PREFIX/share/hapbridge/firmware, found from its executable")
    func installedPairIsFoundFromTheExecutable() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let exe = try file("usr/bin/hapbridge", executable: true)
        let harness = try file("usr/lib/hapbridge/sim-harness", executable: true)
        let elf = try file("usr/share/hapbridge/firmware/hapbridge-32u4.elf")
        let found = SimavrBridgeDevice.carried(executable: URL(fileURLWithPath: exe))
        #expect(found == SimavrBridgeDevice.Artifacts(harness: harness, firmware: elf))
    }

    @Test("A build runs the harness and ELF built in the checkout its executable sits in")
    func buildPairIsFoundInTheCheckout() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        _ = try file("Package.swift")
        _ = try file("Firmware/protocol/include/hapbridge/protocol.h")
        let exe = try file(".build/x86_64-unknown-linux-gnu/release/hapbridge", executable: true)
        let harness = try file("Firmware/build/host/sim-harness", executable: true)
        let elf = try file("Firmware/build/hapbridge-32u4.elf")
        let found = SimavrBridgeDevice.carried(executable: URL(fileURLWithPath: exe))
        #expect(found == SimavrBridgeDevice.Artifacts(harness: harness, firmware: elf))
    }

    @Test("Half a pair is no pair: a harness that is not executable, or an ELF missing, and nothing is found; every place looked is named with what to do")
    func incompletePairsAreNotTaken() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        _ = try file("Package.swift")
        _ = try file("Firmware/protocol/include/hapbridge/protocol.h")
        let exe = URL(fileURLWithPath: try file("usr/bin/hapbridge", executable: true))
        _ = try file("usr/lib/hapbridge/sim-harness", executable: false)
        _ = try file("usr/share/hapbridge/firmware/hapbridge-32u4.elf")
        _ = try file("Firmware/build/host/sim-harness", executable: true)
        #expect(SimavrBridgeDevice.carried(executable: exe) == nil)
        let looked = SimavrBridgeDevice.candidates(executable: exe)
        #expect(looked.map(\.artifacts.harness) == [scratch.appendingPathComponent("usr/lib/hapbridge/sim-harness").path, scratch.appendingPathComponent("Firmware/build/host/sim-harness").path])
        #expect(looked.last?.hint.contains("make -C \(scratch.path)/Firmware firmware sim") == true, "\(looked)")
    }

    @Test("A copy outside any checkout and any install looks only where it would be installed")
    func aLoneExecutableLooksOnlyBesideItsPrefix() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let exe = URL(fileURLWithPath: try file("bin/hapbridge", executable: true))
        #expect(SimavrBridgeDevice.carried(executable: exe) == nil)
        #expect(SimavrBridgeDevice.candidates(executable: exe).map(\.artifacts.harness) == [scratch.appendingPathComponent("lib/hapbridge/sim-harness").path])
    }
}
