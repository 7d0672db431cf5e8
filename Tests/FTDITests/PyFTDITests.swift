import Foundation
import Testing

/// pyftdi (PyPI), an FTDI driver hapbridge did not write, drives the emulated FT232H
/// through its own `I2cController`: a second implementation of MPSSE I2C that must
/// agree with the emulation.
///
/// Python is Debian's /usr/bin/python3 with pyftdi's dependencies from Debian
/// (python3-usb, python3-serial: scripts/apt-packages.txt); pyftdi itself, when not
/// importable, is pip-installed with --no-deps into a scratch directory of its own
/// (one per pyftdi version, kept between runs), from PyPI.
@Suite("pyftdi on the emulated FT232H", .serialized)
struct PyFTDITests {
    static let python = "/usr/bin/python3"
    static let pyftdiVersion = "0.57.2"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("pyftdi_drv2605.py").path

    /// A PYTHONPATH under which `import pyftdi` works (empty: it already does).
    static func pyftdiPath() throws -> String {
        if try shell([python, "-c", "import pyftdi, usb, serial"]).status == 0 { return "" }
        let target = NSTemporaryDirectory() + "/hapbridge-pyftdi-\(pyftdiVersion)"
        if try shell([python, "-c", "import pyftdi, usb, serial"], pythonPath: target).status == 0 { return target }
        let install = try shell([python, "-m", "pip", "install", "--quiet", "--no-deps", "--target", target, "pyftdi==\(pyftdiVersion)"])
        try #require(install.status == 0, "pip could not install pyftdi \(pyftdiVersion) from PyPI into \(target): \(install.output)")
        let check = try shell([python, "-c", "import pyftdi, usb, serial"], pythonPath: target)
        try #require(check.status == 0, "pyftdi, usb or serial is not importable (apt-get install python3-usb python3-serial): \(check.output)")
        return target
    }

    @Test("pyftdi's I2cController reads STATUS (DEVICE_ID 7), writes and reads back registers, and sees a NACK from an absent address")
    func pyftdiI2C() throws {
        let path = try Self.pyftdiPath()
        let run = try EmulatedFT232H.run([], [Self.python, Self.script], environment: path.isEmpty ? [:] : ["PYTHONPATH": path])
        #expect(run.status == 0, "\(run)")
        #expect(run.record("status")["value"] == "0xE0", "\(run)")
        #expect(run.record("status")["device_id"] == "7", "DRV2605L: \(run)")
        #expect(run.record("readback")["read"] == "0x5A", "\(run)")
        #expect(run.record("readback2")["read"] == "3e8c", "\(run)")
        #expect(run.record("absent")["nack"] == "1", "\(run)")
        #expect(run.record("done")["ok"] == "1", "\(run)")
    }

    /// Runs a short command to its end (output and errors together).
    static func shell(_ arguments: [String], pythonPath: String? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        if let pythonPath { environment["PYTHONPATH"] = pythonPath }
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
