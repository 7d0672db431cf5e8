import BridgeProtocol
import CHapbridgeProtocol

/// Every frame the link has sent that the board has not yet accounted for, in the
/// order sent, so that each answer is matched to the one frame it is about.
///
/// The board takes frames in the order they arrive and answers in that order
/// (PROTOCOL.md: one decoder, one dispatch; a NAK, an ACK, REPLACED and QUEUE_STATUS
/// are built as their frame is taken in). So an answer about frame N also says that
/// every frame before N was taken in without a word: accepted. A sequence number
/// names a frame only modulo 256, so an answer is matched exactly only while no two
/// frames unaccounted for share a number and a type. A command frame is taken in
/// silently, so it stays unaccounted for until a later answer: the link sends
/// stamped commands only while fewer than `commandSpan` frames are unaccounted for
/// (`commandRoom`), and asks for a QUEUE_STATUS among them often enough that the
/// answers keep coming. Without that bound, a board catching up after a stall takes
/// hundreds of commands in silently, and its refusal of the next would be matched to
/// the one taken in 256 frames earlier, which would go again and run twice.
///
/// I2C_RESULT of a read is the one answer that may come late (the board keeps a read
/// waiting for a gap in the stream) and is left to `UntimedQueue`; SYNC_REPLY and
/// CHIP_STATUS carry no sequence. Neither is needed: the engine asks for QUEUE_STATUS
/// every few tens of milliseconds, and its reply accounts for all that came before.
public struct SentFrames: Sendable {
    public struct Frame: Sendable, Equatable {
        /// The frame's place in the session: 0 for HELLO, +1 for each frame after it.
        public var index: Int
        public var sequence: UInt8
        public var type: FrameType
        /// The stamped command it carried, for a command frame.
        public var command: StampedCommand?
    }

    /// What the board did with a frame.
    public enum Verdict: Sendable, Equatable {
        /// Taken in (queued, run, answered).
        case accepted
        /// Refused with a NAK (its reason).
        case refused(NakReason)
        /// Never arrived: the board's next frame found a gap in the sequence (SEQ_GAP).
        case lost
    }

    /// Sent and not yet accounted for, oldest first.
    public private(set) var unresolved: [Frame] = []
    /// Where `unresolved` really starts: accounted frames are dropped from the front
    /// lazily, so taking one off costs nothing.
    private var head = 0
    /// The index the next frame sent gets.
    public private(set) var nextIndex = 0

    public init() {}

    public var isEmpty: Bool { head == unresolved.count }
    public var count: Int { unresolved.count - head }

    /// A sequence number names a frame modulo this.
    public static let sequenceSpan = 1 << (8 * MemoryLayout<UInt8>.size)
    /// Stamped commands go only while fewer frames than this are unaccounted for. The
    /// rest of the span is kept for frames that go whatever the backlog (a STOP_ALL,
    /// a status request, SYNC, keep-alive), each answered by type, not silently.
    public static let commandSpan = sequenceSpan * 3 / 4
    /// How many command frames may go now without two unaccounted-for frames sharing
    /// a sequence number.
    public var commandRoom: Int { max(0, Self.commandSpan - count) }

    /// The board has accounted for the frame with this index (or it was never sent in
    /// this session's book).
    public func isAccounted(_ index: Int) -> Bool {
        guard index < nextIndex else { return false }
        return isEmpty || unresolved[head].index > index
    }

    /// A command frame is still unaccounted for: its refusal may be on the way.
    public var holdsCommands: Bool { unresolved[head...].contains { $0.command != nil } }

    /// A new session (HELLO): nothing before it will be answered in this one.
    public mutating func reset() {
        unresolved.removeAll(keepingCapacity: true)
        head = 0
    }

    /// Notes the frames of one transfer, as the link hands it to the transport, and
    /// returns the index of the first. Frames are read from their own headers (the
    /// link encoded them), so nothing sent goes unnoted; `stamped` are the commands
    /// the transfer's command frames carry, in order.
    @discardableResult
    public mutating func sent(_ transfer: [UInt8], stamped: [StampedCommand] = []) -> Int {
        let first = nextIndex
        var i = 0, next = 0
        let header = Int(HB_FRAME_HEADER_LEN), overhead = Int(HB_FRAME_OVERHEAD)
        while i + header <= transfer.count, transfer[i] == UInt8(HB_FRAME_MAGIC) {
            let type = FrameType(rawValue: transfer[i + Int(HB_FRAME_OFFSET_TYPE)])
            var command: StampedCommand?
            if Self.commandTypes.contains(type), next < stamped.count {
                command = stamped[next]
                next += 1
            }
            unresolved.append(Frame(index: nextIndex, sequence: transfer[i + Int(HB_FRAME_OFFSET_SEQ)], type: type, command: command))
            nextIndex += 1
            i += Int(transfer[i + Int(HB_FRAME_OFFSET_LEN)]) + overhead
        }
        return first
    }

    static let commandTypes: Set<FrameType> = [.commandRTP, .commandRegisterWrite, .commandROMSequence, .commandStop]

    /// An answer that names its frame (ACK, REPLACED, QUEUE_STATUS's last accepted
    /// sequence, which is its request's own): that frame and every one before it were
    /// taken in. Returns them, oldest first; none when no frame waiting matches.
    public mutating func answered(sequence: UInt8, type: FrameType) -> [Frame] {
        guard let at = firstWaiting(sequence: sequence, where: { $0.type == type }) else { return [] }
        return take(through: at)
    }

    /// A NAK: the frame it names refused, those before it accepted, and after a
    /// SEQ_GAP those between the one the board expected and the one it refused lost.
    /// A NAK from the board's decoder (CRC or LENGTH: no frame to name) accounts for
    /// nothing here; the next frame's SEQ_GAP names what it cost.
    public mutating func refused(_ nak: BoardFrame.Nak) -> [(frame: Frame, verdict: Verdict)] {
        if nak.reason == .crc || (nak.reason == .length && nak.sequence == 0 && nak.type.rawValue == 0) { return [] }
        // The NAK carries the type byte as received: matched by type too, a keep-alive
        // or a SYNC numbered alike is never taken for the command refused.
        guard let at = firstWaiting(sequence: nak.sequence, where: { $0.type == nak.type }) else { return [] }
        var firstLost = at
        if nak.reason == .sequenceGap, nak.expectedSequence != nak.sequence,
            let lost = firstWaiting(sequence: nak.expectedSequence, where: { _ in true }), lost < at
        {
            firstLost = lost
        }
        let lostFrom = firstLost - head
        let frames = take(through: at)
        return frames.enumerated().map { i, f in
            if i == frames.count - 1 { return (f, .refused(nak.reason)) }
            return (f, i >= lostFrom ? .lost : .accepted)
        }
    }

    private func firstWaiting(sequence: UInt8, where matches: (Frame) -> Bool) -> Int? {
        var i = head
        while i < unresolved.count {
            if unresolved[i].sequence == sequence, matches(unresolved[i]) { return i }
            i += 1
        }
        return nil
    }

    private mutating func take(through at: Int) -> [Frame] {
        let frames = Array(unresolved[head...at])
        head = at + 1
        if head > 1024, head * 2 > unresolved.count {
            unresolved.removeFirst(head)
            head = 0
        }
        return frames
    }
}
