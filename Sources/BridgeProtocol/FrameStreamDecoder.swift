import CHapbridgeProtocol

/// Cuts a byte stream from a board into whole, CRC-valid frames. USB delivers the
/// stream in packets (64 bytes at full speed), and a frame may share a packet with
/// others or straddle two, so a transport pushes every packet here as it arrives.
///
/// Like the firmware's decoder it hunts for the magic and bounds the length before
/// buffering; unlike it, a frame whose CRC fails is not skipped whole: the search
/// restarts one byte after its magic, so a stray 0xA5 in noise cannot swallow the
/// real frame behind it (the host has the memory to rescan; the board does not).
public struct FrameStreamDecoder: Sendable {
    private var buffer: [UInt8] = []
    /// Bytes skipped while hunting for a frame (noise, or what a bad frame left).
    public private(set) var skippedBytes = 0
    /// Candidate frames whose CRC did not match.
    public private(set) var badFrames = 0

    public init() {}

    /// Adds bytes; returns the whole frames they completed, oldest first.
    public mutating func push(_ bytes: some Sequence<UInt8>) -> [[UInt8]] {
        buffer.append(contentsOf: bytes)
        var frames: [[UInt8]] = []
        var start = 0
        let magic = UInt8(HB_FRAME_MAGIC), overhead = Int(HB_FRAME_OVERHEAD)
        while start < buffer.count {
            guard buffer[start] == magic else {
                start += 1
                skippedBytes += 1
                continue
            }
            guard buffer.count - start > Int(HB_FRAME_OFFSET_LEN) else { break }  // need the length byte
            let length = Int(buffer[start + Int(HB_FRAME_OFFSET_LEN)])
            guard length <= Int(HB_FRAME_MAX_PAYLOAD) else {
                start += 1
                skippedBytes += 1
                continue
            }
            let total = length + overhead
            guard buffer.count - start >= total else { break }  // the rest is still on its way
            let covered = Int(HB_FRAME_HEADER_LEN) - 1 + length
            let crc = buffer.withUnsafeBufferPointer { b in
                b.baseAddress.map { hb_crc16($0 + start + Int(HB_FRAME_OFFSET_LEN), UInt32(covered)) } ?? 0
            }
            let crcAt = start + Int(HB_FRAME_HEADER_LEN) + length
            if crc == UInt16(buffer[crcAt]) | UInt16(buffer[crcAt + 1]) << 8 {
                frames.append(Array(buffer[start..<start + total]))
                start += total
            } else {
                badFrames += 1
                skippedBytes += 1
                start += 1
            }
        }
        buffer.removeFirst(start)
        return frames
    }

    /// Forgets a partial frame (after a disconnect: what follows is a new stream).
    public mutating func reset() { buffer.removeAll() }
}
