// swift-tools-version:6.0
// The layout follows the flow of one pattern:
// Haptics (pure pattern layer) -> rendering -> device program -> transport -> firmware.
import PackageDescription

// Linux only: libusb and libftdi through Debian's -dev packages, usbdevfs, umockdev,
// SCHED_FIFO and Glibc. `platforms` can only raise Apple platforms' minimum versions,
// so none is declared; another system stops here with the reason instead of failing
// deep in a C module.
#if !os(Linux)
#error("hapbridge builds on Linux only (Debian 12 or later: scripts/setup installs what it needs)")
#endif

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "hapbridge",
    products: [
        .executable(name: "hapbridge", targets: ["hapbridge"]),
        // The one library a user's package needs: `import Hapbridge` (see Sources/Hapbridge).
        .library(name: "Hapbridge", targets: ["Hapbridge"]),
        // HIL tests in a user's own `swift test`: `import HapbridgeTesting` (see
        // Sources/HapbridgeTesting, Examples/HILPackage).
        .library(name: "HapbridgeTesting", targets: ["HapbridgeTesting"]),
        // Preloaded by `hapbridge emulate` in front of umockdev's preload library, into
        // COMMAND and itself (Sources/EmulationPreload): not a library to link.
        .library(name: "HapbridgeEmulationPreload", type: .dynamic, targets: ["EmulationPreload"]),
    ],
    dependencies: [
        // 1.8 for `@Option(defaultAsFlag:)`: `run --wait [SECONDS]`.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // The strict JSON reader and writer every input file goes through (patterns and
        // actuator profiles): limits, line and column in errors, warned leniencies.
        .target(name: "JSON", dependencies: ["Hex"], swiftSettings: strict),
        // Hexadecimal text, the one way every module writes it (a byte, a word, an address,
        // a byte list, at a width and in a case) and reads it (bytes, a number). Depends on
        // nothing, so the lowest modules use it too.
        .target(name: "Hex", swiftSettings: strict),
        // The one bounded reader and the one safe writer every file goes through
        // (patterns, profiles, the calibration store, outputs, plots, logs), and paths
        // as bytes: an argument that is not UTF-8 names the file it names.
        .target(name: "FileAccess", dependencies: ["Hex"], swiftSettings: strict),
        // Pattern layer: events, parameters, curves, AHAP / .haptic, the system library,
        // rendering to a timeline. No I/O below it.
        .target(name: "Haptics", dependencies: ["JSON"], swiftSettings: strict),
        // Dependency-free SVG plotting shared by every command that draws a trace.
        .target(name: "Plot", swiftSettings: strict),
        // Actuator profiles (Hardware/actuators/*.json, read with JSON) and LRA/ERM physics.
        .target(name: "Actuators", dependencies: ["JSON", "FileAccess"], swiftSettings: strict),
        // The plain values an acceleration recording is made of: samples on board time,
        // sensor or model, the sensor's axis, the holes a sensor left. No device, no I/O:
        // below the device seam (which re-exports it) and Measurements alike.
        .target(name: "AccelerationData", swiftSettings: strict),
        // The device seam, below the engine and above every transport: a frame transport
        // (frames in/out, the host clock, disconnect/reappear), an I2C bus, acceleration
        // telemetry, device addresses. Depends only on the protocol header (a bridge board's
        // serial-number rule, for `usb:SERIAL`), the acceleration values its telemetry hands
        // out, and Hex (its errors' addresses): the engine, each transport, and the flash
        // and HIL code import it, never each other.
        .target(name: "DeviceInterface", dependencies: ["CHapbridgeProtocol", "AccelerationData", "Hex"], swiftSettings: strict),
        // DRV2605/DRV2605L driver: typed register map, datasheet formulas, procedures,
        // over a small I2C bus protocol. No I/O of its own.
        .target(name: "DRV2605", dependencies: ["DeviceInterface", "Actuators", "Hex"], swiftSettings: strict),
        // Register-accurate simulated DRV2605(L) with virtual time, driving the physics.
        .target(name: "DRV2605Model", dependencies: ["DRV2605", "DeviceInterface", "Actuators"], swiftSettings: strict),
        // The bench accelerometer on the bridge board's bus (an ST LIS3DH), in virtual time.
        .target(name: "SensorModel", dependencies: ["DeviceInterface", "DRV2605Model"], swiftSettings: strict),
        // The bridge firmware's portable core, compiled for the host from the very same
        // sources the ATmega32U4 build uses (Firmware/core). Its headers are the one
        // definition of the wire protocol; Swift imports them, never re-declares them.
        .target(name: "FirmwareCore", dependencies: ["CHapbridgeProtocol"], path: "Firmware/core", publicHeadersPath: "include"),
        // The wire protocol and the USB identity (Firmware/protocol): the one definition the
        // firmware, the simavr harness, the emulations and Swift share. An explicit module map
        // exports just these headers, so the host reads the protocol without the firmware core.
        .target(name: "CHapbridgeProtocol", path: "Firmware/protocol", publicHeadersPath: "include"),
        // Swift names over the protocol header: frame types, reasons, host frame
        // encoding and board frame decoding. Shared by every transport to a bridge board.
        .target(name: "BridgeProtocol", dependencies: ["CHapbridgeProtocol", "Hex"], swiftSettings: strict),
        // The one owner of a board's link: HELLO and identity once, sequence numbers,
        // keep-alive, clock sync, queue status and NAKs (refused commands sent again),
        // serving an engine's stamped stream, untimed register access in the stream's
        // gaps, the bootloader jump and the transport's capabilities.
        .target(name: "BridgeLink", dependencies: ["DeviceInterface", "BridgeProtocol", "CHapbridgeProtocol", "Hex"], swiftSettings: strict),
        // The facts of the bootloaders a bridge board is flashed through, and nothing else:
        // their USB identities, AVR109's command letters (Caterina), DFU 1.0's requests and
        // FLIP's command bytes (Atmel DFU). `hapbridge flash` (Flashing) and the emulated
        // bootloaders (USBEmulation) each build their own side from them, as FTDIBridge and
        // the FT232H emulation do from MPSSE.
        .target(name: "AVRBootloaders", dependencies: ["Hex"], swiftSettings: strict),
        // Firmware images for `hapbridge flash`: the target part's facts (`AVRPart`), the
        // image as bytes at addresses, the Intel HEX and ELF loaders and their checks.
        .target(name: "FirmwareImage", dependencies: ["Hex"], swiftSettings: strict),
        // `hapbridge flash` as a library: one `BootloaderProgrammer` per bootloader protocol
        // (Caterina AVR109 over a serial port, Atmel FLIP DFU over libusb), and the plan
        // every flash follows (check, erase, write, verify, start the application), and the
        // way to a bootloader (`FlashTarget`: a board running hapbridge firmware sent there
        // and followed back), shared by `hapbridge flash` and `hapbridge run`'s flash step.
        .target(
            name: "Flashing",
            dependencies: [
                "AVRBootloaders", "FirmwareImage", "FileAccess", "LibUSB", "DeviceInterface", "Devices", "USBBridge", "BridgeLink", "BridgeProtocol", "Hex",
            ],
            exclude: ["README.md"], swiftSettings: strict),
        // The simulated bridge board: the firmware core's hooks wired to the chip model,
        // the actuator physics and a virtual microsecond clock. No threads, no wall clock.
        .target(
            name: "SimulatedBoard", dependencies: ["FirmwareCore", "BridgeProtocol", "DRV2605", "DRV2605Model", "Actuators", "SensorModel", "Hex"],
            exclude: ["README.md"], swiftSettings: strict),
        // Addresses to opened devices: discovery (bridge boards on USB), the rule for
        // choosing one, the simulated board as the fallback, bench sessions over a board.
        .target(
            name: "Devices",
            dependencies: [
                "DeviceInterface", "BridgeLink", "SimulatedBoard", "SimulatedBridgeDevice", "USBBridge", "LibUSB", "BridgeProtocol", "Actuators", "HostedBoard", "FTDIBridge",
                "DRV2605", "DRV2605Model", "JSON", "FileAccess", "CHapbridgeProtocol", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // libusb 1.0 from Debian's libusb-1.0-0-dev, and a thin typed Swift wrapper over it
        // (errors as a typed struct, async transfers completed on a dedicated event thread,
        // hotplug). Knows nothing of hapbridge.
        .systemLibrary(name: "CLibUSB", pkgConfig: "libusb-1.0", providers: [.apt(["libusb-1.0-0-dev"])]),
        .target(
            name: "LibUSB", dependencies: ["CLibUSB", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
        // libftdi1 from Debian's libftdi1-dev, and a thin typed Swift wrapper over it (a
        // context and the device it opened, errors carrying libftdi's code and message).
        // Knows nothing of hapbridge.
        .systemLibrary(name: "CLibFTDI", pkgConfig: "libftdi1", providers: [.apt(["libftdi1-dev"])]),
        .target(name: "LibFTDI", dependencies: ["CLibFTDI", "CLibUSB"], swiftSettings: strict),
        // The FT232H's MPSSE facts both sides share: opcodes (FTDI AN_108), the clock
        // divisor, the I2C wiring (SCL, SDA, the DRV2605's EN) and the USB identity.
        .target(name: "MPSSE", swiftSettings: strict),
        // The FT232H adapter, everything about it in one module: an `I2CBus` over MPSSE
        // through libftdi (START/STOP by GPIO, ACK bits checked, batched writes, waits timed
        // by the FT232H); the hosted core's I2C port on it (`FT232HHostedI2C`, its answer
        // reader), the guardian process and its takeover; and its `DeviceAdapter` (`ftdi:`),
        // which the catalog registers.
        .target(
            name: "FTDIBridge",
            dependencies: ["LibFTDI", "MPSSE", "DeviceInterface", "HostedBoard", "FirmwareCore", "RealTime", "CFTDIBridge", "Hex"],
            swiftSettings: strict),
        // The firmware core hosted in this process for an adapter with no microcontroller:
        // CLOCK_MONOTONIC as its clock, its timer on a real-time thread that sleeps then
        // spins, its I2C through an abstract `HostedI2CPort`; a FrameTransport, so BridgeLink
        // and the engine take it. It names no adapter.
        .target(name: "HostedBoard", dependencies: ["FirmwareCore", "DeviceInterface", "RealTime"], swiftSettings: strict),
        // What the FT232H's guardian needs from C that Swift cannot call: the few usbfs
        // ioctls it makes itself (macros), and posix_spawn's closefrom (a GNU extension)
        // for starting it.
        .target(name: "CFTDIBridge"),
        // The bridge board over USB: discovery by VID:PID, a FrameTransport on libusb's
        // async bulk transfers with an always-pending IN, hotplug.
        .target(
            name: "USBBridge",
            dependencies: ["LibUSB", "DeviceInterface", "BridgeProtocol", "AVRBootloaders", "MPSSE", "RealTime", "Hex", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
        // A serial executor on a dedicated thread, SCHED_FIFO where permitted, with its own
        // timed sleeps: the engine's service loop on real hardware, the FT232H's host timing.
        .target(name: "RealTime", dependencies: ["CRealTime"], swiftSettings: strict),
        // prctl(PR_SET_TIMERSLACK) for RealTime: variadic in C, so not callable from Swift.
        .target(name: "CRealTime"),
        // Rendered timeline -> timestamped chip commands for one actuator profile (pure).
        .target(name: "HapticCompilation", dependencies: ["Haptics", "DRV2605", "Actuators", "CHapbridgeProtocol", "Hex"], swiftSettings: strict),
        // HapticEngine: Core Haptics' engine and players over a bridge board, the clock
        // sync and the look-ahead scheduler. Talks to any `FrameTransport` (DeviceInterface).
        .target(
            name: "HapticEngine",
            dependencies: [
                "DeviceInterface", "BridgeLink", "RealTime", "Haptics", "HapticCompilation", "BridgeProtocol", "DRV2605", "Actuators",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"], swiftSettings: strict),
        // The simulated board as a FrameTransport (virtual time, a modelled USB link).
        .target(name: "SimulatedBridgeDevice", dependencies: ["DeviceInterface", "SimulatedBoard"], swiftSettings: strict),
        // The real firmware ELF under simavr as a FrameTransport: spawns Firmware/sim's
        // `sim-harness --serve` (built by `make -C Firmware firmware sim`), virtual time.
        .target(
            name: "SimavrBridgeDevice", dependencies: ["DeviceInterface", "DRV2605Model", "SensorModel", "FileAccess", "Hex"],
            swiftSettings: strict),
        // umockdev (Debian's libumockdev-dev): the fake sysfs and device nodes, and the live
        // ioctl handlers the USB emulations answer libusb with.
        .systemLibrary(name: "CUMockdev", pkgConfig: "umockdev-1.0", providers: [.apt(["libumockdev-dev"])]),
        // What Swift cannot reach of umockdev's GObject API and <linux/usbdevice_fs.h>:
        // signal connection, usbdevfs request numbers, the URB's layout. No logic.
        .target(name: "CUSBDevFS", dependencies: ["CUMockdev"]),
        // What `hapbridge emulate` preloads in front of umockdev's library: a bind() that
        // gives each process's libudev monitor a uevent socket name of its own, so clients
        // started at the same moment all enumerate (uevent_socket.c says why).
        .target(name: "EmulationPreload"),
        // The client of `hapbridge emulate bridge`'s control socket (and the socket helpers
        // its server shares): what a COMMAND under the emulation unplugs and replugs with,
        // without linking umockdev.
        .target(name: "EmulationControl", swiftSettings: strict),
        // `hapbridge emulate`: emulated USB devices behind real libusb (umockdev + our
        // usbdevfs handler); the bridge board backed by the firmware core in real time or
        // by the firmware ELF under simavr (Firmware/sim `sim-harness --usb`); the FT232H
        // with its MPSSE engine and a DRV2605L on its I2C pins (FT232H/).
        .target(
            name: "USBEmulation",
            dependencies: [
                "CUMockdev", "CUSBDevFS", "SimulatedBoard", "BridgeProtocol", "CHapbridgeProtocol", "SimavrBridgeDevice", "RealTime", "Actuators",
                "DRV2605Model", "FileAccess", "FirmwareImage", "Flashing", "AVRBootloaders", "MPSSE", "DeviceInterface", "EmulationControl",
                "SensorModel", "Hex",
            ],
            exclude: ["README.md", "FT232H/README.md"], swiftSettings: strict),
        // What a bench does with a device, as a library: one pattern played start to end
        // (`PlaySession`: device, actuator and stored calibration, progress, stop reason,
        // record, acceleration), and the procedures on a board's I2C bus (`BridgeBench`,
        // calibration, diagnostics, a ROM effect; the measuring runs: resonance,
        // calibration runs, the open-loop sweep, whose figures Measurements computes).
        // `play`, `calibrate`, `diagnose`, `rom`, `measure`, `sweep` and the HIL code are
        // these plus their own arguments and printing.
        .target(
            name: "Bench",
            dependencies: [
                "DeviceInterface", "BridgeLink", "Devices", "HapticEngine", "HapticCompilation", "DRV2605", "Actuators", "Haptics", "FileAccess", "JSON",
                "Measurements", "Hex", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // Bench measurements as pure analysis over samples and numbers: an acceleration
        // recording and the stamped drive (peak, RMS, rise, stop, lag), a sweep's response
        // (f0, Q, the −3 dB points), each a named value with its unit. Nothing that opens
        // or drives a device: the procedures that measure with one are Bench's.
        .target(name: "Measurements", dependencies: ["AccelerationData"], swiftSettings: strict),
        // libyaml from Debian's libyaml-dev: the event parser under HIL's bounded YAML
        // composer (depth, aliases' written-out size, one document, no tags).
        .systemLibrary(name: "CLibYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        // Hardware-in-the-loop runs: the bench file and test scripts (YAML through libyaml
        // under limits, strict keys, file:line: key in errors, checked against the bench
        // before anything runs), limits and verdicts, the runner (timeouts, retries,
        // repeats, a vanished device, the per-board lock) and its reports (JSON, JUnit XML).
        .target(
            name: "HIL",
            dependencies: [
                "Bench", "Measurements", "Devices", "DeviceInterface", "Actuators", "Haptics", "HapticEngine", "DRV2605", "FileAccess", "JSON",
                "Flashing", "FirmwareImage", "EmulationControl", "CLibYAML", "Hex", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // The umbrella a user imports: re-exports devices, profiles, patterns, the engine
        // and the bench, and adds the feedback generators named as UIKit names them.
        .target(
            name: "Hapbridge",
            dependencies: ["Bench", "Actuators", "BridgeLink", "DeviceInterface", "Devices", "HapticEngine", "Haptics", "SimulatedBridgeDevice"],
            swiftSettings: strict),
        // A bench fixture for Swift Testing (a trait, a scoped helper) and the HIL steps as
        // async functions, on the HIL runner's own step code and records.
        .target(name: "HapbridgeTesting", dependencies: ["HIL", "Measurements", "Bench", "FileAccess"], swiftSettings: strict),
        // The CLI's commands, as a library so tests can drive them.
        .target(
            name: "HapbridgeCLI",
            dependencies: [
                "JSON", "Haptics", "Plot", "DRV2605", "Actuators", "BridgeProtocol", "BridgeLink", "DeviceInterface",
                "HapticCompilation", "HapticEngine", "SimulatedBridgeDevice", "SimulatedBoard", "Devices", "USBBridge",
                "USBEmulation", "SimavrBridgeDevice", "FileAccess", "RealTime", "Bench", "FirmwareImage", "Flashing", "Measurements", "HIL", "HostedBoard",
                "EmulationControl", "SensorModel", "AVRBootloaders",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "Hex", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .executableTarget(name: "hapbridge", dependencies: ["HapbridgeCLI"], swiftSettings: strict),
        // The product's stack (Devices → USB transport → engine) as a long-lived client
        // of an emulated board: what USBEmulationTests runs to see unplug and re-plug.
        .executableTarget(
            name: "usb-engine-probe", dependencies: ["Devices", "DeviceInterface", "HapticEngine", "Haptics", "Actuators"],
            path: "Tests/USBEngineProbe", swiftSettings: strict),
        // `HapticEngine.open(address:)` from the Hapbridge product as COMMAND under `hapbridge
        // emulate` (or alone on `sim`): what OneDoorCalibrationTests compares with `play`.
        .executableTarget(
            name: "engine-open-probe", dependencies: ["Hapbridge"], path: "Tests/EngineOpenProbe", swiftSettings: strict),
        // A minimal libusb client of the bridge board: what USBEmulationTests runs as
        // COMMAND under `hapbridge emulate` (HELLO, unplug/replug, round-trip figures).
        .executableTarget(
            name: "usb-emulation-probe", dependencies: ["CHapbridgeProtocol"], path: "Tests/USBEmulationProbe",
            linkerSettings: [.linkedLibrary("usb-1.0")]),
        // The product's own path to a bridge board (DeviceCatalog, USBBridgeTransport,
        // BridgeLink), one line per step: what USBEmulationTests runs as COMMAND to
        // check hapbridge's errors against the misbehaving emulated boards.
        .executableTarget(
            name: "bridge-session-probe", dependencies: ["Devices", "BridgeLink", "DeviceInterface", "DRV2605"], path: "Tests/BridgeSessionProbe",
            swiftSettings: strict),
        // The product's Atmel DFU programmer (Flashing) as a COMMAND under `hapbridge emulate
        // dfu`: what FlashingTests runs to flash, verify and start through the emulation.
        .executableTarget(
            name: "dfu-flash-probe", dependencies: ["Flashing", "FirmwareImage", "DeviceInterface"], path: "Tests/DFUFlashProbe",
            swiftSettings: strict),
        // The product's FT232H path (libftdi, FT232HI2CBus, the DRV2605 driver) as a COMMAND
        // under `hapbridge emulate ft232h`: what FTDITests runs.
        .executableTarget(
            name: "ftdi-probe", dependencies: ["FTDIBridge", "HostedBoard", "DRV2605", "DeviceInterface", "Devices", "Actuators"], path: "Tests/FTDIProbe",
            swiftSettings: strict),
        .executableTarget(
            name: "PatternBenchmarks", dependencies: ["Haptics"], path: "Benchmarks/PatternBenchmarks",
            swiftSettings: strict),
        .executableTarget(
            name: "EngineBenchmarks", dependencies: [
                "HapticEngine", "BridgeLink", "DeviceInterface", "SimulatedBridgeDevice", "SimavrBridgeDevice", "SimulatedBoard", "BridgeProtocol", "Haptics", "Actuators",
                "Devices", "USBEmulation", "HapticCompilation", "RealTime", "HostedBoard", "FTDIBridge",
            ],
            path: "Benchmarks/EngineBenchmarks",
            // Run by FT232HTiming under `hapbridge emulate ft232h` (pyftdi side by side).
            exclude: ["pyftdi_events.py"], swiftSettings: strict),
        .testTarget(name: "JSONTests", dependencies: ["JSON"], swiftSettings: strict),
        .testTarget(name: "HexTests", dependencies: ["Hex"], swiftSettings: strict),
        .testTarget(name: "FileAccessTests", dependencies: ["FileAccess"], swiftSettings: strict),
        // Helpers several test targets share (a seeded generator); no product code.
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "HapticsTests", dependencies: ["Haptics", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "PlotTests", dependencies: ["Plot"], swiftSettings: strict),
        .testTarget(name: "ActuatorsTests", dependencies: ["Actuators"], swiftSettings: strict),
        .testTarget(name: "DRV2605Tests", dependencies: ["DRV2605", "DRV2605Model", "DeviceInterface", "Actuators"], swiftSettings: strict),
        .testTarget(name: "SensorModelTests", dependencies: ["SensorModel", "DeviceInterface"], swiftSettings: strict),
        .testTarget(name: "DRV2605ModelTests", dependencies: ["DRV2605Model", "DRV2605", "DeviceInterface", "Actuators", "CHapbridgeProtocol"], swiftSettings: strict),
        .testTarget(
            name: "HapticCompilationTests", dependencies: ["HapticCompilation", "Haptics", "DRV2605", "DRV2605Model", "Actuators"],
            swiftSettings: strict),
        .testTarget(
            name: "HapticEngineTests",
            dependencies: ["HapticEngine", "BridgeLink", "RealTime", "SimulatedBridgeDevice", "SimulatedBoard", "HapticCompilation", "Haptics", "DRV2605", "DRV2605Model", "Actuators", "BridgeProtocol"],
            swiftSettings: strict),
        .testTarget(
            name: "SimavrBridgeDeviceTests",
            dependencies: [
                "SimavrBridgeDevice", "BridgeLink", "DeviceInterface", "HapticEngine", "BridgeProtocol", "HapticCompilation", "Haptics", "DRV2605", "Actuators",
                "DRV2605Model", "SimulatedBoard", "SimulatedBridgeDevice", "SensorModel",
            ],
            swiftSettings: strict),
        // What a user's package gets from `import Hapbridge`: the play session and the
        // feedback generators, on the simulated board.
        .testTarget(name: "HapbridgeTests", dependencies: ["Hapbridge", "HapticCompilation"], swiftSettings: strict),
        // The board link against the simulated board and on its own values (clock,
        // ledger, untimed queue).
        .testTarget(
            name: "BridgeLinkTests",
            dependencies: [
                "BridgeLink", "Devices", "DeviceInterface", "BridgeProtocol", "DRV2605", "Actuators", "SimulatedBridgeDevice", "SimulatedBoard",
                "HapticEngine", "Haptics", "SensorModel",
            ],
            swiftSettings: strict),
        // Each measurement on synthetic traces and on the simulated actuator against its model
        // (Bench's measuring runs among them: resonance, calibration runs, the sweep).
        .testTarget(
            name: "MeasurementsTests",
            dependencies: [
                "Measurements", "Bench", "Devices", "DeviceInterface", "Actuators", "DRV2605", "DRV2605Model", "Haptics", "HapticEngine", "HapticCompilation",
                "SimulatedBridgeDevice", "JSON",
            ],
            swiftSettings: strict),
        // The bench file and script formats, limits and verdicts, and `hapbridge run` on
        // Examples/hil through the built executable (JSON record, JUnit XML), on sim and on
        // a bridge board under `hapbridge emulate bridge` (flash, unplug, replug).
        .testTarget(name: "HILTests", dependencies: ["HIL", "Measurements", "Bench", "Devices", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "HapbridgeCLITests",
            dependencies: [
                "HapbridgeCLI", "TestSupport", "HostedBoard", "FileAccess", "Actuators", "BridgeLink", "DRV2605", "Devices", "HapticEngine", "Haptics", "Plot",
                "SimulatedBoard", "SimulatedBridgeDevice", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        // Runs the built `hapbridge emulate` with lsusb and usb-emulation-probe as COMMAND.
        .testTarget(
            name: "USBEmulationTests",
            dependencies: ["USBEmulation", "BridgeProtocol", "CHapbridgeProtocol", "SimavrBridgeDevice", "DRV2605", "TestSupport", "SimulatedBoard", "FirmwareImage", "Hex"],
            swiftSettings: strict),
        // Image loading and checks, the flash memory model, the flash plan (no device).
        .testTarget(name: "FlashingTests", dependencies: ["FirmwareImage", "Flashing", "USBEmulation", "AVRBootloaders", "TestSupport"], swiftSettings: strict),
        // The FT232H path through libftdi and pyftdi against `hapbridge emulate ft232h`
        // (ftdi-probe and python3 as COMMAND), and the MPSSE clock's arithmetic.
        .testTarget(
            name: "FTDITests", dependencies: ["MPSSE", "FTDIBridge", "DeviceInterface", "USBEmulation", "DRV2605Model", "HostedBoard", "TestSupport"],
            exclude: ["pyftdi_drv2605.py"], swiftSettings: strict),
        .testTarget(name: "BridgeProtocolTests", dependencies: ["BridgeProtocol"], swiftSettings: strict),
        .testTarget(name: "DeviceInterfaceTests", dependencies: ["DeviceInterface", "BridgeProtocol"], swiftSettings: strict),
        .testTarget(name: "RealTimeTests", dependencies: ["RealTime"], swiftSettings: strict),
        .testTarget(
            name: "DevicesTests", dependencies: ["Devices", "BridgeLink", "DeviceInterface", "BridgeProtocol", "Actuators", "DRV2605", "USBBridge", "HostedBoard"], swiftSettings: strict),
        .testTarget(
            name: "SimulatedBoardTests",
            dependencies: ["SimulatedBoard", "BridgeProtocol", "DeviceInterface", "DRV2605", "DRV2605Model", "Actuators", "TestSupport"],
            swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6],
    // The firmware core is C11 (Firmware/Makefile builds it with -std=c11); the host
    // build uses the same dialect so it cannot drift into extensions the AVR build lacks.
    cLanguageStandard: .c11
)
