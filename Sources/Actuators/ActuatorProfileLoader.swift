import FileAccess
import Foundation
import JSON

/// Reads and validates profile JSON (schema: Hardware/actuators/actuator-profile.schema.json)
/// and resolves a profile argument: a path to a `.json` file, or the name of a file in
/// the profile directories.
///
/// Profiles are read as strictly as patterns, by the same JSON parser: a boolean is
/// not a number, a whole-number field takes only whole numbers, unknown and repeated
/// fields are errors, a trailing comma is accepted with a warning (as in an AHAP), and
/// a syntax error names its line and column.
public enum ActuatorProfileLoader {
    /// A profile is a few hundred bytes; anything near this is not a profile.
    public static let maxBytes = 1 << 20
    static let jsonLimits = JSONParser.Limits(maxBytes: maxBytes, maxDepth: 8, maxElements: 10_000)
    /// The file that marks a profile directory as the one shipped with hapbridge.
    static let schemaFile = "actuator-profile.schema.json"

    /// A profile and where it came from.
    public struct LoadedProfile: Sendable, Equatable {
        public var profile: ActuatorProfile
        /// The file it was read from, as found.
        public var file: String
        /// Files of the same name later in the search order, which this one hides
        /// (empty when the argument was a path).
        public var shadowed: [String]
        public var warnings: [ProfileWarning]
    }

    /// Where names are looked up, in order:
    /// 1. `$HAPBRIDGE_ACTUATORS`, when set: the user's explicit choice;
    /// 2. the shipped profiles: `Hardware/actuators` (holding the schema) in the
    ///    checkout the running executable was built in, so `swift run`,
    ///    `.build/release/hapbridge` and `scripts/hapbridge` find them from anywhere;
    ///    or, for an installed hapbridge, `PREFIX/share/hapbridge/actuators`
    ///    (`InstalledData`);
    /// 3. `Hardware/actuators` in the current directory, then in each parent of it.
    /// A same-named file further down never replaces one found earlier, so a copy in
    /// a parent directory cannot shadow a shipped profile; `locate` reports it.
    public static func searchDirectories(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: URL? = Bundle.main.executableURL,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) -> [String] {
        let fm = FileManager.default
        var dirs: [String] = []
        func add(_ path: String) {
            let standard = URL(fileURLWithPath: path).standardizedFileURL.path
            if !dirs.contains(standard) { dirs.append(standard) }
        }
        if let env = environment["HAPBRIDGE_ACTUATORS"], !env.isEmpty { add(env) }
        if let executable {
            let shipped = ancestors(of: executable.resolvingSymlinksInPath().deletingLastPathComponent())
                .map { $0.appendingPathComponent("Hardware/actuators") }
                .first { fm.fileExists(atPath: $0.appendingPathComponent(schemaFile).path) }
            if let shipped {
                add(shipped.path)
            } else if let installed = InstalledData.directory("actuators", executable: executable),
                fm.fileExists(atPath: installed.appendingPathComponent(schemaFile).path)
            {
                add(installed.path)
            }
        }
        for directory in ancestors(of: URL(fileURLWithPath: currentDirectory)) {
            let candidate = directory.appendingPathComponent("Hardware/actuators").path
            if fm.fileExists(atPath: candidate) { add(candidate) }
        }
        return dirs
    }

    /// `start` and up to eight of its parents.
    private static func ancestors(of start: URL) -> [URL] {
        var result = [start.standardizedFileURL]
        while result.count < 9 {
            let parent = result[result.count - 1].deletingLastPathComponent()
            if parent.path == result[result.count - 1].path { break }
            result.append(parent)
        }
        return result
    }

    /// A path (anything containing "/" or ending in ".json") is read as is; otherwise
    /// `NAME.json` is looked up in `directories` (default: `searchDirectories()`), and
    /// the first match is loaded.
    public static func locate(_ argument: String, directories: [String]? = nil) throws(ActuatorProfileError) -> LoadedProfile {
        if argument.contains("/") || argument.hasSuffix(".json") {
            return try load(path: argument)
        }
        let dirs = directories ?? searchDirectories()
        let matches = dirs.map { URL(fileURLWithPath: $0).appendingPathComponent(argument + ".json").path }
            .filter { FileManager.default.fileExists(atPath: $0) }
        guard let first = matches.first else {
            throw .notFound(name: argument, searched: dirs.isEmpty ? ["(no Hardware/actuators directory found; set HAPBRIDGE_ACTUATORS)"] : dirs)
        }
        var loaded = try load(path: first)
        loaded.shadowed = Array(matches.dropFirst())
        return loaded
    }

    /// The profile alone, for callers that do not report where it came from.
    public static func resolve(_ argument: String, directories: [String]? = nil) throws(ActuatorProfileError) -> ActuatorProfile {
        try locate(argument, directories: directories).profile
    }

    /// Names of the profiles in the search directories.
    public static func availableNames(directories: [String]? = nil) -> [String] {
        let dirs = directories ?? searchDirectories()
        var names: Set<String> = []
        for dir in dirs {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
            for f in files where f.hasSuffix(".json") && !f.hasSuffix(".schema.json") { names.insert(String(f.dropLast(5))) }
        }
        return names.sorted()
    }

    /// Reads `path` through the bounded reader (`FileReader`): a link is judged by its
    /// target, a FIFO or device is refused as what it is, a file over `maxBytes` is
    /// refused before it is read. The path's bytes are the file's name (`FilePath`).
    public static func load(path: String) throws(ActuatorProfileError) -> LoadedProfile {
        let bytes: [UInt8]
        do { bytes = try FileReader.read(FilePath(path), limit: maxBytes) } catch {
            if case .tooLarge(let limit, let size) = error.problem { throw .tooLarge(file: path, bytes: size ?? limit + 1, limit: limit) }
            throw .unreadable(file: path, reason: error.problem == .noSuchFile ? "no such file" : error.problem.description)
        }
        return try parse(Data(bytes), file: path)
    }

    public static func parse(_ data: Data, file: String) throws(ActuatorProfileError) -> LoadedProfile {
        guard data.count <= maxBytes else { throw .tooLarge(file: file, bytes: data.count, limit: maxBytes) }
        let document: JSONParser.Document
        do { document = try JSONParser.parse(Array(data), limits: jsonLimits, trailingCommas: .acceptedWithWarning) } catch {
            throw .invalidJSON(file: file, line: error.line, column: error.column, reason: error.message)
        }
        let warnings = document.warnings.map {
            ProfileWarning(file: file, line: $0.position.line, column: $0.position.column, message: $0.message)
        }
        let profile = try ProfileReader(file: file).read(document.value)
        return LoadedProfile(profile: profile, file: file, shadowed: [], warnings: warnings)
    }
}

/// Something accepted in a profile that strict JSON does not allow.
public struct ProfileWarning: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String

    public var description: String { "\(file): line \(line), column \(column): warning: \(message)" }
}

/// The validation walk. Kept apart from the loader so each rule sits next to its field.
struct ProfileReader {
    let file: String

    /// One JSON object's members, checked against the fields it may hold.
    struct Fields {
        let prefix: String
        let members: [String: JSONValue]

        subscript(key: String) -> JSONValue? { members[key] }
        func path(_ key: String) -> String { prefix + Echo.pathComponent(key) }
    }

    func fields(_ value: JSONValue, at path: String, allowed: Set<String>) throws(ActuatorProfileError) -> Fields {
        guard case .object(let list) = value else { throw .wrongType(file: file, field: path, expected: "an object") }
        let prefix = path == "(root)" ? "" : path + "."
        var members: [String: JSONValue] = [:]
        for (key, member) in list {
            guard allowed.contains(key) else { throw .unknownField(file: file, field: prefix + Echo.pathComponent(key)) }
            guard members.updateValue(member, forKey: key) == nil else {
                throw .duplicateField(file: file, field: prefix + key)
            }
        }
        return Fields(prefix: prefix, members: members)
    }

    static let rootFields: Set<String> = [
        "$schema", "id", "maker", "partNumber", "type", "ratedVoltage", "maxVoltage", "coilResistanceOhms",
        "ratedAccelerationG", "accelerationMeasure", "testMassGrams", "lra", "erm", "drive", "source",
    ]

    func read(_ value: JSONValue) throws(ActuatorProfileError) -> ActuatorProfile {
        let root = try fields(value, at: "(root)", allowed: Self.rootFields)
        _ = try optionalString(root, "$schema")
        let kindText = try string(root, "type")
        guard let kind = ActuatorProfile.Kind(rawValue: kindText.uppercased()) else {
            throw .invalidValue(file: file, field: "type", value: kindText, allowed: ActuatorProfile.Kind.allCases.map(\.rawValue))
        }
        let rated = try number(root, "ratedVoltage", in: 0.1...10, allowed: "0.1...10 V")
        let maxV = try number(root, "maxVoltage", in: 0.1...10, allowed: "0.1...10 V")
        guard maxV >= rated else { throw .outOfRange(file: file, field: "maxVoltage", value: maxV, allowed: ">= ratedVoltage (\(rated))") }
        var lra: ActuatorProfile.LRA?
        var erm: ActuatorProfile.ERM?
        switch kind {
        case .lra:
            if root["erm"] != nil { throw .fieldNotAllowed(file: file, field: "erm", reason: "the profile's type is LRA") }
            let o = try fields(try required(root, "lra"), at: "lra", allowed: ["resonantFrequencyHz", "qualityFactor", "movingMassGrams"])
            lra = .init(
                resonantFrequencyHz: try number(o, "resonantFrequencyHz", in: 50...500, allowed: "50...500 Hz"),
                qualityFactor: try number(o, "qualityFactor", in: 1...200, allowed: "1...200"),
                movingMassGrams: try number(o, "movingMassGrams", in: 0.05...100, allowed: "0.05...100 g"))
        case .erm:
            if root["lra"] != nil { throw .fieldNotAllowed(file: file, field: "lra", reason: "the profile's type is ERM") }
            let o = try fields(try required(root, "erm"), at: "erm", allowed: ["ratedSpeedRPM", "timeConstantMilliseconds", "eccentricMassGrams"])
            erm = .init(
                ratedSpeedRPM: try number(o, "ratedSpeedRPM", in: 500...50_000, allowed: "500...50000 rpm"),
                timeConstantMilliseconds: try number(o, "timeConstantMilliseconds", in: 1...1000, allowed: "1...1000 ms"),
                eccentricMassGrams: try optionalNumber(o, "eccentricMassGrams", in: 0.001...100, allowed: "0.001...100 g"))
        }
        var drive = ActuatorProfile.Drive()
        if let driveValue = root["drive"] {
            let d = try fields(driveValue, at: "drive", allowed: ["loop", "brakeFactor", "loopGain", "autoCalibrationMilliseconds"])
            if let loop = try optionalString(d, "loop") {
                guard let l = ActuatorProfile.Loop(rawValue: loop) else {
                    throw .invalidValue(file: file, field: "drive.loop", value: loop, allowed: ActuatorProfile.Loop.allCases.map(\.rawValue))
                }
                drive.loop = l
            }
            // The schema's one nullable field: null turns braking off.
            if d["brakeFactor"] == .null {
                drive.brakeFactor = nil
            } else if let b = try optionalInteger(d, "brakeFactor") {
                guard [1, 2, 3, 4, 6, 8, 16].contains(b) else {
                    throw .invalidValue(file: file, field: "drive.brakeFactor", value: "\(b)", allowed: ["1", "2", "3", "4", "6", "8", "16", "null"])
                }
                drive.brakeFactor = b
            }
            if let g = try optionalString(d, "loopGain") {
                let allowed = ["low", "medium", "high", "very high"]
                guard allowed.contains(g) else { throw .invalidValue(file: file, field: "drive.loopGain", value: g, allowed: allowed) }
                drive.loopGain = g
            }
            if let t = try optionalInteger(d, "autoCalibrationMilliseconds") {
                guard [150, 250, 500, 1000].contains(t) else {
                    throw .invalidValue(file: file, field: "drive.autoCalibrationMilliseconds", value: "\(t)", allowed: ["150", "250", "500", "1000"])
                }
                drive.autoCalibrationMilliseconds = t
            }
        }
        let s = try fields(try required(root, "source"), at: "source", allowed: ["document", "url", "notes"])
        let source = ActuatorProfile.Source(
            document: try string(s, "document"), url: try optionalString(s, "url"), notes: try optionalString(s, "notes"))
        var measure = ActuatorProfile.AccelerationMeasure.peak
        if let m = try optionalString(root, "accelerationMeasure") {
            guard let parsed = ActuatorProfile.AccelerationMeasure(rawValue: m) else {
                throw .invalidValue(file: file, field: "accelerationMeasure", value: m, allowed: ActuatorProfile.AccelerationMeasure.allCases.map(\.rawValue))
            }
            measure = parsed
        }
        let id = try string(root, "id")
        guard !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw .invalidValue(file: file, field: "id", value: id, allowed: ["letters, digits, '-' and '_'"])
        }
        return ActuatorProfile(
            id: id, maker: try string(root, "maker"), partNumber: try string(root, "partNumber"), kind: kind,
            ratedVoltage: rated, maxVoltage: maxV,
            coilResistanceOhms: try number(root, "coilResistanceOhms", in: 1...500, allowed: "1...500 ohm"),
            ratedAccelerationG: try number(root, "ratedAccelerationG", in: 0.01...20, allowed: "0.01...20 g"),
            accelerationMeasure: measure,
            testMassGrams: try optionalNumber(root, "testMassGrams", in: 1...10_000, allowed: "1...10000 g") ?? 100,
            lra: lra, erm: erm, drive: drive, source: source)
    }

    // MARK: field readers

    func required(_ o: Fields, _ key: String) throws(ActuatorProfileError) -> JSONValue {
        guard let v = o[key] else { throw .missingField(file: file, field: o.path(key)) }
        return v
    }

    func string(_ o: Fields, _ key: String) throws(ActuatorProfileError) -> String {
        guard let v = try optionalString(o, key) else { throw .missingField(file: file, field: o.path(key)) }
        return v
    }

    func optionalString(_ o: Fields, _ key: String) throws(ActuatorProfileError) -> String? {
        guard let v = o[key] else { return nil }
        guard case .string(let s) = v else { throw .wrongType(file: file, field: o.path(key), expected: "a string, found \(v.typeDescription)") }
        return s
    }

    func number(_ o: Fields, _ key: String, in range: ClosedRange<Double>, allowed: String) throws(ActuatorProfileError) -> Double {
        guard let v = try optionalNumber(o, key, in: range, allowed: allowed) else {
            throw .missingField(file: file, field: o.path(key))
        }
        return v
    }

    /// JSON numbers only: `true` is a boolean here, never 1.
    func optionalNumber(_ o: Fields, _ key: String, in range: ClosedRange<Double>, allowed: String) throws(ActuatorProfileError) -> Double? {
        guard let v = o[key] else { return nil }
        guard case .number(let d) = v else { throw .wrongType(file: file, field: o.path(key), expected: "a number, found \(v.typeDescription)") }
        guard d.isFinite, range.contains(d) else { throw .outOfRange(file: file, field: o.path(key), value: d, allowed: allowed) }
        return d
    }

    /// A whole number: 3 (or 3.0, which JSON cannot tell apart), never 3.5.
    func optionalInteger(_ o: Fields, _ key: String) throws(ActuatorProfileError) -> Int? {
        guard let v = o[key] else { return nil }
        guard case .number(let d) = v else { throw .wrongType(file: file, field: o.path(key), expected: "a whole number, found \(v.typeDescription)") }
        guard let n = Int(exactly: d) else {
            throw .wrongType(file: file, field: o.path(key), expected: "a whole number, found \(JSONWriter.format(d))")
        }
        return n
    }
}
