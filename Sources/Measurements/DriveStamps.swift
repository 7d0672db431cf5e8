/// One RTP amplitude the board applied at a board time: the stamped drive, as the
/// engine's sent-command log (`HapticEngine.Options.keepsSentCommandLog`) or a play's
/// trace (`PlayTrace.drive`) holds it: a trace's tuples are read here, a sent-command
/// log in Bench (`DriveStamp.from(_:)` over `TimedCommand`s, which this module does
/// not know).
public struct DriveStamp: Sendable, Equatable {
    public var boardMicroseconds: UInt64
    /// Signed RTP_INPUT, -127...127 of full scale.
    public var amplitude: Int8

    public init(boardMicroseconds: UInt64, amplitude: Int8) {
        self.boardMicroseconds = boardMicroseconds
        self.amplitude = amplitude
    }

    /// `PlayTrace.drive`'s tuples.
    public static func from(_ drive: [(time: UInt64, amplitude: Int8)]) -> [DriveStamp] {
        drive.map { DriveStamp(boardMicroseconds: $0.time, amplitude: $0.amplitude) }
    }
}

/// A drive step: the stamp that takes the drive up from 0 and the stamp that brings
/// it back to 0 (nil: the drive was still on when the log ends).
public struct DriveStep: Sendable, Equatable {
    public var startMicroseconds: UInt64
    public var endMicroseconds: UInt64?

    public init(startMicroseconds: UInt64, endMicroseconds: UInt64?) {
        self.startMicroseconds = startMicroseconds
        self.endMicroseconds = endMicroseconds
    }

    /// Every step of a stamped drive, in order. A step starts where the amplitude goes
    /// from ≤ 0 (or nothing yet) to > 0, and ends at the first later stamp ≤ 0: the
    /// command that stops driving forward (0, or an open-loop reverse brake, which is
    /// part of stopping).
    public static func steps(in drive: [DriveStamp]) -> [DriveStep] {
        var out: [DriveStep] = []
        var on = false
        for s in drive {
            if !on && s.amplitude > 0 {
                out.append(DriveStep(startMicroseconds: s.boardMicroseconds, endMicroseconds: nil))
                on = true
            } else if on && s.amplitude <= 0 {
                out[out.count - 1].endMicroseconds = s.boardMicroseconds
                on = false
            }
        }
        return out
    }
}
