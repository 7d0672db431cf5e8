// usb-engine-probe: the product's own stack (Devices → USBBridgeTransport → HapticEngine)
// as a long-lived client of an emulated bridge board, for the tests of what a user sees
// when the board goes away and comes back. Prints one line per event, flushed at once:
//
//   started | playing | stopped reason=REASON | reset | started-again | finished | error MESSAGE
//
// usage: usb-engine-probe replug SECONDS   play a SECONDS buzz; when the board goes away
//                                          wait for it, start again and play it to its end
//        usb-engine-probe reads EVENTS     stream EVENTS drive changes 2 ms apart while
//                                          reading a register 400 times a second through
//                                          the engine's bus; prints
//   reads=N answered=N wrong=N sent=N late=N underruns=N rejected=N queueFull=N resent=N lateAfterRefusal=N running=B roundTripUs=MIN/MAX
//   and, if the engine stopped before the end, `stopped reason=REASON`
import Actuators
import DeviceInterface
import Devices
import Foundation
import HapticEngine
import Haptics

@MainActor func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Callback values read by the main task; every access holds the lock.
final class Events: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped: StoppedReason?
    private var reset = false
    private var finished = false
    func setStopped(_ r: StoppedReason) { lock.withLock { stopped = r } }
    func setReset() { lock.withLock { reset = true } }
    func setFinished() { lock.withLock { finished = true } }
    var state: (stopped: StoppedReason?, reset: Bool, finished: Bool) { lock.withLock { (stopped, reset, finished) } }
}

/// The engine's stop reason, set from its handler's thread.
final class StopReasonBox: @unchecked Sendable {
    private let lock = NSLock()
    private var reason: String?
    func set(_ r: String) { lock.withLock { reason = reason ?? r } }
    var value: String? { lock.withLock { reason } }
}

/// Register reads at 400 a second while the engine streams `events` drive changes.
@MainActor func readsWhileStreaming(events: Int) async -> Int32 {
    do {
        let profile = try ActuatorProfileLoader.resolve(SimulatedBoardSetup.defaultActuatorProfile)
        let opened = try DeviceCatalog().open(.usb(.any), simulated: .init(actuator: profile))
        let engine = HapticEngine(link: opened.takeLink(), actuator: profile)
        // Why the engine stopped, if it did: said on the line, so a stream that ended early explains itself.
        let stopped = StopReasonBox()
        await engine.setStoppedHandler { reason in stopped.set("\(reason)") }
        try await engine.start()
        let bus = engine.i2cBus
        // RATED_VOLTAGE: written by the engine's setup, never read by the firmware.
        let before = try await bus.readByte(address: 0x5A, register: 0x16)
        let pattern = HapticPattern(events: (0..<events).map { i in
            .continuous(at: Double(i) * 0.002, duration: 0.002, intensity: i % 2 == 0 ? 1.0 : 0.6, sharpness: 0.5)
        })
        let player = try await engine.makePlayer(with: pattern)
        let begin = await engine.currentTime + 0.02
        try await player.start(atTime: begin)
        let end = ContinuousClock.now + .milliseconds(Int(Double(events) * 2 + 100))
        var next = ContinuousClock.now
        var reads = 0, wrong = 0
        while ContinuousClock.now < end {
            if try await bus.readByte(address: 0x5A, register: 0x16) != before { wrong += 1 }
            reads += 1
            next += .microseconds(2_500)
            if next > ContinuousClock.now { try await Task.sleep(until: next, clock: .continuous) }
        }
        let s = await engine.statistics
        let running = await engine.isRunning
        let rtt = "\(s.minimumRoundTripMicroseconds)/\(s.recentMaximumRoundTripMicroseconds)"
        await engine.close()
        say(
            "reads=\(reads) answered=\(s.untimedAnswered - 1) wrong=\(wrong) sent=\(s.commandsSent) late=\(s.lateCommands) "
                + "underruns=\(s.boardUnderruns) rejected=\(s.rejectedFrames) queueFull=\(s.refusals[.queueFull]) resent=\(s.resentCommands) "
                + "lateAfterRefusal=\(s.lateAfterRefusal) running=\(running) roundTripUs=\(rtt)")
        if let reason = stopped.value { say("stopped reason=\(reason)") }
        return 0
    } catch {
        say("error \(error)")
        return 1
    }
}

@MainActor func run() async -> Int32 {
    let args = CommandLine.arguments
    if args.count == 3, args[1] == "reads", let events = Int(args[2]), events > 0 { return await readsWhileStreaming(events: events) }
    guard args.count == 3, args[1] == "replug", let seconds = Double(args[2]), seconds > 0 else {
        say("error usage: usb-engine-probe replug SECONDS")
        return 2
    }
    do {
        let profile = try ActuatorProfileLoader.resolve(SimulatedBoardSetup.defaultActuatorProfile)
        let opened = try DeviceCatalog().open(.usb(.any), simulated: .init(actuator: profile))
        let engine = HapticEngine(link: opened.takeLink(), actuator: profile)
        let events = Events()
        await engine.setStoppedHandler { events.setStopped($0) }
        await engine.setResetHandler { events.setReset() }
        try await engine.start()
        say("started")
        let pattern = HapticPattern(events: [.continuous(at: 0, duration: seconds, intensity: 0.8, sharpness: 0.5)])
        let player = try await engine.makePlayer(with: pattern)
        try await player.start(atTime: 0)
        say("playing")
        // Until the board goes away (a guard of 60 s against a hang).
        let deadline = ContinuousClock.now + .seconds(60)
        while events.state.stopped == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        guard let reason = events.state.stopped else {
            say("error the board never went away")
            return 1
        }
        say("stopped reason=\(reason)")
        while !events.state.reset, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        guard events.state.reset else {
            say("error no reset after the board came back")
            return 1
        }
        say("reset")
        // Core Haptics: recreate the players in the reset handler's wake, start again.
        try await engine.start()
        say("started-again")
        let again = try await engine.makeAdvancedPlayer(with: HapticPattern(events: [.continuous(at: 0, duration: 0.2, intensity: 0.8, sharpness: 0.5)]))
        try await again.setCompletionHandler { _ in events.setFinished() }
        try await again.start(atTime: 0)
        while !events.state.finished, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        say(events.state.finished ? "finished" : "error the second play never finished")
        await engine.close()
        return events.state.finished ? 0 : 1
    } catch {
        say("error \(error)")
        return 1
    }
}

exit(await run())
