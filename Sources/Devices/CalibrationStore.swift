import Actuators
import BridgeProtocol
import DRV2605
import FileAccess
import Foundation
import JSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Auto-calibration results kept per board and actuator, so the engine can restore
/// them at start (closed-loop LRA drive) instead of calibrating again; the DRV2605
/// datasheet's advice: store A_CAL_COMP, A_CAL_BEMF and BEMF_GAIN on the host and
/// write them back after a reset.
///
/// **Where.** `$XDG_CONFIG_HOME/hapbridge/calibration/`, by the XDG Base Directory
/// Specification: `XDG_CONFIG_HOME` unset or empty means `$HOME/.config`; a relative
/// `XDG_CONFIG_HOME` is invalid and ignored ("If an implementation encounters a
/// relative path in any of these variables it should consider the path invalid and
/// ignore it"), which `warnings` says; without an absolute `HOME` to fall back on
/// there is no directory, and that is an error. A missing directory is created
/// with permission 0700, as the specification asks.
///
/// **One file per board and actuator**: `SERIAL@ACTUATOR.json`, the board's serial
/// number (`[0-9A-Za-z._-]`, HELLO_REPLY) and the profile id (letters, digits, `-`,
/// `_`); neither can hold `@` or `/`, so every pair has its own name and no name
/// leaves the directory. A board that reports `UNSET` (the firmware's word for "no
/// serial") is refused: results stored under it would be restored on every other
/// board without a serial, whose actuator and wiring they do not describe. Nothing is
/// stored; give the board a serial first.
///
/// **The file** (strict JSON, read with the project's parser: 64 KiB at most, no
/// unknown or repeated fields, every error naming the file and the field):
///
///     {
///       "format": "hapbridge-calibration", "version": 1,
///       "boardSerial": "HB-0001",
///       "actuator": { "id": "pmd-c10-100", "type": "LRA", "ratedVoltage": 2, "maxVoltage": 3 },
///       "chip": "DRV2605L",
///       "firmwareVersion": "1.1",          (optional: unknown when absent)
///       "supplyVolts": 4.98,               (optional: VBAT when measured)
///       "measuredAt": "2026-11-24T10:15:00Z",
///       "registers": { "RATED_VOLTAGE": 83, "OD_CLAMP": 141, "A_CAL_COMP": 15,
///                      "A_CAL_BEMF": 170, "FEEDBACK_CONTROL": 182, "LRA_PERIOD": 58 }
///     }
///
/// `registers` is what `DRV2605Driver.restore(_:)` writes back (0x16...0x1A) and the
/// LRA_PERIOD measured while calibrating. The actuator's type and voltages are those of
/// the profile it was calibrated with: a profile whose type or voltages have changed
/// since gets `.stale`, never the old reference in silence.
///
/// **Reading and writing** go through `FileReader` and `FileWriter`: a file is read
/// only if it is a regular file (a link judged by its target) within the limit, and
/// written atomically (a temporary file beside it, flushed, renamed over the old one),
/// so a reader sees the old file or the new one, never half of one, a failure leaves
/// the old one as it was, and an existing file keeps its mode.
public struct CalibrationStore: Sendable {
    public let directory: String
    /// Why the directory is not where the environment seemed to point (a relative
    /// `XDG_CONFIG_HOME` ignored), for the caller to show.
    public let warnings: [String]

    /// A file is a few hundred bytes; anything near this is not one of ours.
    public static let maxBytes = 64 << 10
    static let jsonLimits = JSONParser.Limits(maxBytes: maxBytes, maxDepth: 4, maxElements: 200)
    static let format = "hapbridge-calibration"
    static let version = 1

    /// A store in `directory` as is (tests, or a user's explicit choice).
    public init(directory: String) {
        self.directory = directory
        warnings = []
    }

    /// The user's store, from the environment by the XDG Base Directory rules above.
    public static func user(environment: [String: String] = ArgumentText.environment()) throws(CalibrationStoreError)
        -> CalibrationStore
    {
        var warnings: [String] = []
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty {
            if xdg.hasPrefix("/") { return CalibrationStore(directory: xdg + subdirectory, warnings: []) }
            warnings.append(
                "XDG_CONFIG_HOME is a relative path (\(Echo.quoted(xdg))), which the XDG Base Directory Specification says to ignore: using $HOME/.config")
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else {
            let found = environment["HOME"].map { $0.isEmpty ? "is empty" : "is relative (\(Echo.quoted($0)))" } ?? "is not set"
            throw .noConfigDirectory("XDG_CONFIG_HOME is not usable and HOME \(found): set XDG_CONFIG_HOME or HOME to an absolute path")
        }
        let base = (home.hasSuffix("/") ? String(home.dropLast()) : home) + "/.config"
        return CalibrationStore(directory: base + subdirectory, warnings: warnings)
    }

    /// Below the configuration directory.
    static let subdirectory = "/hapbridge/calibration"

    private init(directory: String, warnings: [String]) {
        self.directory = directory
        self.warnings = warnings
    }

    /// The file that holds (or would hold) the results for `key`.
    public func path(for key: CalibrationKey) -> String { directory + "/" + key.fileName }

    /// The actuator ids this board has stored results for (by file name; nothing is
    /// read), sorted.
    public func actuators(calibratedFor boardSerial: String) -> [String] {
        let prefix = boardSerial + "@"
        let files = FileReader.names(in: FilePath(directory)).map(\.string)
        return files.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }
            .map { String($0.dropFirst(prefix.count).dropLast(".json".count)) }.sorted()
    }

    /// The stored results for this board and the actuator `profile` describes; nil when
    /// none are stored. Throws `.stale` when the profile (or the chip, when given) has
    /// changed since they were measured, and the reading errors for a damaged file.
    public func load(boardSerial: String?, profile: ActuatorProfile, chip: DeviceVariant? = nil) throws(CalibrationStoreError)
        -> CalibrationRecord?
    {
        let key = try CalibrationKey(boardSerial: boardSerial, actuatorID: profile.id)
        let file = path(for: key)
        let bytes: [UInt8]
        do { bytes = try FileReader.read(FilePath(file), limit: Self.maxBytes) } catch {
            switch error.problem {
            case .noSuchFile, .system(ENOTDIR): return nil
            case .tooLarge(let limit, let size): throw .tooLarge(file: file, bytes: size, limit: limit)
            case let problem: throw .unreadable(file: file, reason: problem.description)
            }
        }
        let record = try CalibrationRecord.parse(bytes, file: file)
        for (field, stored, expected) in [("boardSerial", record.boardSerial, key.boardSerial), ("actuator.id", record.actuatorID, key.actuatorID)]
        where stored != expected {
            throw .keyMismatch(file: file, field: field, found: stored, expected: expected)
        }
        let changes = record.changes(from: profile, chip: chip)
        guard changes.isEmpty else { throw .stale(file: file, measuredAt: record.measuredAtText, changes: changes) }
        return record
    }

    /// Writes `record` to its file (replacing what was there), creating the directory
    /// if needed; returns the file's path. Refuses, before touching the disk, a key it
    /// cannot store (no serial, `UNSET`).
    @discardableResult
    public func save(_ record: CalibrationRecord) throws(CalibrationStoreError) -> String {
        let key = try CalibrationKey(boardSerial: record.boardSerial, actuatorID: record.actuatorID)
        let file = path(for: key)
        do { try FileWriter.makeDirectories(FilePath(directory), mode: 0o700) } catch {
            throw .unwritable(file: file, reason: "cannot create the directory \(directory): \(error.problem)")
        }
        // The store's file is ours, not an output the user named: what is there (through
        // any link) must be a regular file or nothing. A FIFO would block the write until
        // something reads it, and results written into a device are lost.
        var info = stat()
        if (try? FilePath(file).withCString({ stat($0, &info) })) == 0, info.st_mode & S_IFMT != S_IFREG {
            throw .unwritable(file: file, reason: "\(FileProblem.notRegular(FileKind(mode: info.st_mode)))")
        }
        do { try FileWriter.write(JSONWriter.string(record.json), to: FilePath(file)) } catch {
            throw .unwritable(file: file, reason: "\(error.problem)")
        }
        return file
    }
}

/// Which board and which actuator a calibration belongs to, checked to be usable as
/// a file name and as a key.
public struct CalibrationKey: Sendable, Hashable {
    public let boardSerial: String
    public let actuatorID: String

    public init(boardSerial: String?, actuatorID: String) throws(CalibrationStoreError) {
        guard let boardSerial else { throw .noSerial }
        guard boardSerial != BoardSerialNumber.unset.text else { throw .unsetSerial }
        do { _ = try BoardSerialNumber(boardSerial) } catch { throw .invalidSerial(error.description) }
        // The profile loader's rule for ids; a profile built in code is held to it here.
        guard !actuatorID.isEmpty, actuatorID.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw .invalidActuatorID(actuatorID)
        }
        self.boardSerial = boardSerial
        self.actuatorID = actuatorID
    }

    /// `SERIAL@ACTUATOR.json`: neither part can contain `@` or `/`.
    public var fileName: String { "\(boardSerial)@\(actuatorID).json" }
}

/// Why calibration results could not be stored or read. Each case says what to do;
/// file errors name the file and the JSON field.
public enum CalibrationStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case noConfigDirectory(String)
    /// The board reports no serial at all (a protocol 1.0 board).
    case noSerial
    /// The board reports `UNSET`, the firmware's "no serial".
    case unsetSerial
    case invalidSerial(String)
    case invalidActuatorID(String)
    case unreadable(file: String, reason: String)
    case unwritable(file: String, reason: String)
    /// `bytes` nil: the file never said its size and was read past the limit.
    case tooLarge(file: String, bytes: Int?, limit: Int)
    case invalidJSON(file: String, line: Int, column: Int, reason: String)
    case missingField(file: String, field: String)
    case wrongType(file: String, field: String, expected: String)
    case invalidValue(file: String, field: String, value: String, allowed: String)
    case unknownField(file: String, field: String)
    case duplicateField(file: String, field: String)
    /// The file's contents name another board or actuator than its file name does.
    case keyMismatch(file: String, field: String, found: String, expected: String)
    /// The profile (or chip) has changed since the results were measured.
    case stale(file: String, measuredAt: String, changes: [String])

    public var description: String {
        switch self {
        case .noConfigDirectory(let why): "no directory for calibration results: \(why)"
        case .noSerial:
            "the board reports no serial number (firmware before protocol 1.1), so its calibration cannot be kept apart from other boards': "
                + "update it with `hapbridge flash`"
        case .unsetSerial:
            "the board's serial number is UNSET (none in its EEPROM or chip): calibration results are kept per board, and results stored under "
                + "UNSET would be restored on any other board without a serial; nothing was stored: give the board a serial number with `hapbridge flash --device usb:BUS-PORT --serial S` (S: 1 to 20 of [0-9A-Za-z._-]; plain `hapbridge flash` makes one, HB- and 16 random hex digits), which writes it to the board's EEPROM"
        case .invalidSerial(let why): "cannot key calibration results by this board: \(why)"
        case .invalidActuatorID(let id): "cannot key calibration results by actuator id \(Echo.quoted(id)): an id is letters, digits, '-' and '_'"
        case .unreadable(let f, let why): "\(f): cannot read (\(why))"
        case .unwritable(let f, let why): "\(f): cannot write (\(why)); nothing was changed"
        case .tooLarge(let f, let bytes, let limit):
            "\(f): \(bytes.map { "\($0) bytes" } ?? "more than \(limit) bytes"); a calibration file is at most \(limit) bytes"
        case .invalidJSON(let f, let line, let column, let why): "\(f): line \(line), column \(column): not valid JSON: \(why)"
        case .missingField(let f, let field): "\(f): missing required field '\(field)'"
        case .wrongType(let f, let field, let expected): "\(f): field '\(field)' must be \(expected)"
        case .invalidValue(let f, let field, let value, let allowed): "\(f): field '\(field)' is \(value), allowed: \(allowed)"
        case .unknownField(let f, let field): "\(f): unknown field '\(field)'"
        case .duplicateField(let f, let field): "\(f): field '\(field)' appears twice"
        case .keyMismatch(let f, let field, let found, let expected):
            "\(f): field '\(field)' is \(Echo.quoted(found)) but the file's name says \(Echo.quoted(expected)): it belongs to another board or actuator"
        case .stale(let f, let at, let changes):
            "\(f): measured \(at), but since then \(changes.joined(separator: "; ")): these results no longer describe the actuator; "
                + "run `hapbridge calibrate` again"
        }
    }
}

/// One board's calibration results for one actuator, with what they were measured
/// under (the store's file, in memory).
public struct CalibrationRecord: Sendable, Equatable {
    public var boardSerial: String
    public var actuatorID: String
    /// The profile's type and voltages at calibration: A_CAL_BEMF is the back-EMF its
    /// rated voltage produced, so it describes that profile only.
    public var actuatorKind: ActuatorProfile.Kind
    public var ratedVoltage: Double
    public var maxVoltage: Double
    public var chip: DeviceVariant
    public var firmwareVersion: String?
    /// VBAT while calibrating, when read.
    public var supplyVolts: Double?
    /// Whole seconds (what the file keeps).
    public var measuredAt: Date
    public var result: AutoCalibrationResult

    public init(
        result: AutoCalibrationResult, boardSerial: String, profile: ActuatorProfile, chip: DeviceVariant, firmwareVersion: String? = nil,
        supplyVolts: Double? = nil, measuredAt: Date = Date()
    ) {
        self.init(
            boardSerial: boardSerial, actuatorID: profile.id, actuatorKind: profile.kind, ratedVoltage: profile.ratedVoltage,
            maxVoltage: profile.maxVoltage, chip: chip, firmwareVersion: firmwareVersion, supplyVolts: supplyVolts,
            measuredAt: Date(timeIntervalSince1970: measuredAt.timeIntervalSince1970.rounded(.down)), result: result)
    }

    init(
        boardSerial: String, actuatorID: String, actuatorKind: ActuatorProfile.Kind, ratedVoltage: Double, maxVoltage: Double,
        chip: DeviceVariant, firmwareVersion: String?, supplyVolts: Double?, measuredAt: Date, result: AutoCalibrationResult
    ) {
        self.boardSerial = boardSerial
        self.actuatorID = actuatorID
        self.actuatorKind = actuatorKind
        self.ratedVoltage = ratedVoltage
        self.maxVoltage = maxVoltage
        self.chip = chip
        self.firmwareVersion = firmwareVersion
        self.supplyVolts = supplyVolts
        self.measuredAt = measuredAt
        self.result = result
    }

    /// What differs between the profile (and chip) these results were measured with
    /// and `profile` (and `chip`) now, one phrase each; empty when nothing does.
    public func changes(from profile: ActuatorProfile, chip: DeviceVariant? = nil) -> [String] {
        var out: [String] = []
        if profile.kind != actuatorKind { out.append("\(profile.id) became an \(profile.kind.rawValue) (calibrated as an \(actuatorKind.rawValue))") }
        if profile.ratedVoltage != ratedVoltage { out.append("\(profile.id)'s ratedVoltage changed from \(ratedVoltage) to \(profile.ratedVoltage) V") }
        if profile.maxVoltage != maxVoltage { out.append("\(profile.id)'s maxVoltage changed from \(maxVoltage) to \(profile.maxVoltage) V") }
        if let chip, chip != self.chip { out.append("the board's chip is now a \(chip) (calibrated on a \(self.chip))") }
        return out
    }

    var measuredAtText: String { Self.dateFormatter().string(from: measuredAt) }

    /// RFC 3339 / ISO 8601 in UTC, whole seconds: `2026-11-24T10:15:00Z`.
    static func dateFormatter() -> ISO8601DateFormatter {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f
    }

    /// The register names of the file, in register order, with their values.
    static let registerNames = ["RATED_VOLTAGE", "OD_CLAMP", "A_CAL_COMP", "A_CAL_BEMF", "FEEDBACK_CONTROL", "LRA_PERIOD"]
    var registerValues: [UInt8] { result.storedBlock + [result.lraPeriodCode] }

    var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("format", .string(CalibrationStore.format)), ("version", .number(Double(CalibrationStore.version))),
            ("boardSerial", .string(boardSerial)),
            ("actuator", .object([
                ("id", .string(actuatorID)), ("type", .string(actuatorKind.rawValue)), ("ratedVoltage", .number(ratedVoltage)),
                ("maxVoltage", .number(maxVoltage)),
            ])),
            ("chip", .string(chip.description)),
        ]
        if let firmwareVersion { members.append(("firmwareVersion", .string(firmwareVersion))) }
        if let supplyVolts { members.append(("supplyVolts", .number(supplyVolts))) }
        members.append(("measuredAt", .string(measuredAtText)))
        members.append(("registers", .object(zip(Self.registerNames, registerValues).map { ($0, .number(Double($1))) })))
        return .object(members)
    }

    static func parse(_ bytes: [UInt8], file: String) throws(CalibrationStoreError) -> CalibrationRecord {
        let document: JSONParser.Document
        do { document = try JSONParser.parse(bytes, limits: CalibrationStore.jsonLimits) } catch {
            throw .invalidJSON(file: file, line: error.line, column: error.column, reason: error.message)
        }
        let r = RecordReader(file: file)
        let root = try r.fields(
            document.value, at: nil,
            allowed: ["format", "version", "boardSerial", "actuator", "chip", "firmwareVersion", "supplyVolts", "measuredAt", "registers"])
        let format = try r.string(root, "format")
        guard format == CalibrationStore.format else {
            throw .invalidValue(file: file, field: "format", value: Echo.quoted(format), allowed: "\"\(CalibrationStore.format)\"")
        }
        let version = try r.byte(root, "version")
        guard Int(version) == CalibrationStore.version else {
            throw .invalidValue(file: file, field: "version", value: "\(version)", allowed: "\(CalibrationStore.version) (written by another hapbridge?)")
        }
        let actuator = try r.fields(try r.required(root, "actuator"), at: "actuator", allowed: ["id", "type", "ratedVoltage", "maxVoltage"])
        let kindText = try r.string(actuator, "type")
        guard let kind = ActuatorProfile.Kind(rawValue: kindText) else {
            throw .invalidValue(file: file, field: "actuator.type", value: Echo.quoted(kindText), allowed: "\"LRA\", \"ERM\"")
        }
        let chipText = try r.string(root, "chip")
        guard let chip = DeviceVariant.allCases.first(where: { $0.description == chipText }) else {
            throw .invalidValue(
                file: file, field: "chip", value: Echo.quoted(chipText), allowed: DeviceVariant.allCases.map { "\"\($0)\"" }.joined(separator: ", "))
        }
        let dateText = try r.string(root, "measuredAt")
        guard let date = dateFormatter().date(from: dateText) else {
            throw .invalidValue(file: file, field: "measuredAt", value: Echo.quoted(dateText), allowed: "an ISO 8601 time such as \"2026-11-24T10:15:00Z\"")
        }
        let registers = try r.fields(try r.required(root, "registers"), at: "registers", allowed: Set(registerNames))
        var values: [UInt8] = []
        for name in registerNames { values.append(try r.byte(registers, name)) }
        let result = AutoCalibrationResult(
            ratedVoltageCode: values[0], overdriveClampCode: values[1], compensationCode: values[2], backEMFCode: values[3],
            feedbackControl: values[4], lraPeriodCode: values[5])
        guard result.isLRA == (kind == .lra) else {
            throw .invalidValue(
                file: file, field: "registers.FEEDBACK_CONTROL", value: "\(values[4]) (N_ERM_LRA = \(result.isLRA ? "LRA" : "ERM"))",
                allowed: "N_ERM_LRA matching actuator.type \(kind.rawValue)")
        }
        return CalibrationRecord(
            boardSerial: try r.string(root, "boardSerial"), actuatorID: try r.string(actuator, "id"), actuatorKind: kind,
            ratedVoltage: try r.volts(actuator, "ratedVoltage"), maxVoltage: try r.volts(actuator, "maxVoltage"), chip: chip,
            firmwareVersion: try r.optionalString(root, "firmwareVersion"), supplyVolts: try r.optionalVolts(root, "supplyVolts"),
            measuredAt: date, result: result)
    }
}

/// The strict walk over a calibration file: every field checked for presence, type
/// and range, named by its dotted path.
private struct RecordReader {
    let file: String

    struct Fields {
        let prefix: String
        let members: [String: JSONValue]
        func path(_ key: String) -> String { prefix + key }
    }

    func fields(_ value: JSONValue, at path: String?, allowed: Set<String>) throws(CalibrationStoreError) -> Fields {
        guard case .object(let list) = value else { throw .wrongType(file: file, field: path ?? "(root)", expected: "an object, found \(value.typeDescription)") }
        let prefix = path.map { $0 + "." } ?? ""
        var members: [String: JSONValue] = [:]
        for (key, member) in list {
            guard allowed.contains(key) else { throw .unknownField(file: file, field: prefix + Echo.pathComponent(key)) }
            guard members.updateValue(member, forKey: key) == nil else { throw .duplicateField(file: file, field: prefix + key) }
        }
        return Fields(prefix: prefix, members: members)
    }

    func required(_ o: Fields, _ key: String) throws(CalibrationStoreError) -> JSONValue { try present(o.members[key], o, key) }

    /// What an optional reader found, where the field is required.
    func present<T>(_ value: T?, _ o: Fields, _ key: String) throws(CalibrationStoreError) -> T {
        guard let value else { throw .missingField(file: file, field: o.path(key)) }
        return value
    }

    func string(_ o: Fields, _ key: String) throws(CalibrationStoreError) -> String { try present(try optionalString(o, key), o, key) }

    func optionalString(_ o: Fields, _ key: String) throws(CalibrationStoreError) -> String? {
        guard let v = o.members[key] else { return nil }
        guard case .string(let s) = v else { throw .wrongType(file: file, field: o.path(key), expected: "a string, found \(v.typeDescription)") }
        return s
    }

    /// A whole number 0...255 (a register byte, or the format version).
    func byte(_ o: Fields, _ key: String) throws(CalibrationStoreError) -> UInt8 {
        let v = try required(o, key)
        guard case .number(let d) = v else { throw .wrongType(file: file, field: o.path(key), expected: "a whole number 0...255, found \(v.typeDescription)") }
        guard let b = UInt8(exactly: d) else {
            throw .invalidValue(file: file, field: o.path(key), value: JSONWriter.format(d), allowed: "a whole number 0...255")
        }
        return b
    }

    /// Volts as a profile or VBAT holds them: finite, 0...10.
    func volts(_ o: Fields, _ key: String) throws(CalibrationStoreError) -> Double { try present(try optionalVolts(o, key), o, key) }

    func optionalVolts(_ o: Fields, _ key: String) throws(CalibrationStoreError) -> Double? {
        guard let v = o.members[key] else { return nil }
        guard case .number(let d) = v else { throw .wrongType(file: file, field: o.path(key), expected: "a number of volts, found \(v.typeDescription)") }
        guard d.isFinite, (0...10).contains(d) else { throw .invalidValue(file: file, field: o.path(key), value: JSONWriter.format(d), allowed: "0...10 V") }
        return d
    }
}
