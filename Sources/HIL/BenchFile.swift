import DeviceInterface
import Devices

/// A bench file: which devices the bench has (by address), what is mounted on each,
/// the fixture they sit in, and the features it offers that tests can require. The one
/// place a script learns what hardware it runs on, so the same script runs unchanged on
/// `sim`, under `emulate bridge` and on a real board.
public struct BenchFile: Sendable {
    public struct Device: Sendable {
        /// What scripts call it (`device: dut`).
        public var name: String
        public var address: DeviceAddress
        /// An actuator profile: a name from Hardware/actuators or a .json path.
        public var actuator: String
        /// The simulated board's fault, when `address` is `sim` (to rehearse a bad bench).
        public var simulatedFault: SimulatedBoardSetup.Fault
        /// The simulated board's VDD, V.
        public var simulatedSupplyVolts: Double
        /// How the host switches a bridge board's USB power, for `unplug` and `replug`.
        public var power: PowerSwitch?
        /// The bench accelerometer's axis the actuator moves along (`accelerometer:
        /// {axis: z}`): X by default, a sled on rails; a coin LRA moves along Z.
        public var accelerometerAxis: AccelerationAxis = .x
        /// Tags a test's `device` may name instead of a device (`tags: [farm]`): the
        /// test then runs on every device carrying it, concurrently (farm mode).
        public var tags: [String] = []
        /// Where the file gives `actuator`, for an error about the profile it names.
        var actuatorLine: Int?

        public init(
            name: String, address: DeviceAddress, actuator: String, simulatedFault: SimulatedBoardSetup.Fault = .none, simulatedSupplyVolts: Double = 5,
            power: PowerSwitch? = nil
        ) {
            self.name = name
            self.address = address
            self.actuator = actuator
            self.simulatedFault = simulatedFault
            self.simulatedSupplyVolts = simulatedSupplyVolts
            self.power = power
        }
    }

    /// A switchable USB port a bridge board is plugged into.
    public enum PowerSwitch: Sendable, Equatable {
        /// A hub with per-port power switching, driven by `uhubctl` (Debian's package):
        /// `uhubctl -l LOCATION -p PORT -a off|on`, as labgrid's USBPowerPort does.
        /// `location` is the hub's (`uhubctl` lists them: "1-1", "2-1.4"), `port` its
        /// port the board is on.
        case uhubctl(location: String, port: Int)

        /// The command that switches it (the executable first).
        public func command(on: Bool) -> [String] {
            switch self {
            case .uhubctl(let location, let port): ["uhubctl", "-l", location, "-p", String(port), "-a", on ? "on" : "off"]
            }
        }
    }

    public struct Fixture: Sendable {
        public var sledMassGrams: Double?
        public var mounting: String?

        public init(sledMassGrams: Double? = nil, mounting: String? = nil) {
            self.sledMassGrams = sledMassGrams
            self.mounting = mounting
        }
    }

    /// Names the bench in records and reports.
    public var name: String
    public var devices: [Device]
    public var fixture: Fixture
    /// Tags a test can require (`requires: [lis3dh]`).
    public var features: Set<String>
    /// The feature a bench with a LIS3DH on its bridge's bus offers
    /// (Hardware/boards/accelerometer.md). On a `sim` device it also fits the sensor
    /// to the simulated board, so the bench's figures come from it, as they would on
    /// the real bench.
    public static let accelerometerFeature = "lis3dh"
    public var file: String

    /// The keys each mapping of the format allows; the JSON Schema lists the same ones
    /// (a test compares them).
    public static let keys = ["bench", "devices", "fixture", "features"]
    public static let deviceKeys = ["name", "address", "actuator", "tags", "simulate", "power", "accelerometer"]
    public static let accelerometerKeys = ["axis"]
    public static let simulateKeys = ["fault", "supply"]
    public static let powerKeys = ["uhubctl"]
    public static let uhubctlKeys = ["location", "port"]
    public static let fixtureKeys = ["sled-mass-grams", "mounting"]

    public init(name: String, devices: [Device], fixture: Fixture = Fixture(), features: Set<String> = [], file: String) {
        self.name = name
        self.devices = devices
        self.fixture = fixture
        self.features = features
        self.file = file
    }

    public static func parse(_ text: String, file: String) throws(ScriptError) -> BenchFile {
        let root = try YAMLNode.root(text, file: file)
        // Runs once gave their lock a lifetime; a board's lock now lasts as long as its run.
        let m = try root.mapping(allowed: keys, retired: ["lock-expiry-seconds": "a board's lock is held while its run lives and released when it ends (the kernel's flock): remove it"])
        let name = try m.required("bench").string()
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
            throw m["bench"]!.error("must be letters, digits, '-', '_' or '.', not \(YAMLNode.echo(name))")
        }
        var devices: [Device] = []
        var tagNodes: [YAMLNode?] = []
        let list = try m.required("devices").sequence()
        guard !list.isEmpty else { throw m["devices"]!.error("must name at least one device") }
        for item in list {
            let d = try item.mapping(allowed: deviceKeys)
            let dname = try d.required("name").string()
            if devices.contains(where: { $0.name == dname }) { throw d["name"]!.error("device \(YAMLNode.echo(dname)) is named twice") }
            let addressNode = try d.required("address")
            let address: DeviceAddress
            let addressText = try addressNode.string()
            do { address = try DeviceAddress(parsing: addressText) } catch { throw addressNode.error(error.rule) }
            var fault = SimulatedBoardSetup.Fault.none
            var supply = 5.0
            if let sim = d["simulate"] {
                guard address == .simulated else { throw sim.error("applies to the simulated board (address: sim) only") }
                let s = try sim.mapping(allowed: simulateKeys)
                if let f = s["fault"] { fault = try f.oneOf(SimulatedBoardSetup.Fault.self) }
                if let v = s["supply"] {
                    supply = try v.number()
                    guard (2.5...5.5).contains(supply) else { throw v.error("must be 2.5...5.5 V (the DRV2605's VDD range), not \(supply)") }
                }
            }
            var power: PowerSwitch?
            if let p = d["power"] {
                guard case .usb = address else { throw p.error("applies to a bridge board on USB (address: usb…) only") }
                let u = try p.mapping(allowed: powerKeys).required("uhubctl")
                let um = try u.mapping(allowed: uhubctlKeys)
                let locationNode = try um.required("location")
                let location = try locationNode.string()
                // A hub's location as uhubctl and sysfs spell it: BUS-PORT[.PORT…].
                guard (try? DeviceAddress(parsing: "usb:\(location)")).map({ if case .usb(.port) = $0 { true } else { false } }) == true else {
                    throw locationNode.error("a hub location as uhubctl lists it, BUS-PORT[.PORT…] (\"1-1\", \"2-1.4\"), not \(YAMLNode.echo(location))")
                }
                power = .uhubctl(location: location, port: try um.required("port").count(in: 1...255))
            }
            let actuator = try d.required("actuator")
            var device = Device(
                name: dname, address: address, actuator: try actuator.string(), simulatedFault: fault, simulatedSupplyVolts: supply, power: power)
            device.actuatorLine = actuator.line
            if let a = d["accelerometer"], let axisNode = try a.mapping(allowed: accelerometerKeys)["axis"] {
                let name = try axisNode.string()
                guard let axis = AccelerationAxis(name: name) else {
                    throw axisNode.error("must be one of \(AccelerationAxis.allCases.map(\.name).joined(separator: ", ")), the sensor's axis the actuator moves along, not \(YAMLNode.echo(name))")
                }
                device.accelerometerAxis = axis
            }
            tagNodes.append(d["tags"])
            if let tagsNode = d["tags"] {
                for tag in try tagsNode.strings() {
                    guard !tag.isEmpty else { throw tagsNode.error("a tag must not be empty") }
                    if !device.tags.contains(tag) { device.tags.append(tag) }
                }
            }
            devices.append(device)
        }
        // A test's `device` names a device or a tag: one word must not mean both.
        for (d, tagsNode) in zip(devices, tagNodes) {
            guard let tagsNode else { continue }
            for tag in d.tags where devices.contains(where: { $0.name == tag }) {
                throw tagsNode.error("tag \(YAMLNode.echo(tag)) is also a device's name: a test's `device` names one or the other, so give the tag another name")
            }
        }
        var fixture = Fixture()
        if let f = m["fixture"] {
            let fm = try f.mapping(allowed: fixtureKeys)
            fixture.sledMassGrams = try fm["sled-mass-grams"]?.positiveNumber()
            fixture.mounting = try fm["mounting"]?.string()
        }
        let features = Set(try m["features"]?.strings() ?? [])
        return BenchFile(name: name, devices: devices, fixture: fixture, features: features, file: file)
    }

    public func device(named name: String?) -> Device? {
        guard let name else { return devices.first }
        return devices.first { $0.name == name }
    }

    /// The devices a test's `device` selects, in the bench's order: the device of that
    /// name, else every device carrying it as a tag (farm mode: the test runs on each,
    /// concurrently); no `device`: the first device, as before tags. Empty: no match.
    public func devices(matching selector: String?) -> [Device] {
        if let one = device(named: selector) { return [one] }
        guard let selector else { return [] }
        return devices.filter { $0.tags.contains(selector) }
    }
}
