/// A bridge board whose firmware can be frozen for a while, as a board whose CPU is
/// held (a long critical section, a debugger's halt, the simulator descheduled): no
/// timer, no USB intake; time goes on. When it thaws, the commands that fell due
/// meanwhile run late (underruns), and what the host sent meanwhile arrives at once,
/// refused where the queue has no room (QUEUE_FULL). `hapbridge emulate control stall`
/// is how a test makes a host meet that without hardware.
protocol FreezableBoard: AnyObject, Sendable {
    /// Holds the firmware for `microseconds` from now, then lets it run on.
    func freeze(forMicroseconds microseconds: UInt64)
}
