import Testing
@testable import BridgeLink

/// The clock model, worked by hand.
@Suite struct ClockSyncTests {
    @Test func oneExchangeGivesTheMidpointOffsetAndHalfTheRoundTripAsError() throws {
        var sync = ClockSync()
        // Sent at host 1000, back at 1400, decoded on the board at 5300:
        // offset = 5300 − (1000 + 1400) / 2 = 4100, error ±200.
        sync.add(.init(hostSent: 1000, hostReceived: 1400, boardReceived: 5300))
        let e = try #require(sync.estimate)
        #expect(e.offset == 4100 && e.errorMicroseconds == 200 && e.drift == 0)
        #expect(sync.board(atHost: 2000) == 6100)
        #expect(sync.host(atBoard: 6100) == 2000)
    }

    @Test func eachRoundKeepsItsFastestExchange() throws {
        var sync = ClockSync()
        sync.add(.init(hostSent: 0, hostReceived: 1000, boardReceived: 10_500))  // first: used at once
        sync.add(.init(hostSent: 2000, hostReceived: 2200, boardReceived: 12_100))
        sync.add(.init(hostSent: 3000, hostReceived: 5000, boardReceived: 14_900))
        sync.closeRound()
        let e = try #require(sync.estimate)
        // Winners: (mid 500, offset 10000) and (mid 2100, offset 10000): offset 10000, error 100.
        #expect(e.offset == 10_000 && e.errorMicroseconds == 100)
    }

    @Test func driftIsTheSlopeOfTheOffsetOverAtLeastATenthOfASecond() throws {
        var sync = ClockSync()
        // The board gains 100 µs per second (100 ppm): offsets 0, 50, 100 at 0, 0.5 s, 1 s.
        for (k, host) in [Int64(0), 500_000, 1_000_000].enumerated() {
            sync.add(.init(hostSent: host - 10, hostReceived: host + 10, boardReceived: host + Int64(k) * 50))
            sync.closeRound()
        }
        let e = try #require(sync.estimate)
        #expect(abs(e.drift - 100e-6) < 1e-12)
        #expect(sync.board(atHost: 2_000_000) == 2_000_200)
    }

    @Test func boardTimeUnwrapsAcrossThe32BitWrap() {
        var clock = BoardClock(anchor: 0xFFFF_FF00)
        #expect(clock.unwrap(0xFFFF_FFF0) == 0xFFFF_FFF0)
        #expect(clock.unwrap(0x0000_0010) == 0x1_0000_0010)
        #expect(BoardClock.stamp(0x1_0000_0010) == 0x10)
    }
}
