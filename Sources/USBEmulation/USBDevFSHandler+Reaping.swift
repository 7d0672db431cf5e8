import CUMockdev
import CUSBDevFS
import Glibc

/// Reaping: finished URBs go back to the file that submitted them, in completion
/// order; an empty reap from a polling client is parked (see the type's comment).
extension USBDevFSHandler {
    func reap(_ client: Client, blocking: Bool) {
        enum Next {
            case handBack(Finished)
            case park(token: UInt64, timed: Bool)
        }
        let k = key(client)
        let next = state.withLock { s -> Next? in
            var c = s.clients[k] ?? ClientState()
            defer { s.clients[k] = c }
            if !c.done.isEmpty {
                c.polling = false
                return .handBack(c.done.removeFirst())
            }
            if !c.polling && !blocking {
                c.polling = true
                return nil
            }
            let token = s.token()
            c.parked = ParkedReap(client: GObjectPointer(retaining: client), blocking: blocking, token: token)
            // REAPURB waits for a completion; on a gone device it is timed too, so a
            // client polling a dead device does not spin either.
            return .park(token: token, timed: !blocking || s.gone)
        }
        switch next {
        case .handBack(let f): handBack(f, to: client)
        case .park(let token, let timed): if timed { startParkTimer(client: k, token: token) }
        case nil: complete(client, errno: state.withLock { $0.gone } ? ENODEV : EAGAIN)
        }
    }

    func startParkTimer(client: UInt, token: UInt64) {
        guard let context = state.withLock({ $0.mainContext }) else { return }
        let box = Unmanaged.passRetained(ParkedReapTimer(handler: self, client: client, token: token)).toOpaque()
        hb_main_context_after(
            context.raw, Self.emptyReapDelayMicroseconds,
            { p in p.map { Unmanaged<ParkedReapTimer>.fromOpaque($0).takeUnretainedValue().fire() } },
            box, { p in p.map { Unmanaged<ParkedReapTimer>.fromOpaque($0).release() } })
    }

    /// A parked reap's time is up (worker thread): it gets a URB that finished
    /// meanwhile, else EAGAIN (ENODEV once the device is gone) — unless a service pass
    /// already answered it.
    func expireParkedReap(client k: UInt, token: UInt64) {
        enum Answer {
            case handBack(ParkedReap, Finished)
            case empty(ParkedReap, gone: Bool)
        }
        let answer = state.withLock { s -> Answer? in
            guard var c = s.clients[k], let p = c.parked, p.token == token else { return nil }
            defer { s.clients[k] = c }
            c.parked = nil
            if !c.done.isEmpty { return .handBack(p, c.done.removeFirst()) }
            return .empty(p, gone: s.gone)
        }
        switch answer {
        case .handBack(let p, let f):
            handBack(f, to: p.client.raw)
            p.client.release()
        case .empty(let p, let gone):
            umockdev_ioctl_client_complete(p.client.raw, -1, gone ? ENODEV : EAGAIN)
            p.client.release()
        case nil:
            break
        }
    }

    /// Asks the worker thread for a service pass (coalesced), from any thread.
    func scheduleService() {
        let context = state.withLock { s -> GMainContextPointer? in
            guard s.needsService, !s.serviceScheduled, let c = s.mainContext else { return nil }
            s.serviceScheduled = true
            return c
        }
        guard let context else { return }
        hb_main_context_invoke(
            context.raw, { p in p.map { Unmanaged<USBDevFSHandler>.fromOpaque($0).takeUnretainedValue().service() } },
            Unmanaged.passRetained(self).toOpaque(), { p in p.map { Unmanaged<USBDevFSHandler>.fromOpaque($0).release() } })
    }

    /// Worker thread: hands finished URBs to parked reaps and answers finished
    /// synchronous transfers.
    func service() {
        let (reaps, synchronous) = state.withLock { s -> ([(ParkedReap, Finished)], [Finished]) in
            s.serviceScheduled = false
            var reaps: [(ParkedReap, Finished)] = []
            for (k, var c) in s.clients {
                guard let p = c.parked, !c.done.isEmpty else { continue }
                reaps.append((p, c.done.removeFirst()))
                c.parked = nil
                s.clients[k] = c
            }
            defer { s.synchronousDone = [] }
            return (reaps, s.synchronousDone)
        }
        for (p, f) in reaps {
            handBack(f, to: p.client.raw)
            p.client.release()
        }
        synchronous.forEach(answerSynchronous)
    }
}

/// What a parked reap's timer needs when it fires on the worker thread.
final class ParkedReapTimer: Sendable {
    let handler: USBDevFSHandler
    let client: UInt
    let token: UInt64
    init(handler: USBDevFSHandler, client: UInt, token: UInt64) {
        self.handler = handler
        self.client = client
        self.token = token
    }
    func fire() { handler.expireParkedReap(client: client, token: token) }
}
