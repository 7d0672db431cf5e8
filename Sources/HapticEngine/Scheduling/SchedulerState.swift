import BridgeLink

/// The look-ahead scheduler's state between service passes, as one value: how far the
/// mix is compiled and what of it is not sent yet, the rewind history, and the service
/// loop's own clocks (QUEUE_STATUS polls, host stalls, a fault stop or a failed send
/// waiting for the next pass). The engine's other state — its lifecycle, players,
/// handlers and link — stays apart, so what a pass reads and writes is this.
struct SchedulerState: Sendable {
    /// Engine µs up to which the mix has been compiled.
    var generatedUntil: Int64 = 0
    /// Compiled commands not yet handed to the link, in stamp order.
    var pending: [StampedCommand] = []
    /// Engine µs of the last step the mix drove the actuator (the silence after it
    /// lets the stream end).
    var lastActive: Int64 = 0
    /// The board can drop what is queued from a time on (REPLACE_FROM, protocol 1.1):
    /// stream `deepLookAheadMicroseconds` ahead and rewind for changes.
    var canReplace = false
    /// Snapshots of the mix and the operations since, for `rewind(before:)`.
    var rewindLog = RewindLog()
    /// Host µs of the next QUEUE_STATUS request due while something plays.
    var nextQueueStatusAt: Int64 = 0
    /// Host µs of the service loop's last QUEUE_STATUS request (`queueStatusDue`).
    var lastQueueStatusRequestAt: Int64 = 0
    /// Service passes run since the engine was made (what the loop's cost follows).
    var servicePasses = 0
    /// Host µs the board reported a fault stop; the engine stops with its bits when
    /// CHIP_STATUS answers, or without them 20 ms on.
    var faultStopPending: Int64?
    /// The first send that failed since the last service pass (many sends there are
    /// fire-and-forget): the pass then stops with its cause.
    var sendFailure: HapticEngineError?
    /// Host time of the last service pass, and when the last pass that came more
    /// than half `overloadLagMicroseconds` after the one before it did (a host stall).
    var lastServiceAt: Int64?
    var lastServiceGapEnd: Int64?
}
