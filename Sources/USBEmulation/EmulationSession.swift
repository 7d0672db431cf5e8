import Foundation
import Glibc
import RealTime
import Synchronization

/// `hapbridge emulate bridge ... -- COMMAND`: the whole run. Re-executes under
/// umockdev's preload if needed, makes the testbed, plugs the boards, opens the
/// control socket, runs COMMAND and returns its exit status, taking everything down
/// again whatever happened.
///
/// Exit status: COMMAND's own; 128 + N when a signal N killed it; 126 when COMMAND
/// could not be executed and 127 when it was not found (the conventions of env,
/// timeout and the shell). When the emulation cannot be set up, `run` throws: the
/// caller reports it and exits 125 (`ChildProcess.emulationFailed`).
///
/// Signals to this process: SIGUSR1 unplugs the first board, SIGUSR2 plugs it back
/// in; SIGTERM and SIGHUP are passed on to COMMAND (the emulation ends with it);
/// SIGINT is left to COMMAND, which gets it from the terminal as this process does.
public enum EmulationSession {
    public struct Options: Sendable {
        public var firmware: BridgeEmulation.Firmware
        /// One per board, in port order.
        public var serials: [String]
        public var logPath: String?
        /// Every board's node refuses COMMAND write access (EACCES on open), as a node
        /// without the udev rule does (`BridgeEmulation(denyAccess:)`, `accessDenied`).
        public var denyAccess: Bool
        /// Where to make the control socket; nil: in a private directory of its own
        /// (`ControlServer`).
        public var controlSocketPath: String?
        public var command: [String]

        public init(
            firmware: BridgeEmulation.Firmware, serials: [String], logPath: String?, denyAccess: Bool = false,
            controlSocketPath: String? = nil, command: [String]
        ) {
            self.firmware = firmware
            self.serials = serials
            self.logPath = logPath
            self.denyAccess = denyAccess
            self.controlSocketPath = controlSocketPath
            self.command = command
        }
    }

    /// The status to exit with when the emulation could not be set up.
    public static let setUpFailedStatus = ChildProcess.emulationFailed

    /// COMMAND's exit status; throws when the emulation could not be set up (nothing
    /// of it is left behind then).
    public static func run(_ options: Options) throws(EmulationError) -> Int32 {
        try Preload.ensureLoaded()
        for s in options.serials { try BridgeEmulation.validate(serial: s) }
        let log = try EmulationLog(path: options.logPath)
        let testbed = try Testbed()
        defer { testbed.close() }
        let emulation = BridgeEmulation(testbed: testbed, firmware: options.firmware, log: log, denyAccess: options.denyAccess)
        defer { emulation.close() }
        for serial in options.serials { try emulation.add(serial: serial) }
        let server = try ControlServer(path: options.controlSocketPath, execute: { emulation.execute($0) })
        defer { server.stop() }
        setenv(ControlServer.environmentVariable, server.path, 1)
        var command = options.command
        if options.denyAccess, let node = emulation.list().first?.node, testbed.canWrite(node: node) {
            command = try withoutDACOverride(command)
        }
        let report: @Sendable ([String]) -> Void = { lines in
            FileHandle.standardError.write(Data(lines.map { "hapbridge emulate: \($0)\n" }.joined().utf8))
        }
        let status = ChildProcess.runRelayingSignals(
            command, hotplug: { signal in report(emulation.execute(signal == SIGUSR1 ? "unplug" : "replug")) },
            report: { report([$0]) })
        try log.finish()  // a log that could not be written fails the run (125), whatever COMMAND's status
        return status
    }

    /// COMMAND under `setpriv` without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (in
    /// its inheritable and bounding sets, so an exec as root cannot regain them): how
    /// root's COMMAND meets the read-only node as a user meets a node without the udev
    /// rule. Everything else it may do as before.
    static func withoutDACOverride(_ command: [String]) throws(EmulationError) -> [String] {
        guard let setpriv = ChildProcess.find(executable: "setpriv") else {
            throw .accessDenial("--deny-access runs COMMAND through setpriv (Debian package util-linux) to drop root's CAP_DAC_OVERRIDE, and it is not installed")
        }
        let dropped = "-dac_override,-dac_read_search"
        return [setpriv, "--inh-caps=\(dropped)", "--bounding-set=\(dropped)", "--"] + command
    }
}
