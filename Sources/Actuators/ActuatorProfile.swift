/// One actuator as its datasheet describes it, plus the figures the physics model
/// needs that datasheets rarely print (moving mass, Q), marked as estimates in the
/// profile files. Loaded from `Hardware/actuators/*.json` by `ActuatorProfileLoader`.
public struct ActuatorProfile: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable { case lra = "LRA", erm = "ERM" }
    public enum Loop: String, Sendable, CaseIterable { case closed, open }
    /// How the datasheet states its acceleration figure (makers differ and rarely say).
    public enum AccelerationMeasure: String, Sendable, CaseIterable {
        case peak
        case peakToPeak = "peak-to-peak"
        case rms
    }

    public struct LRA: Sendable, Equatable {
        public var resonantFrequencyHz: Double
        /// Mechanical quality factor (no electrical damping).
        public var qualityFactor: Double
        public var movingMassGrams: Double
        public init(resonantFrequencyHz: Double, qualityFactor: Double, movingMassGrams: Double) {
            self.resonantFrequencyHz = resonantFrequencyHz
            self.qualityFactor = qualityFactor
            self.movingMassGrams = movingMassGrams
        }
    }

    public struct ERM: Sendable, Equatable {
        public var ratedSpeedRPM: Double
        /// Mechanical time constant of spin-up at rated voltage (63 % of speed).
        public var timeConstantMilliseconds: Double
        public var eccentricMassGrams: Double?
        public init(ratedSpeedRPM: Double, timeConstantMilliseconds: Double, eccentricMassGrams: Double? = nil) {
            self.ratedSpeedRPM = ratedSpeedRPM
            self.timeConstantMilliseconds = timeConstantMilliseconds
            self.eccentricMassGrams = eccentricMassGrams
        }
    }

    /// How the driver should run it (optional in the file; defaults here).
    public struct Drive: Sendable, Equatable {
        public var loop: Loop
        /// FB_BRAKE_FACTOR multiplier (1, 2, 3, 4, 6, 8, 16) or nil for braking off.
        public var brakeFactor: Int?
        /// "low", "medium", "high", "very high".
        public var loopGain: String
        /// AUTO_CAL_TIME in ms: 150, 250, 500 or 1000.
        public var autoCalibrationMilliseconds: Int
        public init(loop: Loop = .closed, brakeFactor: Int? = 3, loopGain: String = "medium", autoCalibrationMilliseconds: Int = 500) {
            self.loop = loop
            self.brakeFactor = brakeFactor
            self.loopGain = loopGain
            self.autoCalibrationMilliseconds = autoCalibrationMilliseconds
        }
    }

    public struct Source: Sendable, Equatable {
        public var document: String
        public var url: String?
        public var notes: String?
        public init(document: String, url: String? = nil, notes: String? = nil) {
            self.document = document
            self.url = url
            self.notes = notes
        }
    }

    public var id: String
    public var maker: String
    public var partNumber: String
    public var kind: Kind
    /// LRA: V rms at resonance. ERM: V DC (average).
    public var ratedVoltage: Double
    /// The most the maker allows (same units as `ratedVoltage`); the overdrive clamp.
    public var maxVoltage: Double
    public var coilResistanceOhms: Double
    /// Steady vibration at rated voltage, in g, on a `testMassGrams` sled, as printed.
    public var ratedAccelerationG: Double
    public var accelerationMeasure: AccelerationMeasure
    public var testMassGrams: Double
    public var lra: LRA?
    public var erm: ERM?
    public var drive: Drive
    public var source: Source

    public init(
        id: String, maker: String, partNumber: String, kind: Kind, ratedVoltage: Double, maxVoltage: Double,
        coilResistanceOhms: Double, ratedAccelerationG: Double, accelerationMeasure: AccelerationMeasure = .peak,
        testMassGrams: Double = 100,
        lra: LRA? = nil, erm: ERM? = nil, drive: Drive = Drive(), source: Source
    ) {
        self.id = id
        self.maker = maker
        self.partNumber = partNumber
        self.kind = kind
        self.ratedVoltage = ratedVoltage
        self.maxVoltage = maxVoltage
        self.coilResistanceOhms = coilResistanceOhms
        self.ratedAccelerationG = ratedAccelerationG
        self.accelerationMeasure = accelerationMeasure
        self.testMassGrams = testMassGrams
        self.lra = lra
        self.erm = erm
        self.drive = drive
        self.source = source
    }

    /// The rated acceleration as a sine's peak, what the physics models use.
    public var ratedPeakAccelerationG: Double {
        switch accelerationMeasure {
        case .peak: ratedAccelerationG
        case .peakToPeak: ratedAccelerationG / 2
        case .rms: ratedAccelerationG * 2.0.squareRoot()
        }
    }

    public var displayName: String { "\(maker) \(partNumber) (\(kind.rawValue))" }
}
