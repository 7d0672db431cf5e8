import Foundation
import Testing

/// `hapbridge run` on a bench whose device is a hosted adapter (`address: ftdi`), under
/// `hapbridge emulate ft232h`: HIL takes the adapter through the same generic door as any
/// hosted one (`DeviceAddress.hosted`), locking it by scheme and serial and skipping what
/// an adapter with no firmware of ours cannot do, saying so in the adapter's name.
@Suite("hapbridge run on an FT232H bench")
struct FT232HRunTests {
    @Test(
        "run with an ftdi bench: the board lock is ftdi-FT0001, the flash step is skipped (an FT232H runs no firmware of ours), unplug is skipped (no switchable port), diagnose passes, exit 0"
    )
    func benchOfAnFT232H() throws {
        let dir = EmulatedFT232H.scratch("run")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "bench: ftdi-bench\ndevices:\n  - name: dut\n    address: ftdi\n    actuator: pmd-c10-100\nfeatures: [flash, switchable-usb]\n"
            .write(toFile: "\(dir)/bench.yaml", atomically: true, encoding: .utf8)
        try """
            suite: hil-ftdi
            tests:
              - name: flash
                steps:
                  - flash:
              - name: unplug
                steps:
                  - unplug:
              - name: diagnose
                steps:
                  - diagnose:

            """.write(toFile: "\(dir)/suite.yaml", atomically: true, encoding: .utf8)
        let locks = "\(dir)/locks"
        try FileManager.default.createDirectory(atPath: locks, withIntermediateDirectories: true)
        // A lock is a flock on a file named for the board's key; the file stays after
        // the run, so its name is the key the run locked.
        let run = try EmulatedFT232H.run(
            [], [EmulatedFT232H.hapbridge, "run", "\(dir)/bench.yaml", "\(dir)/suite.yaml", "--lock-dir", locks, "--json", "\(dir)/run.json"])
        #expect(run.status == 0, "\(run)")
        #expect(run.errors.contains("flash (carried firmware): SKIP — an FT232H runs no firmware of ours: nothing to flash"), "\(run)")
        #expect(run.errors.contains("unplug: SKIP — dut (ftdi) cannot be switched from the host (an FT232H has no switchable port in this bench)"), "\(run)")
        #expect(run.errors.contains("diagnose #1 step 1 diagnose: PASS"), "\(run)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: locks).contains("ftdi-FT0001.lock"), "\(run)")
    }
}
