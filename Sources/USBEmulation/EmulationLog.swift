import FileAccess
import Foundation
import Hex
import RealTime
import SimavrBridgeDevice
import Synchronization

/// `--log FILE`: one JSON object per line, written as things happen, so a test (or a
/// person) can check what the boards did and when. Every line has `event`, `host_us`
/// (CLOCK_MONOTONIC µs, `RealTimeExecutor.monotonicMicroseconds`) and, for a board's
/// events, `board` (its bus-port name) and `serial`:
///
///   {"event":"plug","board":"1-1","serial":"0001","node":"/dev/bus/usb/001/002","host_us":…}
///   {"event":"unplug",…}
///   {"event":"i2c","board":"1-1","serial":"0001","board_us":12500,"host_us":…,"op":"w","address":90,"bytes":"1d7f","ack":true}
///   {"event":"reboot",…,"reason":"watchdog"}      the firmware restarted (new board clock)
///   {"event":"bulk_out","board":"1-1","serial":"0001","board_us":…,"host_us":…,"submit_us":…,"bytes":"a506…"}
///   {"event":"stall",…,"message":"300 ms"}      `emulate control stall`: the firmware held from host_us
///   {"event":"error",…,"message":"…"}
///
/// `board_us` is the firmware's own clock (what a stamp means). For the ELF under
/// simavr it is the firmware's Timer1 clock at the START condition, and `board_stop_us`
/// adds the clock at STOP; `host_us` is then read when the harness reported it (within
/// one simulation slice, ~100 µs of simulated time, of the bus transaction).
/// A `bulk_out`'s `host_us` is when the firmware had taken the transfer's last byte,
/// its `submit_us` when the transfer reached the device model (the host's side of the
/// bus: libusb, usbdevfs and umockdev's round trip behind it).
public final class EmulationLog: Sendable {
    public struct Entry: Codable, Sendable {
        public var event: String
        public var board: String?
        public var serial: String?
        public var host_us: UInt64
        public var board_us: Double?
        public var board_stop_us: Double?
        public var submit_us: UInt64?
        public var op: String?
        public var address: Int?
        public var bytes: String?
        public var ack: Bool?
        public var node: String?
        public var reason: String?
        public var message: String?

        public init(event: String, board: String? = nil, serial: String? = nil, hostMicroseconds: UInt64 = RealTimeExecutor.monotonicMicroseconds()) {
            self.event = event
            self.board = board
            self.serial = serial
            self.host_us = hostMicroseconds
        }
    }

    /// The open log and the first write that failed (after which nothing more is
    /// written: the log would have a hole).
    private struct State {
        var stream: FileStream?
        var failure: FileAccessError?
    }

    private let state: Mutex<State>
    /// The log's path, nil without `--log`.
    public let path: FilePath?

    /// nil path: a log that drops everything (no `--log`). The file is written by
    /// `FileWriter`'s rules, in place (`FileStream.writtenInPlace`): a device, FIFO or
    /// link is written through, a regular file keeps its mode and owner, and the log
    /// can be followed while the emulation runs and holds every line written before a
    /// crash. The path is bytes (`FilePath`): an argument that is not UTF-8 is the
    /// file it names.
    public init(path: String?) throws(EmulationError) {
        guard let path else {
            self.path = nil
            state = Mutex(State())
            return
        }
        let filePath = FilePath(path)
        self.path = filePath
        do { state = Mutex(State(stream: try FileStream(filePath, regularFile: .writtenInPlace))) } catch {
            throw .log("cannot write the log to \(filePath): \(error.problem)")
        }
    }

    /// The first write to the log that failed (a full disk, /dev/full, a FIFO whose
    /// reader left), in one line naming the file and the cause; nil while every line
    /// has been written. The emulation checks it at the end (`finish`), so a run whose
    /// log is incomplete does not end as a success.
    public var failure: EmulationError? {
        state.withLock { s in s.failure.map { .log("cannot write the log to \(path.map(\.description) ?? "?"): \($0.problem)") } }
    }

    /// Flushes the log to disk and throws `failure`, if any. Lines recorded after it
    /// are still written (teardown's events).
    public func finish() throws(EmulationError) {
        state.withLock { s in
            guard s.failure == nil, let stream = s.stream else { return }
            do throws(FileAccessError) { try stream.sync() } catch { s.failure = error }
        }
        if let failure { throw failure }
    }

    public var isEnabled: Bool { path != nil }

    /// The entries of a log file, in order (for tests and benchmarks reading a run's
    /// log, also while the emulation still writes it: a last line without its newline
    /// is still being written and is left out).
    public static func entries(atPath path: String) throws(EmulationError) -> [Entry] {
        let text: String
        do { text = String(decoding: try FileReader.read(FilePath(path), limit: Int.max - DescriptorIO.chunk), as: UTF8.self) } catch {
            throw .log("cannot read the log file \(error.path.map(\.description) ?? path): \(error.problem)")
        }
        let decoder = JSONDecoder()
        var entries: [Entry] = []
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().enumerated() {
            do { entries.append(try decoder.decode(Entry.self, from: Data(line.utf8))) } catch {
                throw .log("\(path) line \(i + 1) is not a log entry: \(error)")
            }
        }
        return entries
    }

    public func record(_ entry: Entry) {
        state.withLock { s in
            guard let stream = s.stream, s.failure == nil else { return }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard var line = try? encoder.encode(entry) else { return }
            line.append(UInt8(ascii: "\n"))
            do throws(FileAccessError) { try stream.append(Array(line)) } catch { s.failure = error }
        }
    }
}

extension EmulationLog.Entry {
    /// `bytes` decoded from hex; nil when there are none or they are not hex.
    public var decodedBytes: [UInt8]? { bytes.flatMap { Hex.decode($0) } }
}
