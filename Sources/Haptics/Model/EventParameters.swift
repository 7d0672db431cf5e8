/// The resolved parameters of one event: every field holds a value in its range
/// (Core Haptics' default where the source gave none).
public struct EventParameters: Sendable, Hashable {
    public var intensity: Double
    public var sharpness: Double
    /// 0…1 on Core Haptics' scale; `Envelope.seconds(for:)` turns it into seconds.
    public var attackTime: Double
    public var decayTime: Double
    public var releaseTime: Double
    /// A sustained event holds its intensity to the end; an unsustained one decays
    /// after its attack over `decayTime`.
    public var sustained: Bool
    public var audioVolume: Double
    public var audioPitch: Double
    public var audioPan: Double
    public var audioBrightness: Double

    public init(
        intensity: Double = 1, sharpness: Double = 1,
        attackTime: Double = 0, decayTime: Double = 0, releaseTime: Double = 0, sustained: Bool = true,
        audioVolume: Double = 1, audioPitch: Double = 0, audioPan: Double = 0, audioBrightness: Double = 1
    ) {
        self.intensity = intensity
        self.sharpness = sharpness
        self.attackTime = attackTime
        self.decayTime = decayTime
        self.releaseTime = releaseTime
        self.sustained = sustained
        self.audioVolume = audioVolume
        self.audioPitch = audioPitch
        self.audioPan = audioPan
        self.audioBrightness = audioBrightness
    }

    public subscript(id: EventParameterID) -> Double {
        get {
            switch id {
            case .hapticIntensity: intensity
            case .hapticSharpness: sharpness
            case .attackTime: attackTime
            case .decayTime: decayTime
            case .releaseTime: releaseTime
            case .sustained: sustained ? 1 : 0
            case .audioVolume: audioVolume
            case .audioPitch: audioPitch
            case .audioPan: audioPan
            case .audioBrightness: audioBrightness
            }
        }
        set {
            switch id {
            case .hapticIntensity: intensity = newValue
            case .hapticSharpness: sharpness = newValue
            case .attackTime: attackTime = newValue
            case .decayTime: decayTime = newValue
            case .releaseTime: releaseTime = newValue
            case .sustained: sustained = newValue >= 0.5
            case .audioVolume: audioVolume = newValue
            case .audioPitch: audioPitch = newValue
            case .audioPan: audioPan = newValue
            case .audioBrightness: audioBrightness = newValue
            }
        }
    }
}
