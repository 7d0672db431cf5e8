import Glibc
import Hex

/// Who holds a board's lock, as its holder wrote it into the lock file: the user, the
/// host, the process, the command and since when. A reader reads at most
/// `maxRecordBytes` of the file, so a lock file grown by anything else (2 GB of it) costs
/// nothing, and it knows a record written whole from one it caught half-written (the
/// holder writes in place, under its lock: the file itself is the lock, so it is never
/// replaced): the first line gives the body's length and checksum.
public struct BoardLockHolder: Sendable, Equatable, CustomStringConvertible {
    public var user: String
    public var host: String
    public var pid: Int32
    /// Seconds since 1970, UTC.
    public var since: Int
    /// The holder's command line, cut short.
    public var command: String
    /// The bench device the holder took it for: "dut (usb:1-2)".
    public var device: String

    public init(user: String, host: String, pid: Int32, since: Int, command: String, device: String) {
        self.user = user
        self.host = host
        self.pid = pid
        self.since = since
        self.command = command
        self.device = device
    }

    /// "alice (pid 4242 on bench-pc, `hapbridge run bench.yaml suite.yaml`, since 2025-06-24 10:03:12 UTC)".
    public var description: String {
        "\(user) (pid \(pid) on \(host), `\(command)`, since \(Self.utc(since)))"
    }

    /// The most of a lock file a reader reads, and the most a record may take.
    static let maxRecordBytes = 4096
    static let magic = "hapbridge-lock"

    /// This process, holding it for `device` now.
    static func current(device: String) -> BoardLockHolder {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return BoardLockHolder(
            user: userName(), host: hostName(), pid: getpid(), since: Int(now.tv_sec), command: CommandLine.arguments.joined(separator: " "),
            device: device)
    }

    /// The record's bytes: a header line ("hapbridge-lock LENGTH CHECKSUM") and a body of
    /// `key value` lines, each value made one printable line and cut to its share of
    /// `maxRecordBytes`.
    var record: [UInt8] {
        let fields = [
            ("user", Self.clean(user, 64)), ("host", Self.clean(host, 255)), ("pid", String(pid)), ("since", String(since)),
            ("command", Self.clean(command, 1024)), ("device", Self.clean(device, 512)),
        ]
        let body = Array(fields.map { "\($0.0) \($0.1)\n" }.joined().utf8)
        return Array("\(Self.magic) \(body.count) \(Self.checksum(body))\n".utf8) + body
    }

    /// Parses what `record` wrote, from the first bytes of a lock file; nil for anything
    /// else (nothing yet, a record caught half-written, bytes another program wrote).
    static func parse(_ bytes: [UInt8]) -> BoardLockHolder? {
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let header = String(decoding: bytes[..<newline], as: UTF8.self).split(separator: " ")
        guard header.count == 3, header[0] == magic, let length = Int(header[1]), length >= 0,
            length <= bytes.count - newline - 1
        else { return nil }
        let body = Array(bytes[(newline + 1)..<(newline + 1 + length)])
        guard String(header[2]) == checksum(body) else { return nil }
        var values: [String: String] = [:]
        for line in String(decoding: body, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        guard let user = values["user"], let host = values["host"], let pid = values["pid"].flatMap({ Int32($0) }),
            let since = values["since"].flatMap({ Int($0) }), let command = values["command"], let device = values["device"]
        else { return nil }
        return BoardLockHolder(user: user, host: host, pid: pid, since: since, command: command, device: device)
    }

    /// Reads the record at the start of the open lock file `fd`: at most `maxRecordBytes`.
    static func read(_ fd: Int32) -> BoardLockHolder? {
        var buffer = [UInt8](repeating: 0, count: maxRecordBytes)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return parse(Array(buffer[..<count]))
    }

    /// Writes the record into the open lock file `fd` the caller holds: over the old one
    /// from the start, then the file cut to its length. A reader meanwhile sees a header
    /// whose checksum fails, or the whole record (what follows it is ignored).
    func write(to fd: Int32) -> Bool {
        let bytes = record
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(done)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return ftruncate(fd, off_t(bytes.count)) == 0
    }

    /// Whether the process it names may still be alive: on another host it cannot be
    /// told, so yes.
    var mayBeAlive: Bool {
        guard host == Self.hostName() else { return true }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// FNV-1a, 64 bits, in hex: enough to tell a torn record from a whole one.
    static func checksum(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01B3
        }
        return Hex.digits(h, case: .lower)
    }

    /// One printable line of at most `limit` bytes (cut on a character).
    static func clean(_ s: String, _ limit: Int) -> String {
        var out = ""
        for c in s.unicodeScalars {
            let printable = c.value >= 0x20 && c.value != 0x7F && !(0x80...0x9F).contains(c.value)
            let scalar = printable ? c : "?"
            guard out.utf8.count + String(scalar).utf8.count <= limit else { break }
            out.unicodeScalars.append(scalar)
        }
        return out
    }

    static func userName() -> String {
        let uid = geteuid()
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        // pw_name points into `buffer`, alive until the return.
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else { return "uid \(uid)" }
        return text(Array(UnsafeBufferPointer(start: name, count: strlen(name))))
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "?" }
        return text(buffer)
    }

    /// A C string's bytes up to its NUL, as text.
    static func text(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// "2025-06-24 10:03:12 UTC".
    static func utc(_ seconds: Int) -> String {
        var t = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&t, &parts) != nil else { return "\(seconds) s after 1970" }
        func two(_ x: Int32) -> String { x < 10 ? "0\(x)" : "\(x)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) UTC"
    }
}
