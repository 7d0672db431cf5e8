extension DRV2605Driver {
    /// Loads up to eight sequencer entries (effects and waits; an `.end` is added when
    /// fewer than eight are given) and selects the library, without starting.
    public mutating func loadSequence(_ entries: [WaveformSequenceEntry], library: ROMLibrary) async throws(DRV2605Error) {
        let v = try await knownVariant()
        guard v.hasROMLibraries else { throw .noROMLibraries(v) }
        guard entries.count <= WaveformSequenceEntry.capacity else {
            throw .invalidSequence("\(entries.count) entries; the sequencer holds \(WaveformSequenceEntry.capacity)")
        }
        for (i, e) in entries.enumerated() {
            switch e {
            case .effect(let id) where !id.isValid:
                throw .invalidSequence("slot \(i + 1): effect \(id.rawValue) is outside 1...123")
            case .wait(let units) where units == 0 || units > WaveformSequenceEntry.valueField.maxValue:
                throw .invalidSequence("slot \(i + 1): wait of \(units) x 10 ms is outside 1...127")
            default: break
            }
        }
        var bytes = entries.map(\.rawValue)
        if bytes.count < WaveformSequenceEntry.capacity { bytes.append(WaveformSequenceEntry.end.rawValue) }
        try await setMode(.internalTrigger)
        try await update(LibrarySelectionRegister.self) { $0.library = library }
        try await writeRaw(.waveformSequence1, bytes)  // one auto-incrementing write
    }

    /// Sets GO: the sequencer starts at slot 1.
    public func go() async throws(DRV2605Error) { try await write(GoRegister(go: true)) }

    /// Clears GO: stops whatever GO started.
    public func stop() async throws(DRV2605Error) { try await write(GoRegister(go: false)) }

    /// Loads, starts and waits for the sequencer to finish (GO clears itself).
    public mutating func play(_ entries: [WaveformSequenceEntry], library: ROMLibrary, timeoutMicroseconds: UInt64 = 15_000_000) async throws(DRV2605Error) {
        try await loadSequence(entries, library: library)
        _ = try await goAndWait(mode: .internalTrigger, timeoutMicroseconds: timeoutMicroseconds)
    }

    // MARK: real-time playback

    /// Enters RTP mode with the chosen data format.
    public func startRealTimePlayback(unsigned: Bool) async throws(DRV2605Error) {
        try await update(Control3Register.self) { $0.rtpUnsigned = unsigned }
        try await writeRaw(.rtpInput, [0])
        try await setMode(.realTimePlayback)
    }

    /// Signed RTP: -128...127, 127 = full scale (rated voltage in closed loop, OD_CLAMP
    /// in open loop); negative drives reverse/brake in open loop and bidirectional mode.
    public func setRealTimeAmplitude(signed value: Int8) async throws(DRV2605Error) {
        try await writeRaw(.rtpInput, [UInt8(bitPattern: value)])
    }

    /// Unsigned RTP: 0...255, 255 = full scale.
    public func setRealTimeAmplitude(unsigned value: UInt8) async throws(DRV2605Error) {
        try await writeRaw(.rtpInput, [value])
    }

    /// Leaves RTP: amplitude 0, back to internal trigger.
    public func stopRealTimePlayback() async throws(DRV2605Error) {
        try await writeRaw(.rtpInput, [0])
        try await setMode(.internalTrigger)
    }
}
