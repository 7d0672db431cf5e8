@testable import BridgeLink
@testable import BridgeProtocol
import Testing

/// The link's state as values, worked by hand.
@Suite("Link state")
struct LinkStateTests {
    func command(_ t: Int64) -> StampedCommand { StampedCommand(time: t, kind: .rtp(UInt8(t % 200))) }

    @Test("a refusal takes back the refused command and everything after it, to go again in order before anything newer")
    func refusalTakesBackTheRun() {
        var ledger = StampedLedger()
        for (frame, t) in [(1, Int64(100)), (2, 200), (3, 300), (4, 400)] { ledger.record(frame: frame, command(t)) }
        #expect(ledger.inFlight(after: 150) == 3)
        #expect(ledger.refused(frame: 3) == command(300))
        // A later refusal of an earlier command moves the point back.
        #expect(ledger.refused(frame: 2) == command(200))
        #expect(ledger.takeBackRefused() == 200)
        #expect(ledger.entries.map(\.command.time) == [100])
        // Which go again is settled by REPLACED: here the board dropped none it held.
        ledger.settleTakeBack(discarded: 0)
        #expect(ledger.retry.map(\.time) == [200, 300, 400])
        #expect(ledger.takeRetry(2).map(\.time) == [200, 300])
        #expect(ledger.retry.map(\.time) == [400])
        // The client's own REPLACE_FROM drops what would have gone again there too.
        ledger.takeBack(from: 400)
        #expect(ledger.retry.isEmpty)
        #expect(ledger.refused(frame: 9) == nil)
    }

    @Test("stamps(in:) sees commands sent and commands waiting to go again")
    func stampsInWindow() {
        var ledger = StampedLedger()
        ledger.record(frame: 1, command(1_000))
        ledger.record(frame: 2, command(3_000))
        #expect(ledger.stamps(in: 900...1_100))
        #expect(!ledger.stamps(in: 1_100...2_900))
        _ = ledger.refused(frame: 2)
        _ = ledger.takeBackRefused()
        ledger.settleTakeBack(discarded: 0)
        #expect(ledger.stamps(in: 2_900...3_100))
    }

    @Test("an untimed read's bus time counts its bytes on the wire at the firmware's figures; one request is in flight at a time")
    func untimedWindowAndOrder() throws {
        let read = UntimedRequest.read(address: 0x5A, register: 0x00, count: 1)
        // address+W, register, (repeated START) address+R, one data byte: 4 bytes.
        #expect(read.bytesOnWire == 4)
        #expect(UntimedRequest.write(address: 0x5A, register: 1, bytes: [1, 2]).bytesOnWire == 4)
        // At least the measured 112 µs of a 1-byte read (Firmware/README.md).
        #expect(read.busMicroseconds == 4 * 26 + 10)
        var q = UntimedQueue()
        let a = q.enqueue(read, at: 0)
        let b = q.enqueue(.write(address: 0x5A, register: 0x16, bytes: [1]), at: 0)
        #expect(q.next?.ticket == a)
        q.sent(sequence: 7, at: 10)
        #expect(q.next == nil, "one in flight at a time")
        let stray = q.answered(sequence: 8, .success([1]))
        #expect(!stray)
        let ours = q.answered(sequence: 7, .success([0xE0]))
        #expect(ours)
        #expect(q.next?.ticket == b)
        let result = q.take(a)
        #expect(result == .success([0xE0]))
        let again = q.take(a)
        #expect(again == nil)
        q.failAll(.notOpen)
        let failed = q.take(b)
        #expect(failed == .failure(.notOpen))
    }

    @Test("underruns accumulate across the 16-bit counter's wrap, and a lag is reported only for a command run since the last report")
    func boardStatusCounts() {
        var status = BoardStatus()
        func report(_ underruns: UInt16, executed: UInt32, lag: Int32) -> BoardFrame.QueueStatus {
            BoardFrame.QueueStatus(
                freeSlots: 90, capacity: 96, underruns: underruns, lastExecutedStamp: 1_000, lastExecutedStart: UInt32(bitPattern: 1_000 + lag),
                lastAcceptedSequence: 0, framesRejected: 0, commandsExecuted: executed)
        }
        let first = status.take(report(65_534, executed: 10, lag: 70_000))
        #expect(first == nil, "the first report may describe an earlier session")
        let second = status.take(report(1, executed: 11, lag: 40))
        #expect(second == 40)
        #expect(status.underruns == 3)
        let unchanged = status.take(report(1, executed: 11, lag: 90))
        #expect(unchanged == nil)
        status.refused(.queueFull)
        status.refused(.queueFull)
        status.refused(.sequenceGap)
        #expect(status.refusals.description == "2 QUEUE_FULL, 1 SEQ_GAP")
        #expect(status.refusals.total == 3)
    }

    func frame(_ type: FrameType, _ sequence: UInt8, payload: [UInt8] = []) -> [UInt8] {
        (try? HostFrameEncoder.encode(sequence: sequence, type: type, payload: payload)) ?? []
    }

    @Test("an answer names the oldest frame still unanswered with its sequence number, and says every frame before it was taken in")
    func answersMatchTheOldestFrame() {
        var book = SentFrames()
        // 300 frames: sequence numbers 0...255, then 0...43 again.
        for i in 0..<300 { book.sent(frame(.keepAlive, UInt8(i % 256))) }
        book.sent(frame(.queueStatusRequest, 44))
        // A QUEUE_STATUS naming 44 answers the request, not the keep-alive numbered 44
        // 256 frames earlier: everything before it was taken in.
        let answered = book.answered(sequence: 44, type: .queueStatusRequest)
        #expect(answered.count == 301)
        #expect(book.isEmpty)
        #expect(book.isAccounted(300))

        book.sent(frame(.commandRTP, 45, payload: [0, 0, 0, 0, 1]), stamped: [command(1)])
        book.sent(frame(.commandRTP, 46, payload: [0, 0, 0, 0, 2]), stamped: [command(2)])
        book.sent(frame(.commandRTP, 47, payload: [0, 0, 0, 0, 3]), stamped: [command(3)])
        // SEQ_GAP on 47, the board expecting 46: 45 taken in, 46 lost, 47 refused.
        let verdicts = book.refused(BoardFrame.Nak(sequence: 47, reason: .sequenceGap, expectedSequence: 46, type: .commandRTP))
        #expect(verdicts.map(\.verdict) == [.accepted, .lost, .refused(.sequenceGap)])
        #expect(verdicts.map(\.frame.command) == [command(1), command(2), command(3)])
        // A NAK from the board's decoder (a CRC error) names no frame.
        book.sent(frame(.keepAlive, 48))
        #expect(book.refused(BoardFrame.Nak(sequence: 0, reason: .crc, expectedSequence: 48, type: FrameType(rawValue: 0))).isEmpty)
        #expect(book.count == 1)
    }

    @Test("a NAK names the frame by its number and its type (the type byte as received, PROTOCOL.md): a command refused is not taken for an unanswered keep-alive numbered alike")
    func aRefusalNamesItsFrameByType() {
        var book = SentFrames()
        book.sent(frame(.keepAlive, 7))
        for i in 1..<SentFrames.sequenceSpan { book.sent(frame(.keepAlive, UInt8(truncatingIfNeeded: 7 + i))) }
        book.sent(frame(.commandRTP, 7, payload: [0, 0, 0, 0, 1]), stamped: [command(1)])
        let verdicts = book.refused(BoardFrame.Nak(sequence: 7, reason: .queueFull, expectedSequence: 8, type: .commandRTP))
        #expect(verdicts.count == SentFrames.sequenceSpan + 1)
        #expect(verdicts.last?.frame.command == command(1) && verdicts.last?.verdict == .refused(.queueFull))
        #expect(book.isEmpty)
        // Commands go only while the numbers of what is unaccounted for stay distinct.
        #expect(book.commandRoom == SentFrames.commandSpan)
        for i in 0..<SentFrames.commandSpan { book.sent(frame(.keepAlive, UInt8(truncatingIfNeeded: i))) }
        #expect(book.commandRoom == 0)
    }

    @Test("the board's queue runs first in, first out: its count of what ran, its count of what it holds and REPLACED's of what it dropped settle each command's fate")
    func deliveryFollowsTheBoardsCounts() {
        var d = Delivery(keepsItems: true)
        d.report(executed: 1_000, holding: 0)  // the session's first report: the baseline
        for t in 1...6 { d.accept(command(Int64(t))) }
        d.report(executed: 1_002, holding: 4)  // two ran
        #expect(d.ran == 2 && d.queued == 4)
        d.replace(newest: 1)  // REPLACE_FROM dropped the newest it held
        #expect(d.replaced == 1 && d.queued == 3)
        d.accept(command(7))
        // A stop emptied the queue after one more ran: the rest were flushed, oldest first.
        d.report(executed: 1_003, holding: 0)
        #expect(d.ran == 3 && d.flushed == 3 && d.queued == 0)
        #expect(d.items.map(\.fate) == [.ran, .ran, .ran, .flushed, .flushed, .replaced, .flushed])
        #expect(d.ranCommands == [command(1), command(2), command(3)])
    }

    @Test("a refused run taken back: what the board refused goes again, and of what it had accepted only the newest it dropped (REPLACED's count); one it accepted and ran is not sent twice")
    func aTakeBackSendsAgainOnlyWhatDidNotRun() {
        var ledger = StampedLedger()
        for f in 1...5 { ledger.record(frame: f, command(Int64(f * 100))) }
        ledger.accepted(frame: 1)
        ledger.accepted(frame: 2)
        ledger.accepted(frame: 3)  // a late board ran this one before the take-back arrived
        ledger.accepted(frame: 4)
        _ = ledger.refused(frame: 5)
        // The point to take back from is the refused command's stamp... and a NAK for an
        // earlier one moves it back.
        _ = ledger.refused(frame: 3)
        #expect(ledger.takeBackRefused() == 300)
        #expect(ledger.takeBackRefused() == nil, "one take-back at a time")
        #expect(ledger.hasRetries)
        ledger.settleTakeBack(discarded: 0)
        // 3 and 5 were refused: both go again; 4 was accepted and not dropped: it ran.
        #expect(ledger.retry.map(\.time) == [300, 500])

        var second = StampedLedger()
        for f in 1...4 { second.record(frame: f, command(Int64(f * 100))) }
        second.accepted(frame: 1)
        _ = second.refused(frame: 2)
        second.accepted(frame: 3)
        second.accepted(frame: 4)
        #expect(second.takeBackRefused() == 200)
        // The board dropped the newest one it held (400): 300, accepted, had run.
        second.settleTakeBack(discarded: 1)
        #expect(second.retry.map(\.time) == [200, 400])
    }
}
