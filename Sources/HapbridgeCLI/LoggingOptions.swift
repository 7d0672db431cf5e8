import ArgumentParser
import Logging

/// `--verbose`: what the libraries log (USB discovery and transfers, the engine's
/// service thread, the emulation) goes to standard error. Without it only warnings do.
///
/// The logger is handed to the libraries explicitly rather than through
/// `LoggingSystem.bootstrap`, which may run once per process and would trap the second
/// time a command runs in the same process (the test suite runs commands in process).
public struct LoggingOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Log what the libraries do (USB, engine, emulation) to standard error.")
    public var verbose = false

    public init() {}

    func logger(_ label: String) -> Logger {
        var logger = Logger(label: label) { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .debug : .warning
        return logger
    }
}
