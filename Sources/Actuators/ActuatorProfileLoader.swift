import Foundation

/// Reads and validates profile JSON (schema: Hardware/actuators/actuator-profile.schema.json)
/// and resolves a profile argument: a path to a `.json` file, or the name of a file in
/// the profile directories.
public enum ActuatorProfileLoader {
    /// Where names are looked up, in order: `$HAPBRIDGE_ACTUATORS`, then
    /// `Hardware/actuators` in the current directory or any parent of it, then the same
    /// next to the running executable (so `swift run` and `.build/debug/hapbridge` both work).
    public static func searchDirectories(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var dirs: [String] = []
        if let env = environment["HAPBRIDGE_ACTUATORS"], !env.isEmpty { dirs.append(env) }
        let fm = FileManager.default
        for start in [fm.currentDirectoryPath, (CommandLine.arguments.first.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }) ?? ""] where !start.isEmpty {
            var url = URL(fileURLWithPath: start)
            for _ in 0..<8 {
                let candidate = url.appendingPathComponent("Hardware/actuators").path
                if fm.fileExists(atPath: candidate), !dirs.contains(candidate) { dirs.append(candidate) }
                let parent = url.deletingLastPathComponent()
                if parent.path == url.path { break }
                url = parent
            }
        }
        return dirs
    }

    /// A path (anything containing "/" or ending in ".json") is read as is; otherwise
    /// `NAME.json` is looked up in `directories`.
    public static func resolve(_ argument: String, directories: [String]? = nil) throws(ActuatorProfileError) -> ActuatorProfile {
        if argument.contains("/") || argument.hasSuffix(".json") {
            return try load(path: argument)
        }
        let dirs = directories ?? searchDirectories()
        for dir in dirs {
            let path = URL(fileURLWithPath: dir).appendingPathComponent(argument + ".json").path
            if FileManager.default.fileExists(atPath: path) { return try load(path: path) }
        }
        throw .notFound(name: argument, searched: dirs.isEmpty ? ["(no Hardware/actuators directory found; set HAPBRIDGE_ACTUATORS)"] : dirs)
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

    public static func load(path: String) throws(ActuatorProfileError) -> ActuatorProfile {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .unreadable(file: path, reason: FileManager.default.fileExists(atPath: path) ? "\(error)" : "no such file")
        }
        return try parse(data, file: path)
    }

    public static func parse(_ data: Data, file: String) throws(ActuatorProfileError) -> ActuatorProfile {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch {
            throw .invalidJSON(file: file, reason: (error as NSError).localizedDescription)
        }
        guard let root = object as? [String: Any] else { throw .wrongType(file: file, field: "(root)", expected: "an object") }
        return try ProfileReader(file: file).read(root)
    }
}

/// The validation walk. Kept apart from the loader so each rule sits next to its field.
struct ProfileReader {
    let file: String

    static let rootFields: Set<String> = [
        "$schema", "id", "maker", "partNumber", "type", "ratedVoltage", "maxVoltage", "coilResistanceOhms",
        "ratedAccelerationG", "accelerationMeasure", "testMassGrams", "lra", "erm", "drive", "source",
    ]

    func read(_ root: [String: Any]) throws(ActuatorProfileError) -> ActuatorProfile {
        try rejectUnknown(root, allowed: Self.rootFields, prefix: "")
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
            let o = try object(root, "lra")
            try rejectUnknown(o, allowed: ["resonantFrequencyHz", "qualityFactor", "movingMassGrams"], prefix: "lra.")
            lra = .init(
                resonantFrequencyHz: try number(o, "resonantFrequencyHz", path: "lra.resonantFrequencyHz", in: 50...500, allowed: "50...500 Hz"),
                qualityFactor: try number(o, "qualityFactor", path: "lra.qualityFactor", in: 1...200, allowed: "1...200"),
                movingMassGrams: try number(o, "movingMassGrams", path: "lra.movingMassGrams", in: 0.05...100, allowed: "0.05...100 g"))
            if root["erm"] != nil { throw .unknownField(file: file, field: "erm") }
        case .erm:
            let o = try object(root, "erm")
            try rejectUnknown(o, allowed: ["ratedSpeedRPM", "timeConstantMilliseconds", "eccentricMassGrams"], prefix: "erm.")
            erm = .init(
                ratedSpeedRPM: try number(o, "ratedSpeedRPM", path: "erm.ratedSpeedRPM", in: 500...50_000, allowed: "500...50000 rpm"),
                timeConstantMilliseconds: try number(o, "timeConstantMilliseconds", path: "erm.timeConstantMilliseconds", in: 1...1000, allowed: "1...1000 ms"),
                eccentricMassGrams: try optionalNumber(o, "eccentricMassGrams", path: "erm.eccentricMassGrams", in: 0.001...100, allowed: "0.001...100 g"))
            if root["lra"] != nil { throw .unknownField(file: file, field: "lra") }
        }
        var drive = ActuatorProfile.Drive()
        if root["drive"] != nil {
            let d = try object(root, "drive")
            try rejectUnknown(d, allowed: ["loop", "brakeFactor", "loopGain", "autoCalibrationMilliseconds"], prefix: "drive.")
            if let loop = try optionalString(d, "loop", path: "drive.loop") {
                guard let l = ActuatorProfile.Loop(rawValue: loop) else {
                    throw .invalidValue(file: file, field: "drive.loop", value: loop, allowed: ActuatorProfile.Loop.allCases.map(\.rawValue))
                }
                drive.loop = l
            }
            if d["brakeFactor"] is NSNull {
                drive.brakeFactor = nil
            } else if let b = try optionalNumber(d, "brakeFactor", path: "drive.brakeFactor", in: 1...16, allowed: "1, 2, 3, 4, 6, 8, 16 or null") {
                guard [1, 2, 3, 4, 6, 8, 16].contains(Int(b)), b == b.rounded() else {
                    throw .invalidValue(file: file, field: "drive.brakeFactor", value: "\(b)", allowed: ["1", "2", "3", "4", "6", "8", "16", "null"])
                }
                drive.brakeFactor = Int(b)
            }
            if let g = try optionalString(d, "loopGain", path: "drive.loopGain") {
                let allowed = ["low", "medium", "high", "very high"]
                guard allowed.contains(g) else { throw .invalidValue(file: file, field: "drive.loopGain", value: g, allowed: allowed) }
                drive.loopGain = g
            }
            if let t = try optionalNumber(d, "autoCalibrationMilliseconds", path: "drive.autoCalibrationMilliseconds", in: 150...1000, allowed: "150, 250, 500, 1000") {
                guard [150, 250, 500, 1000].contains(Int(t)) else {
                    throw .invalidValue(file: file, field: "drive.autoCalibrationMilliseconds", value: "\(t)", allowed: ["150", "250", "500", "1000"])
                }
                drive.autoCalibrationMilliseconds = Int(t)
            }
        }
        let s = try object(root, "source")
        try rejectUnknown(s, allowed: ["document", "url", "notes"], prefix: "source.")
        let source = ActuatorProfile.Source(
            document: try string(s, "document", path: "source.document"),
            url: try optionalString(s, "url", path: "source.url"),
            notes: try optionalString(s, "notes", path: "source.notes"))
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

    func rejectUnknown(_ o: [String: Any], allowed: Set<String>, prefix: String) throws(ActuatorProfileError) {
        if let extra = o.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw .unknownField(file: file, field: prefix + extra)
        }
    }

    func object(_ o: [String: Any], _ key: String) throws(ActuatorProfileError) -> [String: Any] {
        guard let v = o[key] else { throw .missingField(file: file, field: key) }
        guard let d = v as? [String: Any] else { throw .wrongType(file: file, field: key, expected: "an object") }
        return d
    }

    func string(_ o: [String: Any], _ key: String, path: String? = nil) throws(ActuatorProfileError) -> String {
        guard let v = try optionalString(o, key, path: path) else { throw .missingField(file: file, field: path ?? key) }
        return v
    }

    func optionalString(_ o: [String: Any], _ key: String, path: String? = nil) throws(ActuatorProfileError) -> String? {
        guard let v = o[key], !(v is NSNull) else { return nil }
        guard let s = v as? String else { throw .wrongType(file: file, field: path ?? key, expected: "a string") }
        return s
    }

    func number(_ o: [String: Any], _ key: String, path: String? = nil, in range: ClosedRange<Double>, allowed: String) throws(ActuatorProfileError) -> Double {
        guard let v = try optionalNumber(o, key, path: path, in: range, allowed: allowed) else {
            throw .missingField(file: file, field: path ?? key)
        }
        return v
    }

    func optionalNumber(_ o: [String: Any], _ key: String, path: String? = nil, in range: ClosedRange<Double>, allowed: String) throws(ActuatorProfileError) -> Double? {
        guard let v = o[key], !(v is NSNull) else { return nil }
        // A JSON true/false comes back as a native Bool; only real numbers pass.
        guard type(of: v) != Bool.self, let n = v as? NSNumber else {
            throw .wrongType(file: file, field: path ?? key, expected: "a number")
        }
        let d = n.doubleValue
        guard d.isFinite, range.contains(d) else { throw .outOfRange(file: file, field: path ?? key, value: d, allowed: allowed) }
        return d
    }
}

