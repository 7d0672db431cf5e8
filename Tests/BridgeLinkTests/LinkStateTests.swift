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
        for (seq, t) in [(UInt8(1), Int64(100)), (2, 200), (3, 300), (4, 400)] { ledger.record(sequence: seq, command(t)) }
        #expect(ledger.inFlight(after: 150) == 3)
        #expect(ledger.refused(sequence: 3) == command(300))
        // A later refusal of an earlier command moves the point back.
        #expect(ledger.refused(sequence: 2) == command(200))
        #expect(ledger.takeBackRefused() == 200)
        #expect(ledger.entries.map(\.command.time) == [100])
        #expect(ledger.retry.map(\.time) == [200, 300, 400])
        #expect(ledger.takeRetry(2).map(\.time) == [200, 300])
        #expect(ledger.retry.map(\.time) == [400])
        // The client's own REPLACE_FROM drops what would have gone again there too.
        ledger.takeBack(from: 400)
        #expect(ledger.retry.isEmpty)
        #expect(ledger.refused(sequence: 9) == nil)
    }

    @Test("stamps(in:) sees commands sent and commands waiting to go again")
    func stampsInWindow() {
        var ledger = StampedLedger()
        ledger.record(sequence: 1, command(1_000))
        ledger.record(sequence: 2, command(3_000))
        #expect(ledger.stamps(in: 900...1_100))
        #expect(!ledger.stamps(in: 1_100...2_900))
        _ = ledger.refused(sequence: 2)
        _ = ledger.takeBackRefused()
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
}
