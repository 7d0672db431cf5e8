import Foundation
import FileAccess

/// Standard output or standard error.
enum StandardStream: Sendable, CustomStringConvertible {
    case output, error

    var descriptor: Int32 { self == .output ? STDOUT_FILENO : STDERR_FILENO }
    var description: String { self == .output ? "standard output" : "standard error" }
}

/// A write to standard output or standard error that did not complete: a full disk
/// (`> /dev/full`), a closed pipe (with SIGPIPE ignored), a closed descriptor (`>&-`).
/// The command stops and the process exits 1: output that was not delivered is never
/// a success.
struct StreamWriteError: Error, CustomStringConvertible {
    var stream: StandardStream
    var code: Int32
    var description: String { "cannot write to \(stream): \(String(cString: strerror(code)))" }
}

/// Everything the CLI prints goes through here: whole buffers through write(2), each
/// failure thrown (Foundation's `FileHandle.write` traps on one, `print` drops it).
/// Lines are made safe for a terminal (`TerminalText.safe`); a command's data output
/// (SVG, CSV, JSON, AHAP) is written as it is, its writer having escaped it for its
/// own format.
enum Console {
    /// The longest line shown, after escaping: a safety net under every message that
    /// quotes input (each quote is capped on its own, see `TerminalText.echo`).
    static let maxLineCharacters = 4_096

    /// Run once at start-up, before anything opens a file. A standard descriptor that
    /// was closed (`>&-`) must not be written to or read from as if it were the
    /// stream: by the time this runs, the Swift runtime may already have taken the
    /// number for its own event queue (an anonymous inode), and otherwise the next
    /// file the CLI opens would take it. The first case is recognised and left alone;
    /// in the second the number is given /dev/null to hold it. Either way the stream
    /// is remembered as closed and every use of it fails as it would have.
    static func adoptStandardDescriptors() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
            if fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
                // open returns the lowest free number: the one just found closed.
                _ = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
                closed.insert(descriptor)
            } else if isRuntimeOwned(descriptor) {
                closed.insert(descriptor)
            }
        }
    }

    /// An epoll or eventfd descriptor: never a stream a shell hands a program.
    private static func isRuntimeOwned(_ descriptor: Int32) -> Bool {
        var target = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/self/fd/\(descriptor)", &target, target.count - 1)
        return count > 0 && String(decoding: target[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self).hasPrefix("anon_inode:")
    }

    static func isClosed(_ descriptor: Int32) -> Bool { closed.contains(descriptor) }

    static func isTerminal(_ stream: StandardStream) -> Bool {
        !isClosed(stream.descriptor) && isatty(stream.descriptor) == 1
    }

    /// One line on standard output, made safe: a newline inside it (from input) is
    /// shown as `\x0A`, so one printed line stays one line.
    static func out(_ line: String) throws(StreamWriteError) { try lines([line], to: .output) }

    /// One line on standard error, made safe.
    static func err(_ line: String) throws(StreamWriteError) { try lines([line], to: .error) }

    /// Several lines, each made safe and capped.
    static func lines(_ lines: [String], to stream: StandardStream) throws(StreamWriteError) {
        try write(lines.map { capped(TerminalText.safe($0)) + "\n" }.joined(), to: stream)
    }

    /// Data as it is (a command's output format), or text the caller has made safe.
    static func write(_ text: String, to stream: StandardStream) throws(StreamWriteError) {
        guard !isClosed(stream.descriptor) else { throw StreamWriteError(stream: stream, code: EBADF) }
        do { try DescriptorIO.writeAll(text, to: stream.descriptor) } catch { throw StreamWriteError(stream: stream, code: error.code) }
    }

    private static func capped(_ line: String) -> String {
        guard line.count > maxLineCharacters else { return line }
        return line.prefix(maxLineCharacters) + "… (\(line.count - maxLineCharacters) more characters)"
    }

    /// Filled once by `adoptStandardDescriptors` at start-up, read afterwards.
    private static let closed = LockedSet()
}

/// A set of descriptors behind a lock: written once at start-up, read from any task.
private final class LockedSet: @unchecked Sendable {
    private let lock = NSLock()
    private var values: Set<Int32> = []
    func insert(_ value: Int32) { lock.withLock { _ = values.insert(value) } }
    func contains(_ value: Int32) -> Bool { lock.withLock { values.contains(value) } }
}
