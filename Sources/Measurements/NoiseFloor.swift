import AccelerationData

/// How much of a recording is the sensor's own noise: the RMS about the mean over the
/// quietest `windowMicroseconds` stretch of it (the sled at rest, before the drive or
/// after its ring-down; a model's silence reads 0, and then nothing is refused). A
/// level a time is read at must stand `margin` times above it, or the crossing is the
/// noise's, not the motion's: a half cycle of noise alone reads about 1.5 times the
/// RMS (the largest of a few samples, or a half sine fitted to them).
///
/// The least of many windows reads the noise low rather than high (a LIS3DH's 5.7 mg
/// rms reads 3.9 mg over a 6 s recording), so a figure is refused only where its level
/// is plainly in the noise, as a 0.046 g step's stop time is (its 10 % is 4.4 mg; read
/// anyway it gave 23 ms against its model's 38).
public enum NoiseFloor {
    public static let windowMicroseconds: UInt64 = 20_000
    public static let margin = 2.0

    /// The quietest window's RMS about its mean, g; nil when the recording is shorter
    /// than one window or has fewer than 8 samples in each (nothing to say).
    public static func rmsG(_ samples: [AccelerationSample]) -> Double? {
        guard let first = samples.first?.boardMicroseconds, let last = samples.last?.boardMicroseconds,
            last > first, last - first >= windowMicroseconds
        else { return nil }
        var quietest: Double?
        var start = 0
        // Windows back to back from the first sample; the last partial one is left out.
        while start < samples.count {
            let from = samples[start].boardMicroseconds
            guard from <= last, last - from >= windowMicroseconds else { break }
            var end = start
            var sum = 0.0, sumOfSquares = 0.0
            while end < samples.count, samples[end].boardMicroseconds < from + windowMicroseconds {
                sum += samples[end].g
                sumOfSquares += samples[end].g * samples[end].g
                end += 1
            }
            let n = Double(end - start)
            if end - start >= 8 {
                let mean = sum / n
                let rms = max(0, sumOfSquares / n - mean * mean).squareRoot()
                quietest = min(quietest ?? rms, rms)
            }
            start = end  // the window holds at least its first sample, so this moves on
        }
        return quietest
    }

    /// Throws when `levelG` does not stand `margin` times above the noise.
    static func check(_ levelG: Double, in samples: [AccelerationSample], measurement: String) throws(MeasurementError) {
        guard let noise = rmsG(samples), noise > 0, levelG < margin * noise else { return }
        throw .withinNoise(measurement: measurement, levelG: levelG, noiseG: noise)
    }
}
