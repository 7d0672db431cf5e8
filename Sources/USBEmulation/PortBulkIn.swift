import CHapbridgeProtocol

/// The ATmega32U4 port's bulk IN path (Firmware/ports/atmega32u4/usb.c), for a board
/// whose USB stack is not simulated: frames the core sends go into a ring of
/// `HB_USB_IN_RING_BYTES` (usb_identity.h, the size the firmware's ring is built
/// with), whole or not at all (`usb_send`: a frame that does not fit is dropped and
/// shows as a gap in the board's sequence numbers); the main loop moves up to one
/// 64-byte packet at a time from the ring into the endpoint's single bank
/// (`poll_bulk_in`), and the host's IN token takes the bank.
///
/// So a burst of requests gets the replies a board gives it: eight requests whose
/// replies outgrow the ring and the bank lose the rest on core as they do on the ELF
/// and on a board.
struct PortBulkIn: Sendable {
    static let capacity = Int(HB_USB_IN_RING_BYTES)
    static let packetSize = Int(HB_USB_BULK_SIZE)
    /// The port takes a bulk OUT packet only with this much room in the ring
    /// (`poll_bulk_out`'s flow control): the NAKs a packet of stamped commands can draw.
    static let outReplyRoom = Int(HB_USB_OUT_REPLY_ROOM)

    /// Room left in the ring.
    var room: Int { Self.capacity - ring.count }

    /// `usb_send_room`: what a frame nobody asked for (ACCEL_SAMPLES) may take, beyond
    /// the room bulk OUT's flow control keeps for a packet's refusals.
    var unpromptedRoom: Int { max(0, room - Self.outReplyRoom) }

    private(set) var ring: [UInt8] = []
    /// The packet in the endpoint's bank, waiting for an IN token.
    private(set) var bank: [UInt8]?
    /// Frames dropped because the ring had no room for them.
    private(set) var dropped = 0

    var isEmpty: Bool { ring.isEmpty && bank == nil }

    /// `usb_send`: the frame goes in whole, or is dropped.
    @discardableResult
    mutating func send(_ frame: [UInt8]) -> Bool {
        guard frame.count <= Self.capacity - ring.count else {
            dropped += 1
            return false
        }
        ring += frame
        return true
    }

    /// `poll_bulk_in`: a free bank takes the ring's next packet.
    mutating func fillBank() {
        guard bank == nil, !ring.isEmpty else { return }
        let n = min(Self.packetSize, ring.count)
        bank = Array(ring.prefix(n))
        ring.removeFirst(n)
    }

    /// The host's IN token: the bank's packet, if it holds one; the firmware's next
    /// pass refills the bank at once (its main loop is far quicker than the host's
    /// tokens), so the host can take the ring packet by packet.
    mutating func take() -> [UInt8]? {
        defer { bank = nil; fillBank() }
        return bank
    }

    /// SET_CONFIGURATION or a bus reset: usb.c empties the ring and resets the
    /// endpoint (its bank).
    mutating func reset() {
        ring = []
        bank = nil
    }

    /// CLEAR_FEATURE(ENDPOINT_HALT): usb.c resets the endpoint (UERST), so a packet in
    /// the bank is lost; the ring keeps its bytes.
    mutating func resetEndpoint() {
        bank = nil
        fillBank()
    }
}
