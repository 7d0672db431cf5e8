/// Untimed I2C transactions waiting to be sent, sent, and answered.
///
/// One is in flight at a time: the board keeps one read waiting for its gap in the
/// stamped stream (it runs a read only where no stamped command falls due before the
/// read ends; PROTOCOL.md, "Untimed I2C") and refuses a second meanwhile, and their
/// bus times never add up in front of a stamp.
public struct UntimedQueue: Sendable {
    public struct Ticket: Hashable, Sendable {
        let value: Int
    }

    private struct Waiting {
        var ticket: Ticket
        var request: UntimedRequest
        var queuedAt: Int64
    }

    private struct Sent {
        var ticket: Ticket
        var request: UntimedRequest
        var sequence: UInt8
    }

    private var waiting: [Waiting] = []
    private var sent: Sent?
    private var results: [Ticket: Result<[UInt8], BridgeLinkError>] = [:]
    private var nextTicket = 0

    public init() {}

    public var isIdle: Bool { waiting.isEmpty && sent == nil }

    public mutating func enqueue(_ request: UntimedRequest, at host: Int64) -> Ticket {
        nextTicket += 1
        let t = Ticket(value: nextTicket)
        waiting.append(Waiting(ticket: t, request: request, queuedAt: host))
        return t
    }

    /// The request to send now, if one waits and none is in flight.
    public var next: (ticket: Ticket, request: UntimedRequest)? {
        guard sent == nil, let w = waiting.first else { return nil }
        return (w.ticket, w.request)
    }

    /// The next request left under `sequence` at host time `host`.
    public mutating func sent(sequence: UInt8, at host: Int64) {
        guard let w = waiting.first else { return }
        waiting.removeFirst()
        sent = Sent(ticket: w.ticket, request: w.request, sequence: sequence)
    }

    /// The request in flight under `sequence`, answered (I2C_RESULT) or refused (NAK).
    /// False when nothing of ours was sent under it.
    @discardableResult
    public mutating func answered(sequence: UInt8, _ result: Result<[UInt8], BridgeLinkError>) -> Bool {
        guard let s = sent, s.sequence == sequence else { return false }
        sent = nil
        results[s.ticket] = result
        return true
    }

    /// True once the request behind `ticket` has its outcome (not yet taken).
    public func isAnswered(_ ticket: Ticket) -> Bool { results[ticket] != nil }

    /// The outcome, once there is one (taken: asked once).
    public mutating func take(_ ticket: Ticket) -> Result<[UInt8], BridgeLinkError>? { results.removeValue(forKey: ticket) }

    /// The request is no longer wanted (its caller gave up).
    public mutating func cancel(_ ticket: Ticket) {
        waiting.removeAll { $0.ticket == ticket }
        if sent?.ticket == ticket { sent = nil }
        results[ticket] = nil
    }

    /// The link went away or a new session began: every request fails with `error`.
    public mutating func failAll(_ error: BridgeLinkError) {
        for w in waiting { results[w.ticket] = .failure(error) }
        if let s = sent { results[s.ticket] = .failure(error) }
        waiting.removeAll()
        sent = nil
    }

    /// The request in flight under `sequence`, if one is.
    public func request(forSequence sequence: UInt8) -> UntimedRequest? { sent?.sequence == sequence ? sent?.request : nil }
}
