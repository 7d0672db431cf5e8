import HapticCompilation
import HapticEngine
import JSON

/// `play --record FILE` (`PlayResult.recordJSON`): what the chip got, for a HIL script or a test to
/// hold against what the board did (an emulation's log, a logic analyser's capture).
///
///     {"schema": "hapbridge-play-record/1", "device": "usb:1-2",
///      "commands": [{"board_us": 1234567, "kind": "rtp", "amplitude": 85},
///                   {"board_us": 1234567, "kind": "register", "register": 32, "value": 58},
///                   {"board_us": 1300000, "kind": "stop"}, ...],
///      "statistics": {"sent": 42, "ran": 42, "flushed": 0, "withdrawn": 0, "queued": 0, "undelivered": 0, "settled": true,
///                     "late": 0, "underruns": 0, "rejected": 0, "replacements": 0,
///                     "merged": 0, "delayed": 0, "resent": 0, "lateAfterRefusal": 0,
///                     "refusals": {"QUEUE_FULL": 0, ...}},
///      "stopReason": null,
///      "acceleration": {"source": "sensor", "sourceDevice": "LIS3DH", "samples": 470, "sampleRateHz": 1344, "peakG": 0.18}}
///
/// `stopReason` is null when the pattern played to its end, else why it did not: the
/// engine's stop reason, or "interrupted by SIGINT" (SIGTERM, SIGHUP).
///
/// `acceleration` says where the play's acceleration came from (`AccelerationProvenance`:
/// "sensor", an accelerometer on the bench, or "model", the actuator's physics) and its
/// peak; null when the device gave none.
///
/// `commands` are the commands the board ran, in the order it ran them, by its own
/// count (QUEUE_STATUS's commands executed, `Delivery`): a command refused and sent
/// again is listed once; commands a change took back (REPLACE_FROM) are not listed, nor
/// are those a stop flushed from the board's queue before they played. `board_us` is
/// the command's stamp on the board's clock (µs since its boot, before the 32-bit wrap).
/// Of the commands `sent` (each once), `ran` ran on the chip, `flushed` were emptied
/// from the queue by a stop, `withdrawn` were replaced by a change, `queued` were still
/// held at the board's last report, and `undelivered` were refused and not sent again
/// before the play stopped (after a play that ran to its end, 0: anything else is an
/// error). `settled` is false when the board could not account for everything (it
/// went away): `ran` and the list are then its last report, or null and what was sent
/// up to the stop where it never reported.
/// `merged` counts drive values a later one replaced within its write slot (never
/// sent), `delayed` writes sent after their own time by less than a slot: the pacing
/// to the board's intake (`BoardIntake`, `DriveCompiler` rule 4). `refusals` gives
/// every NAK the board sent by its PROTOCOL.md name; `resent` the commands the link
/// sent again after a refusal (none is dropped), `lateAfterRefusal` those of them
/// that could no longer be on time (counted in `late` too).
public enum PlayRecord {
    public static func json(
        device: String, commands: [TimedCommand], flushed: Int = 0, settled: Bool = true, statistics s: StreamStatistics, stopReason: String?,
        acceleration: (provenance: AccelerationProvenance, peakG: Double)? = nil
    ) -> String {
        let entries: [JSONValue] = commands.map { c in
            let t = JSONValue.number(Double(c.time))
            switch c.command {
            case .rtp(let a): return .fields(["board_us": t, "kind": .string("rtp"), "amplitude": .number(Double(a))])
            case .register(let r, let v):
                return .fields(["board_us": t, "kind": .string("register"), "register": .number(Double(r)), "value": .number(Double(v))])
            case .stop: return .fields(["board_us": t, "kind": .string("stop")])
            }
        }
        let stats = JSONValue.fields([
            "sent": .number(Double(s.commandsSent)), "ran": s.commandsRun.map { .number(Double($0)) } ?? .null,
            "flushed": .number(Double(flushed)), "withdrawn": .number(Double(s.commandsWithdrawn)), "queued": .number(Double(s.commandsQueued)),
            "undelivered": s.commandsUndelivered.map { .number(Double($0)) } ?? .null, "settled": .bool(settled),
            "late": .number(Double(s.lateCommands)), "underruns": .number(Double(s.boardUnderruns)),
            "rejected": .number(Double(s.rejectedFrames)), "replacements": .number(Double(s.replacements)),
            "merged": .number(Double(s.mergedWrites)), "delayed": .number(Double(s.delayedWrites)),
            "resent": .number(Double(s.resentCommands)), "lateAfterRefusal": .number(Double(s.lateAfterRefusal)),
            "refusals": .object(s.refusals.counts.map { (key: $0.reason.name, value: .number(Double($0.count))) }),
        ])
        return JSONWriter.string(
            .fields([
                "schema": .string("hapbridge-play-record/1"), "device": .string(device), "commands": .array(entries), "statistics": stats,
                "stopReason": stopReason.map { .string($0) } ?? .null,
                "acceleration": acceleration.map { .object($0.provenance.jsonFields + [(key: "peakG", value: .number($0.peakG))]) } ?? .null,
            ]), pretty: false) + "\n"
    }
}

extension JSONValue {
    /// An object from key-value pairs in the order written.
    fileprivate static func fields(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(pairs.map { (key: $0.key, value: $0.value) })
    }
}
