import CUMockdev

/// A GObject pointer that crosses threads. Reference counting is atomic in GObject;
/// what the object is used for is confined by its owner (URB memory is only
/// written on umockdev's worker thread).
struct GObjectPointer<T>: @unchecked Sendable {
    let raw: UnsafeMutablePointer<T>

    /// Takes over a reference the caller already owns.
    init(adopting raw: UnsafeMutablePointer<T>) { self.raw = raw }

    /// Takes a new reference.
    init(retaining raw: UnsafeMutablePointer<T>) {
        g_object_ref(raw)
        self.raw = raw
    }

    func release() { g_object_unref(raw) }
}

extension GObjectPointer where T == UMockdevIoctlData {
    /// Bytes of the resolved client memory (clamped to what was resolved).
    func bytes(_ range: Range<Int>) -> [UInt8] {
        let length = Int(raw.pointee.data_len)
        guard let data = raw.pointee.data, range.lowerBound < length else { return [] }
        return Array(UnsafeBufferPointer(start: data + range.lowerBound, count: min(range.upperBound, length) - range.lowerBound))
    }

    /// Writes into the resolved memory (what does not fit is dropped); synced back to
    /// the client when the ioctl completes.
    func store(_ bytes: [UInt8], at offset: Int) {
        let length = Int(raw.pointee.data_len)
        guard let data = raw.pointee.data, offset < length else { return }
        let n = min(bytes.count, length - offset)
        bytes.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress else { return }
            (data + offset).update(from: base, count: n)
        }
    }
}

struct GMainContextPointer: @unchecked Sendable {
    let raw: OpaquePointer
}
