import Foundation

/// The environment a test's child process runs in. A test never reads or writes the
/// user's configuration: a calibration the user stored for the simulated board (or an
/// emulated one) would change what plays, and a test's `calibrate` would overwrite the
/// user's. So a child whose configuration directory (XDG_CONFIG_HOME) is the one this
/// test process inherited, or none, gets a fresh scratch directory of its own instead;
/// one a test chose itself is kept. One directory per child, so two tests running at
/// once do not share a store either.
public enum TestEnvironment {
    /// `environment` (default: this process's) with the rule above applied, and what
    /// removes the scratch directory afterwards.
    public static func isolated(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        -> (environment: [String: String], cleanup: @Sendable () -> Void)
    {
        let inherited = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"]
        guard environment["XDG_CONFIG_HOME"] == nil || environment["XDG_CONFIG_HOME"] == inherited else { return (environment, {}) }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hapbridge-test-config-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        var isolated = environment
        isolated["XDG_CONFIG_HOME"] = scratch
        return (isolated, { try? FileManager.default.removeItem(atPath: scratch) })
    }
}
