import HapticEngine
import Haptics
import SimulatedBoard
import Testing

/// Every engine lifecycle transition on the simulated board, in virtual time.
@Suite struct LifecycleTests {
    @Test func startOpensASessionSyncsTheClockAndWritesTheChipSetup() async throws {
        let engine = try makeEngine()
        try await engine.start()
        try await engine.advance(bySeconds: 0.01)
        #expect(await engine.isRunning)
        let writes = await onBoard(engine) { $0.board.registerWrites.map { ($0.register, $0.value) } }
        // OD_CLAMP for the C10-100 at 3.0 V max (see DriveTargetTests): 152; CONTROL3 open loop.
        #expect(writes.contains { $0 == (0x17, 152) })
        #expect(writes.contains { $0.0 == 0x20 && $0.1 == 58 })
        // The warm-up RTP 0 took the chip out of standby into RTP mode (MODE = 5).
        let mode = await onBoard(engine) { $0.board.chip.peek(.mode) }
        #expect(mode == 5)
        let clock = try #require(await engine.statistics.clock)
        // The link is symmetric (500 µs each way): the error bound is half the round trip.
        #expect(clock.errorMicroseconds <= 600)
        // currentTime is the board's clock.
        let boardTime = await onBoard(engine) { Double($0.board.boardTime) / 1e6 }
        #expect(abs(await engine.currentTime - boardTime) < 0.001)
    }

    @Test func startCompletionIsCalledWithTheErrorWhenTheDeviceIsGone() async throws {
        let engine = try makeEngine()
        await onBoard(engine) { $0.unplug() }
        let result = await withCheckedContinuation { (c: CheckedContinuation<HapticEngineError?, Never>) in
            engine.start { c.resume(returning: $0) }
        }
        #expect(result == .deviceDisconnected)
        let ok = try makeEngine()
        let fine = await withCheckedContinuation { (c: CheckedContinuation<HapticEngineError?, Never>) in
            ok.start { c.resume(returning: $0) }
        }
        #expect(fine == nil)
    }

    @Test func stopDuringPlayStopsTheActuatorAndSkipsTheStoppedHandler() async throws {
        let engine = try makeEngine()
        let reasons = Recorder<StoppedReason>()
        let completions = Recorder<HapticEngineError?>()
        await engine.setStoppedHandler { reasons.append($0) }
        try await engine.start()
        let player = try await engine.makeAdvancedPlayer(with: .buzz(1.0))
        try await player.setCompletionHandler { completions.append($0) }
        try await player.start()
        try await engine.advance(bySeconds: 0.2)
        #expect(await rtpWrites(engine).last?.amplitude == 85)
        let stopCompletions = Recorder<HapticEngineError?>()
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            engine.stop { stopCompletions.append($0); c.resume() }
        }
        try await engine.advance(bySeconds: 0.01)
        await engine.callbacksDelivered()
        #expect(!(await engine.isRunning))
        #expect(await rtpWrites(engine).last?.amplitude == 0)
        #expect(await onBoard(engine) { $0.board.chip.peek(.mode) } == 0x40)  // standby
        #expect(reasons.values.isEmpty)
        #expect(completions.values == [.engineStopped])
        #expect(stopCompletions.values == [nil])
    }

    @Test func theDeviceDisappearingDuringPlayStopsTheEngineAndTheBoardStopsTheActuator() async throws {
        let engine = try makeEngine()
        let reasons = Recorder<StoppedReason>()
        await engine.setStoppedHandler { reasons.append($0) }
        try await engine.start()
        let player = try await engine.makePlayer(with: .buzz(3.0))
        try await player.start()
        try await engine.advance(bySeconds: 0.1)
        await onBoard(engine) { $0.unplug() }
        try await engine.advance(bySeconds: 0.01)
        await engine.callbacksDelivered()
        #expect(reasons.values == [.deviceDisconnected])
        #expect(!(await engine.isRunning))
        // The board is on its own: its keep-alive (500 ms) stops the actuator.
        try await engine.advance(bySeconds: 0.6)
        #expect(await onBoard(engine) { $0.board.chip.peek(.rtpInput) } == 0)
        #expect(await onBoard(engine) { $0.board.chip.peek(.mode) } == 0x40)
        await #expect(throws: HapticEngineError.engineNotRunning) { try await player.start() }
    }

    @Test func aBoardResetDuringPlayCallsTheResetHandlerAndInvalidatesPlayers() async throws {
        let engine = try makeEngine()
        let resets = Recorder<Int>()
        let reasons = Recorder<StoppedReason>()
        await engine.setResetHandler { resets.append(1) }
        await engine.setStoppedHandler { reasons.append($0) }
        try await engine.start()
        let player = try await engine.makePlayer(with: .buzz(2.0))
        try await player.start()
        try await engine.advance(bySeconds: 0.1)
        await onBoard(engine) { $0.resetBoard() }
        try await engine.advance(bySeconds: 0.01)
        await engine.callbacksDelivered()
        #expect(resets.values.count == 1)
        // The disconnect that a reset looks like on USB comes first.
        #expect(reasons.values == [.deviceDisconnected])
        await #expect(throws: HapticEngineError.invalidPlayer) { try await player.start() }
        // Restart and recreate, as Core Haptics asks: it plays again.
        try await engine.start()
        let again = try await engine.makePlayer(with: .buzz(0.1))
        try await again.start()
        try await engine.advance(bySeconds: 0.05)
        #expect(await rtpWrites(engine).last?.amplitude == 85)
    }

    @Test func aChipFaultStopsTheEngineWithTheFaultBits() async throws {
        let engine = try makeEngine()
        let reasons = Recorder<StoppedReason>()
        await engine.setStoppedHandler { reasons.append($0) }
        try await engine.start()
        let player = try await engine.makePlayer(with: .buzz(1.0))
        try await player.start()
        try await engine.advance(bySeconds: 0.05)
        await onBoard(engine) { $0.board.chip.inject(.overTemperature) }
        try await engine.advance(bySeconds: 0.1)
        await engine.callbacksDelivered()
        #expect(reasons.values == [.chipFault(.overTemperature)])
        #expect(!(await engine.isRunning))
        // Once the chip has cooled, starting again clears the latched fault and plays.
        await onBoard(engine) { $0.board.chip.clear(.overTemperature) }
        try await engine.start()
        let again = try await engine.makePlayer(with: .buzz(0.1))
        try await again.start()
        try await engine.advance(bySeconds: 0.05)
        #expect(await rtpWrites(engine).last?.amplitude == 85)
        #expect(await engine.statistics.rejectedFrames == 0)
    }

    @Test func autoShutdownPutsAnIdleEngineInStandbyAndAPlayerWakesIt() async throws {
        // Core Haptics idles out after about two minutes; 2 s keeps the test short.
        let engine = try makeEngine(options: .init(driving: .manual, idleTimeoutMicroseconds: 2_000_000))
        let reasons = Recorder<StoppedReason>()
        await engine.setStoppedHandler { reasons.append($0) }
        await engine.setAutoShutdownEnabled(true)
        try await engine.start()
        try await engine.advance(bySeconds: 2.1)
        await engine.callbacksDelivered()
        #expect(reasons.values == [.idleTimeout])
        #expect(await engine.isInStandby)
        #expect(await onBoard(engine) { $0.board.chip.peek(.mode) } == 0x40)
        let player = try await engine.makePlayer(with: .buzz(0.1))
        try await player.start()
        #expect(await engine.isRunning)
        try await engine.advance(bySeconds: 0.05)
        #expect(await rtpWrites(engine).last?.amplitude == 85)
    }

    @Test func notifyWhenPlayersFinishedCanStopTheEngine() async throws {
        let engine = try makeEngine()
        let (stream, continuation) = AsyncStream<StoppedReason>.makeStream()
        await engine.setStoppedHandler { continuation.yield($0) }
        try await engine.start()
        let player = try await engine.makePlayer(with: .buzz(0.1))
        try await player.start()
        let finished = Recorder<HapticEngineError?>()
        await engine.notifyWhenPlayersFinished { finished.append($0); return .stopEngine }
        try await engine.advance(bySeconds: 0.3)
        // The handler's answer hops from the callback queue back onto the engine,
        // which then stops and reports why.
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == .notifyWhenFinished)
        #expect(finished.values.count == 1 && finished.values[0] == nil)
        #expect(!(await engine.isRunning))
    }

    @Test func destroyingARunningEngineStopsTheBoardAndSaysSo() async throws {
        let (stream, continuation) = AsyncStream<StoppedReason>.makeStream()
        var engine: HapticEngine? = try makeEngine()
        await engine!.setStoppedHandler { continuation.yield($0) }
        try await engine!.start()
        engine = nil
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == .engineDestroyed)
    }

    @Test func aMutedEngineSendsNoDrive() async throws {
        let engine = try makeEngine()
        try await engine.start()
        await engine.setMutedForHaptics(true)
        let player = try await engine.makePlayer(with: .buzz(0.1))
        try await player.start()
        try await engine.advance(bySeconds: 0.2)
        #expect(await rtpWrites(engine).allSatisfy { $0.amplitude == 0 })
    }

    @Test func capabilitiesNameTheChipAndTheParameterRanges() async throws {
        let engine = try makeEngine()
        try await engine.start()
        let caps = await engine.capabilities
        #expect(caps.supportsHaptics && !caps.supportsAudio)
        #expect(caps.chip == .drv2605L)
        #expect(caps.sharpnessControlRange == -1...1)
        #expect(caps.sharpnessShaping == .openLoopFrequency)
    }
}

/// The engine's own service task (automatic driving): on a virtual-time device it
/// runs the simulation as fast as it can, with no test advancing it.
@Suite struct AutomaticDrivingTests {
    @Test func automaticDrivingPlaysAPatternToCompletionOnItsOwn() async throws {
        let engine = try makeEngine(options: .init(driving: .automatic))
        try await engine.start()
        let player = try await engine.makeAdvancedPlayer(with: .buzz(0.1))
        let (stream, continuation) = AsyncStream<HapticEngineError?>.makeStream()
        try await player.setCompletionHandler { continuation.yield($0) }
        try await player.start()
        var iterator = stream.makeAsyncIterator()
        let result = await iterator.next()
        #expect(result == .some(nil))
        #expect(await rtpWrites(engine).contains { $0.amplitude == 85 })
        await engine.stop()
        #expect(!(await engine.isRunning))
    }
}

extension LifecycleTests {
    @Test func repluggingAfterADisconnectCallsTheResetHandlerAndTheEngineStartsAgain() async throws {
        let engine = try makeEngine()
        let resets = Recorder<Int>()
        await engine.setResetHandler { resets.append(1) }
        try await engine.start()
        await onBoard(engine) { $0.unplug() }
        try await engine.advance(bySeconds: 0.01)
        await #expect(throws: HapticEngineError.deviceDisconnected) { try await engine.start() }
        await onBoard(engine) { $0.replug() }
        try await engine.advance(bySeconds: 0.01)
        await engine.callbacksDelivered()
        #expect(resets.values.count == 1)
        try await engine.start()
        let player = try await engine.makePlayer(with: .buzz(0.1))
        try await player.start()
        try await engine.advance(bySeconds: 0.05)
        #expect(await rtpWrites(engine).last?.amplitude == 85)
    }
}

extension LifecycleTests {
    @Test func theBoardsDriveLimitStopsTheEngineWithItsReason() async throws {
        let engine = try makeEngine(options: .init(driving: .manual, maxDriveMilliseconds: 100))
        let reasons = Recorder<StoppedReason>()
        await engine.setStoppedHandler { reasons.append($0) }
        try await engine.start()
        let player = try await engine.makePlayer(with: .buzz(0.5))
        try await player.start()
        try await engine.advance(bySeconds: 0.3)
        await engine.callbacksDelivered()
        #expect(reasons.values == [.driveTimeLimit])
        #expect(await onBoard(engine) { $0.board.chip.peek(.rtpInput) } == 0)
    }

    @Test func aHostThatFellSilentIsToldWhyTheBoardStopped() async throws {
        let engine = try makeEngine()
        let reasons = Recorder<StoppedReason>()
        await engine.setStoppedHandler { reasons.append($0) }
        try await engine.start()
        // The board runs 600 ms without the engine servicing it (a stalled host).
        await onBoard(engine) { d in try? d.advance(toLink: d.linkTime + 600_000) }
        try await engine.advance(bySeconds: 0.01)
        await engine.callbacksDelivered()
        #expect(reasons.values.count == 1)
        if case .systemError = reasons.values.first {} else { Issue.record("expected a system error, got \(reasons.values)") }
    }
}

extension LifecycleTests {
    @Test func callbacksRunInOrderOnTheEnginesSerialQueueNeverTheCallers() async throws {
        let engine = try makeEngine()
        let seen = Recorder<(String, Bool)>()
        try await engine.start()
        let a = try await engine.makeAdvancedPlayer(with: .buzz(0.05))
        let b = try await engine.makeAdvancedPlayer(with: .buzz(0.10))
        try await a.setCompletionHandler { _ in seen.append(("a", engine.isOnCallbackQueue)) }
        try await b.setCompletionHandler { _ in seen.append(("b", engine.isOnCallbackQueue)) }
        await engine.setStoppedHandler { _ in seen.append(("stopped", engine.isOnCallbackQueue)) }
        try await a.start()
        try await b.start()
        try await engine.advance(bySeconds: 0.2)
        await onBoard(engine) { $0.unplug() }
        try await engine.advance(bySeconds: 0.01)
        await engine.callbacksDelivered()
        #expect(seen.values.map { $0.0 } == ["a", "b", "stopped"])
        #expect(seen.values.allSatisfy { $0.1 })
        #expect(!engine.isOnCallbackQueue)
    }
}
