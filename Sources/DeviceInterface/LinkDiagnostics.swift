/// What a link can say about bytes that were not frames: a device that answers, but
/// not in the hapbridge protocol (another firmware on the same VID:PID, a corrupted
/// stream), shows up here rather than as silence.
public protocol LinkDiagnostics: AnyObject {
    /// Bytes received that belonged to no valid frame, since the link opened.
    var discardedBytes: Int { get }
}

