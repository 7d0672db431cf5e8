/// Writes a pattern as AHAP. Haptic events always carry intensity and sharpness
/// (so the file reads clearly); other parameters appear only where they differ
/// from Core Haptics' defaults. Reading the output gives back an equal pattern.
public enum AHAPWriter {
    public static func json(_ pattern: HapticPattern) -> JSONValue {
        var entries: [JSONValue] = []
        entries.reserveCapacity(pattern.events.count + pattern.parameters.count + pattern.curves.count)
        for event in pattern.events { entries.append(.object([("Event", eventJSON(event))])) }
        for parameter in pattern.parameters {
            entries.append(.object([("Parameter", .object([
                ("ParameterID", .string(parameter.id.rawValue)),
                ("Time", .number(parameter.time)),
                ("ParameterValue", .number(parameter.value)),
            ]))]))
        }
        for curve in pattern.curves {
            let points = curve.controlPoints.map { point in
                JSONValue.object([("Time", .number(point.time)), ("ParameterValue", .number(point.value))])
            }
            entries.append(.object([("ParameterCurve", .object([
                ("ParameterID", .string(curve.id.rawValue)),
                ("Time", .number(curve.time)),
                ("ParameterCurveControlPoints", .array(points)),
            ]))]))
        }
        var root: [(key: String, value: JSONValue)] = [("Version", .number(pattern.version))]
        if !pattern.metadata.entries.isEmpty {
            root.append(("Metadata", .object(pattern.metadata.entries.map { ($0.key, .string($0.value)) })))
        }
        root.append(("Pattern", .array(entries)))
        return .object(root)
    }

    public static func string(_ pattern: HapticPattern) -> String {
        JSONWriter.string(json(pattern))
    }

    private static func eventJSON(_ event: HapticEvent) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("Time", .number(event.time)),
            ("EventType", .string(event.type.rawValue)),
        ]
        if let duration = event.duration { members.append(("EventDuration", .number(duration))) }
        if let waveform = event.waveform {
            members.append(("EventWaveformPath", .string(waveform.path)))
            if waveform.useVolumeEnvelope { members.append(("EventWaveformUseVolumeEnvelope", .bool(true))) }
            if waveform.loopEnabled { members.append(("EventWaveformLoopEnabled", .bool(true))) }
        }
        var parameters: [JSONValue] = []
        for id in EventParameterID.allCases where id.applies(to: event.type) {
            let value = event.parameters[id]
            let alwaysWritten = id == .hapticIntensity || id == .hapticSharpness
            guard alwaysWritten || value != id.defaultValue else { continue }
            parameters.append(.object([("ParameterID", .string(id.rawValue)), ("ParameterValue", .number(value))]))
        }
        members.append(("EventParameters", .array(parameters)))
        return .object(members)
    }
}
