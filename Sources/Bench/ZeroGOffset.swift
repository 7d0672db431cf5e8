import DeviceInterface

/// A sensor's zero-g offset, taken out of what it recorded: an accelerometer's axis
/// reads its own zero-g level on top of the motion (a LIS3DH's TyOff, ±40 mg typical)
/// plus whatever share of gravity a tilt puts on it. Left in, it shifts the zero
/// crossings an envelope is read between (a vibration smaller than the offset has
/// none) and adds itself to a peak.
///
/// Why the recording's mean is that offset: the sled is at rest before the drive and
/// again after it, and its acceleration integrates to the change in its velocity, 0,
/// so over a recording that starts and ends at rest the motion's mean is 0 and the
/// samples' mean is the sensor's own. A recording cut while the sled still moves keeps
/// at most its last half cycle's share, A/(π·cycles), in the mean.
public enum ZeroGOffset {
    /// The samples' mean, g (each weighs alike: a sensor samples on its own fixed grid).
    public static func of(_ samples: [AccelerationSample]) -> Double {
        samples.isEmpty ? 0 : samples.reduce(0) { $0 + $1.g } / Double(samples.count)
    }

    /// The motion in a recording: a sensor's samples less their mean, a model's as they
    /// are (a model has no offset).
    public static func motion(in samples: [AccelerationSample], origin: AccelerationOrigin) -> [AccelerationSample] {
        origin == .sensor ? removed(from: samples) : samples
    }

    /// The samples less their mean.
    public static func removed(from samples: [AccelerationSample]) -> [AccelerationSample] {
        let offset = of(samples)
        return samples.map { AccelerationSample(boardMicroseconds: $0.boardMicroseconds, g: $0.g - offset) }
    }
}
