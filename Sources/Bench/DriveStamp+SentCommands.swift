import HapticCompilation
import Measurements

extension DriveStamp {
    /// The RTP commands of a sent-command log (`HapticEngine.Options.keepsSentCommandLog`),
    /// in stamp order (other commands do not change the drive's level; stamps before 0
    /// are dropped). Here, not in Measurements, which knows samples and numbers but not
    /// the compiler's commands.
    public static func from(_ commands: [TimedCommand]) -> [DriveStamp] {
        commands.compactMap { c in
            guard case .rtp(let a) = c.command, c.time >= 0 else { return nil }
            return DriveStamp(boardMicroseconds: UInt64(c.time), amplitude: a)
        }
    }
}
