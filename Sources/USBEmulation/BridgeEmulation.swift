import FileAccess
import FirmwareImage
import Flashing
import BridgeProtocol
import CUMockdev
import Foundation
import DRV2605Model
import Hex
import SimavrBridgeDevice
import SensorModel
import SimulatedBoard
import Synchronization

/// Emulated bridge boards plugged into a umockdev testbed: each board is a device on
/// bus 1, port N (`1-N`), enumerated from its own answers and served to clients by a
/// `USBDevFSHandler`. Boards can be unplugged, plugged back and added while clients run.
///
/// Plugging is what a powered USB port does: power the board up (it boots), let the
/// kernel enumerate it (`KernelEnumeration`), then publish the node and sysfs entry
/// (the "add" uevents libusb's hotplug hears). Unplugging cuts power: transfers in
/// flight fail with -ESHUTDOWN, the entries go ("remove" uevents), and the board's
/// state is lost; plugged back, it boots afresh.
///
/// Every plug operation runs on one serial queue (control socket, signals and the
/// boards' own events all funnel through it), so the testbed changes in order.
public final class BridgeEmulation: Sendable {
    /// What runs the firmware.
    public enum Firmware: Sendable {
        /// The firmware core in process, in real time, on this board configuration,
        /// answering as the firmware of that protocol version did.
        case core(SimulatedBoard.Configuration, protocol: ProtocolVersion = .v1_1)
        /// The firmware ELF under simavr (`sim-harness --usb`), paced to real time, its
        /// TWI bus on the same chip model as the core's, with this load on its outputs,
        /// and a LIS3DH on the sled when `accelerometer` says how it is mounted (the
        /// core's is `SimulatedBoard.Configuration.accelerometer`).
        case elf(SimavrBridgeDevice.Artifacts, load: Load = .open, accelerometer: LIS3DHChip.Mounting? = nil)
        /// No hapbridge firmware: the bridge's descriptors, noise on bulk IN
        /// (`NoiseBridgeBoard`).
        case noise
    }

    /// The protocol a core board speaks: 1.1 is today's core; 1.0 is the core as
    /// firmware 0.1 answered (`LegacyProtocolFilter`).
    public enum ProtocolVersion: String, Sendable, CaseIterable {
        case v1_0 = "1.0"
        case v1_1 = "1.1"
    }

    /// One board as `list` shows it.
    public struct Board: Sendable, Equatable, CustomStringConvertible {
        /// "1-2": bus 1, port 2 (the `usb:1-2` hardware address).
        public var busPort: String
        /// The serial number the board was given (the one its EEPROM holds).
        public var serial: String
        /// Its device node while plugged in.
        public var node: String?
        /// What it reported in its serial-number string descriptor (an older firmware
        /// may not serve the EEPROM's).
        public var reportedSerial: String?
        /// "caterina" while the board is in its bootloader (`node` is then its tty).
        public var bootloader: String?
        /// `hold`: its next bootloader does not enumerate until `release`.
        public var held = false
        /// Its bootloader is held back (the board jumped; the port stays empty).
        public var bootloaderWaiting = false

        public var isPlugged: Bool { node != nil }

        public var description: String {
            var s = "\(busPort) serial=\(serial) " + (node.map { "plugged node=\($0)" } ?? "unplugged")
            if let bootloader { s += " bootloader=\(bootloader)" }
            if let r = reportedSerial, r != serial { s += " reported-serial=\(r)" }
            if bootloaderWaiting { s += " bootloader=held" } else if held { s += " held" }
            return s
        }
    }

    public let testbed: Testbed
    public let log: EmulationLog
    private let firmware: Firmware
    /// Every board's node is read-only (see `Testbed.denyWrites`).
    private let denyAccess: Bool
    private let queue = DispatchQueue(label: "hapbridge.emulation")
    private let state: Mutex<State>

    /// USB addresses are 1...127; the root hub has 1.
    static let addresses: ClosedRange<UInt8> = 2...127
    static let bus = 1

    private struct Slot {
        var port: Int
        var serial: String
        var model: (any USBDeviceModel)?
        var plugged: Plugged?
        /// The board's program flash as its bootloader sees it (bootloader section
        /// included): made the first time it enters the bootloader, kept across
        /// unplugs, written by whoever programs it.
        var flash: FlashMemory?
        /// The board's EEPROM (the part's 1 KiB): the serial record it was given
        /// (none for `UNSET`: a blank EEPROM), kept across resets and unplugs, written
        /// by its bootloader (`flash --serial`); the firmware reads its serial from it
        /// at each power-on.
        var eeprom: [UInt8]
        /// Written by a bootloader and left with 'E': the ELF backing boots `flash`'s
        /// application section, not the ELF's image; the core backing comes back as
        /// today's core (protocol 1.1) whatever it was started as.
        var flashed = false
        /// Its Caterina bootloader, on the bus in place of the firmware.
        var caterina: CaterinaEmulation?
        /// Powered up, the board starts in its bootloader: it was unplugged there
        /// with its application half written (`CaterinaBootloader.applicationChanged`).
        var bootsIntoBootloader = false
        /// A failure for its bootloader to act out (`fault`), armed until it fires.
        var fault: BootloaderFault?
        /// `hold`: after the next bootloader jump its bootloader waits for `release`.
        var held = false
        /// The board jumped while held: its bootloader enumerates on `release`.
        var bootloaderWaiting = false
    }

    private struct Plugged {
        var record: USBDeviceRecord
        var handler: USBDevFSHandler
    }

    private struct State {
        var slots: [Slot] = []
        /// Handlers stay attached to their node while a client may hold it open
        /// (detaching under an open file makes umockdev abort the client).
        var attached: [UInt8: USBDevFSHandler] = [:]
        var nextAddress: UInt8 = BridgeEmulation.addresses.lowerBound
        var closed = false
        /// The bus's root hub is in sysfs (added before the first board).
        var hasRootHub = false
        /// The next bootloader tty's number: never one used before (umockdev keeps a
        /// removed tty's pty; the kernel, too, gives a new tty while a client still
        /// holds the old one open).
        var nextTTY = 0
    }

    /// The testbed must be made first (it needs the preload, see `Preload`).
    /// `denyAccess`: every board's device node is read-only, so opening it for
    /// writing (as libusb does) fails with EACCES.
    public init(testbed: Testbed, firmware: Firmware, log: EmulationLog, denyAccess: Bool = false) {
        self.testbed = testbed
        self.firmware = firmware
        self.log = log
        self.denyAccess = denyAccess
        state = Mutex(State())
    }

    // MARK: commands (any thread; each runs on the emulation's queue)

    /// Adds a board on the next free port and plugs it in. Its serial must follow the
    /// firmware's rule and be no other board's (`duplicateSerial`).
    @discardableResult
    public func add(serial: String) throws(EmulationError) -> Board {
        try Self.validate(serial: serial)
        return try onQueue { () throws(EmulationError) -> Board in
            let added = state.withLock { s -> Result<Int, EmulationError> in
                if let other = s.slots.first(where: { $0.serial == serial }) {
                    return .failure(.invalidSerial("--serial: \(Self.duplicateSerial) (board \(Self.bus)-\(other.port) has \(serial))"))
                }
                s.slots.append(Slot(port: (s.slots.map(\.port).max() ?? 0) + 1, serial: serial, eeprom: Self.eeprom(holding: serial)))
                return .success(s.slots.count - 1)
            }
            let index = try added.get()
            do throws(EmulationError) { return try plug(index) } catch {
                state.withLock { _ = $0.slots.remove(at: index) }
                throw error
            }
        }
    }

    /// Cuts a board's power and takes it off the bus. `selector`: its bus-port name or
    /// serial number; nil for the first board.
    @discardableResult
    public func unplug(_ selector: String? = nil) throws(EmulationError) -> Board {
        try onQueue { () throws(EmulationError) -> Board in
            let index = try find(selector)
            if state.withLock({ $0.slots[index].caterina != nil }) {
                leaveBus(bootloaderOf: index, reason: "unplugged")
                return board(index)
            }
            guard state.withLock({ $0.slots[index].plugged != nil }) else {
                throw .boardState("board \(board(index).busPort) is not plugged in")
            }
            removeFromBus(index, reason: "unplugged")
            powerOff(index)
            return board(index)
        }
    }

    /// Takes a board off the bus but keeps it powered: what a host sees when a
    /// self-powered board's cable is pulled (or its hub port switched off). The firmware
    /// runs on without a host, so its own safety (the host-silence watchdog) acts, and
    /// the log keeps recording what it does to the chip.
    @discardableResult
    public func detach(_ selector: String? = nil) throws(EmulationError) -> Board {
        try onQueue { () throws(EmulationError) -> Board in
            let index = try find(selector)
            if state.withLock({ $0.slots[index].caterina != nil }) {
                // A bootloader has nothing to run without a host: as an unplug, and it
                // is still in its bootloader when it comes back.
                leaveBus(bootloaderOf: index, reason: "detached (in its bootloader)")
                state.withLock { $0.slots[index].bootsIntoBootloader = true }
                return board(index)
            }
            guard state.withLock({ $0.slots[index].plugged != nil }) else {
                throw .boardState("board \(board(index).busPort) is not plugged in")
            }
            removeFromBus(index, reason: "detached (the board keeps its power)")
            return board(index)
        }
    }

    /// Plugs an unplugged board back in: it boots afresh and enumerates (a detached
    /// one, still running, enumerates again as it is).
    @discardableResult
    public func replug(_ selector: String? = nil) throws(EmulationError) -> Board {
        try onQueue { () throws(EmulationError) -> Board in
            let index = try find(selector)
            guard state.withLock({ $0.slots[index].plugged == nil && $0.slots[index].caterina == nil }) else {
                throw .boardState("board \(board(index).busPort) is already plugged in")
            }
            let intoBootloader = state.withLock { s in
                defer { s.slots[index].bootloaderWaiting = false }
                return s.slots[index].bootsIntoBootloader || s.slots[index].bootloaderWaiting
            }
            if intoBootloader { return try enterBootloader(index) }
            return try plug(index)
        }
    }

    /// Arms a failure for the board's Caterina bootloader to act out once, at the
    /// first flash block written over `fault.address` (now, if the board is in its
    /// bootloader, else the next time it enters it).
    @discardableResult
    public func arm(_ fault: BootloaderFault, _ selector: String? = nil) throws(EmulationError) -> Board {
        try onQueue { () throws(EmulationError) -> Board in
            let index = try find(selector)
            state.withLock { s in
                if let caterina = s.slots[index].caterina { caterina.arm(fault) } else { s.slots[index].fault = fault }
            }
            return board(index)
        }
    }

    /// Freezes a board's firmware for `milliseconds` (`FreezableBoard`): no timer, no
    /// USB intake, then it runs on. A board in its bootloader, or one that cannot be
    /// frozen, is refused.
    @discardableResult
    public func stall(milliseconds: Int, _ selector: String? = nil) throws(EmulationError) -> Board {
        try onQueue { () throws(EmulationError) -> Board in
            let index = try find(selector)
            let model = state.withLock { s in s.slots[index].caterina == nil ? s.slots[index].model : nil }
            guard let board = model as? any FreezableBoard else {
                throw .boardState("board \(board(index).busPort) is not running firmware that can be stalled")
            }
            let name = self.board(index)
            var entry = EmulationLog.Entry(event: "stall", board: name.busPort, serial: name.serial)
            entry.message = "\(milliseconds) ms"
            log.record(entry)
            board.freeze(forMicroseconds: UInt64(milliseconds) * 1000)
            return name
        }
    }

    /// Holds the board's port: after its next bootloader jump the board leaves the bus
    /// as always, but its bootloader does not enumerate until `release` (a hub holding
    /// the port). For rehearsing what a host does while it waits for the bootloader.
    @discardableResult
    public func hold(_ selector: String? = nil) throws(EmulationError) -> Board {
        try onQueue { () throws(EmulationError) -> Board in
            let index = try find(selector)
            state.withLock { $0.slots[index].held = true }
            return board(index)
        }
    }

    /// Lets the port go: a bootloader held back enumerates now.
    @discardableResult
    public func release(_ selector: String? = nil) throws(EmulationError) -> Board {
        try onQueue { () throws(EmulationError) -> Board in
            let index = try find(selector)
            let waiting = state.withLock { s in
                defer {
                    s.slots[index].held = false
                    s.slots[index].bootloaderWaiting = false
                }
                return s.slots[index].bootloaderWaiting
            }
            return waiting ? try enterBootloader(index) : board(index)
        }
    }

    public func list() -> [Board] {
        queue.sync { state.withLock { s in s.slots.indices.map { board($0, in: s) } } }
    }

    /// Unplugs every board and stops them (harness children end). The testbed itself
    /// goes when the emulation is released.
    public func close() {
        queue.sync {
            let count = state.withLock { s in
                s.closed = true
                return s.slots.count
            }
            for i in 0..<count {
                if state.withLock({ $0.slots[i].caterina != nil }) { leaveBus(bootloaderOf: i, reason: "emulation ended") }
                if state.withLock({ $0.slots[i].plugged != nil }) { removeFromBus(i, reason: "emulation ended") }
                powerOff(i)
            }
        }
    }

    // MARK: plugging (on the queue)

    private func onQueue<T>(_ body: () throws(EmulationError) -> T) throws(EmulationError) -> T {
        let result: Result<T, EmulationError> = queue.sync {
            guard !state.withLock({ $0.closed }) else { return .failure(.boardState("the emulation is shutting down")) }
            do throws(EmulationError) { return .success(try body()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    private func find(_ selector: String?) throws(EmulationError) -> Int {
        let index = state.withLock { s -> Int? in
            guard let selector else { return s.slots.isEmpty ? nil : 0 }
            return s.slots.firstIndex { "\(Self.bus)-\($0.port)" == selector || $0.serial == selector }
        }
        guard let index else { throw .noSuchBoard(selector ?? "(first)") }
        return index
    }

    private func board(_ index: Int) -> Board { state.withLock { board(index, in: $0) } }

    private func board(_ index: Int, in s: State) -> Board {
        let slot = s.slots[index]
        if let caterina = slot.caterina {
            return Board(busPort: "\(Self.bus)-\(slot.port)", serial: slot.serial, node: caterina.placement.node, bootloader: "caterina", held: slot.held)
        }
        return Board(
            busPort: "\(Self.bus)-\(slot.port)", serial: slot.serial, node: slot.plugged?.record.node,
            reportedSerial: slot.plugged?.record.description.serial, held: slot.held, bootloaderWaiting: slot.bootloaderWaiting)
    }

    /// Powers the board up (unless it runs already: a firmware that rebooted) and
    /// enumerates it onto the bus.
    private func plug(_ index: Int) throws(EmulationError) -> Board {
        try addRootHub()
        let (port, serial, existing) = state.withLock { s in (s.slots[index].port, s.slots[index].serial, s.slots[index].model) }
        let name = "\(Self.bus)-\(port)"
        let model: any USBDeviceModel
        if let existing { model = existing } else { model = try powerOn(port: port, serial: serial, name: name) }
        state.withLock { $0.slots[index].model = model }
        let address = try allocateAddress()
        let record: USBDeviceRecord
        let handler: USBDevFSHandler
        do throws(EmulationError) {
            (record, handler) = try testbed.plug(
                model, bus: Self.bus, port: port, address: address, board: name,
                attached: { handler in state.withLock { $0.attached[address] = handler } })
        } catch {
            powerOff(index)
            throw error
        }
        state.withLock { $0.slots[index].plugged = Plugged(record: record, handler: handler) }
        if denyAccess {
            // After the "add" uevent: a client opening the node the moment it hears of
            // it can still win that race.
            do throws(EmulationError) { try testbed.denyWrites(node: record.node) } catch {
                removeFromBus(index, reason: "emulation failed")
                powerOff(index)
                throw error
            }
        }
        var entry = EmulationLog.Entry(event: "plug", board: name, serial: serial)
        entry.node = record.node
        log.record(entry)
        return board(index)
    }

    /// The bus's root hub (`USBRootHubRecord`), the parent every board's syspath names:
    /// added once, before the first board, and kept for the testbed's life.
    private func addRootHub() throws(EmulationError) {
        guard !state.withLock({ $0.hasRootHub }) else { return }
        try testbed.add(record: USBRootHubRecord(bus: Self.bus).text)
        state.withLock { $0.hasRootHub = true }
    }

    /// The next USB address, round robin as Linux hands them out, skipping those whose
    /// node a client may still hold open.
    private func allocateAddress() throws(EmulationError) -> UInt8 {
        let reused = state.withLock { s -> (UInt8, USBDevFSHandler?)? in
            let count = Self.addresses.count
            // First an address never used, then one whose handler has no client left.
            for pass in 0..<2 {
                for step in 0..<count {
                    let candidate = Self.addresses.lowerBound + UInt8((Int(s.nextAddress - Self.addresses.lowerBound) + step) % count)
                    let old = s.attached[candidate]
                    guard old == nil || (pass == 1 && !(old?.hasClients ?? false)) else { continue }
                    if s.slots.contains(where: { $0.plugged?.record.address == Int(candidate) || $0.caterina?.placement.address == Int(candidate) }) {
                        continue
                    }
                    s.nextAddress = candidate == Self.addresses.upperBound ? Self.addresses.lowerBound : candidate + 1
                    s.attached[candidate] = nil
                    return (candidate, old)
                }
            }
            return nil
        }
        guard let (address, old) = reused else { throw .boardState("all 126 USB addresses are held open by clients") }
        if old != nil { testbed.detach(node: "/dev/bus/usb/\(String(format: "%03d", Self.bus))/\(String(format: "%03d", Int(address)))") }
        return address
    }

    private func powerOn(port: Int, serial given: String, name: String) throws(EmulationError) -> any USBDeviceModel {
        // The firmware reads its serial from the EEPROM at start-up: after a
        // `flash --serial` the board is known by the new one.
        let serial = state.withLock { s -> String in
            guard let i = s.slots.firstIndex(where: { $0.port == port }) else { return given }
            let read = BoardSerialNumber(readingEEPROM: s.slots[i].eeprom).text
            s.slots[i].serial = read
            return read
        }
        let events: @Sendable (BoardEvent) -> Void = { [weak self] event in self?.boardEvent(event, port: port) }
        switch firmware {
        case .core(var configuration, let version):
            // The core runs no image: once flashed, it comes back as today's firmware (the
            // image a bare `flash` writes), not as the older protocol it was started with.
            let flashed = state.withLock { s in s.slots.first { $0.port == port }?.flashed ?? false }
            // It reports the bootloader its jump leads to, as the firmware's own scan of
            // that boot section finds it (the ELF backing's harness fills its boot section
            // with a Caterina image too).
            configuration.bootloader = BootloaderKind(scanningBootSection: CaterinaBootloader.bootSection)
            return try CoreBridgeBoard(
                serial: serial, boardConfiguration: configuration, protocolVersion: flashed ? .v1_1 : version, events: events)
        case .elf(let artifacts, let load, let accelerometer):
            // After a flash, what the bootloader wrote runs.
            let application = state.withLock { s -> [UInt8]? in
                guard let slot = s.slots.first(where: { $0.port == port }), slot.flashed, let flash = slot.flash else { return nil }
                return Array(flash.bytes[0..<flash.part.bootloaderStart])
            }
            let eeprom = state.withLock { s in s.slots.first { $0.port == port }?.eeprom }
            return try ELFBridgeBoard(
                artifacts: artifacts, load: load, accelerometer: accelerometer, serial: serial, name: name, application: application,
                eeprom: eeprom, events: events)
        case .noise:
            return try NoiseBridgeBoard(serial: serial, seed: UInt64(port))
        }
    }

    private func powerOff(_ index: Int) {
        let model = state.withLock { s -> (any USBDeviceModel)? in
            defer { s.slots[index].model = nil }
            return s.slots[index].model
        }
        model?.powerOff()
    }

    /// The device leaves the bus: its transfers end with -ESHUTDOWN, its interfaces and
    /// then itself are removed with "remove" uevents (children first, as the kernel
    /// does; umockdev also needs that order to take the links away).
    private func removeFromBus(_ index: Int, reason: String) {
        let (plugged, name, serial) = state.withLock { s in
            defer { s.slots[index].plugged = nil }
            return (s.slots[index].plugged, "\(Self.bus)-\(s.slots[index].port)", s.slots[index].serial)
        }
        guard let plugged else { return }
        plugged.handler.disconnect()
        for path in plugged.record.interfaceSyspaths.reversed() {
            testbed.uevent(path, "remove")
            testbed.remove(path)
        }
        testbed.uevent(plugged.record.syspath, "remove")
        testbed.remove(plugged.record.syspath)
        var entry = EmulationLog.Entry(event: "unplug", board: name, serial: serial)
        entry.node = plugged.record.node
        entry.reason = reason
        log.record(entry)
    }

    // MARK: the bootloader (on the queue)

    /// The board's Caterina takes its port: what a Pro Micro does after the firmware's
    /// bootloader jump (or a double tap of RST). Its flash holds what the board runs:
    /// the ELF's image under the ELF backing, the firmware this hapbridge carries
    /// under the core backing (erased where there is none), then whatever was written.
    private func enterBootloader(_ index: Int) throws(EmulationError) -> Board {
        try addRootHub()
        let (port, serial) = state.withLock { s in (s.slots[index].port, s.slots[index].serial) }
        let kept = state.withLock { $0.slots[index].flash }
        let flash: FlashMemory
        if let kept { flash = kept } else { flash = try initialFlash() }
        let address = try allocateAddress()
        let name = "\(Self.bus)-\(port)"
        let tty = state.withLock { s in
            defer { s.nextTTY += 1 }
            return "ttyACM\(s.nextTTY)"
        }
        let placement = CaterinaEmulation.Placement(bus: Self.bus, port: port, address: Int(address), tty: tty)
        let fault = state.withLock { s in
            defer { s.slots[index].fault = nil }
            return s.slots[index].fault
        }
        let eeprom = state.withLock { $0.slots[index].eeprom }
        let caterina = try CaterinaEmulation(
            testbed: testbed, identity: .proMicroCaterina, flash: flash, eeprom: eeprom, placement: placement, fault: fault, addsRootHub: false,
            events: { [weak self] event in self?.bootloaderEvent(event, port: port) })
        state.withLock { s in
            s.slots[index].flash = flash
            s.slots[index].caterina = caterina
            s.slots[index].bootsIntoBootloader = false
        }
        var entry = EmulationLog.Entry(event: "bootloader", board: name, serial: serial)
        entry.node = placement.node
        log.record(entry)
        return board(index)
    }

    /// The bootloader leaves the bus; the flash keeps what it holds. Whether the board
    /// comes back in it: an unplug with the application half written does.
    private func leaveBus(bootloaderOf index: Int, reason: String) {
        let (caterina, name, serial) = state.withLock { s in
            defer { s.slots[index].caterina = nil }
            return (s.slots[index].caterina, "\(Self.bus)-\(s.slots[index].port)", s.slots[index].serial)
        }
        guard let caterina else { return }
        caterina.unplug()
        let after = caterina.state
        state.withLock { s in
            s.slots[index].flash = after.flash
            s.slots[index].eeprom = after.eeprom
            s.slots[index].bootsIntoBootloader = after.applicationChanged
        }
        var entry = EmulationLog.Entry(event: "unplug", board: name, serial: serial)
        entry.node = caterina.placement.node
        entry.reason = reason
        log.record(entry)
    }

    private func bootloaderEvent(_ event: CaterinaEmulation.Event, port: Int) {
        queue.async { [self] in
            guard let i = index(port: port), !state.withLock({ $0.closed }), state.withLock({ $0.slots[i].caterina != nil }) else { return }
            let (name, serial) = state.withLock { s in ("\(Self.bus)-\(port)", s.slots[i].serial) }
            switch event {
            case .exited:
                let written = state.withLock { $0.slots[i].caterina?.state.applicationWritten ?? false }
                leaveBus(bootloaderOf: i, reason: "left the bootloader (E)")
                // Caterina starts an application only where there is one (word 0 programmed).
                let blank = state.withLock { s in s.slots[i].flash.map { $0.bytes[0] == 0xFF && $0.bytes[1] == 0xFF } ?? true }
                do throws(EmulationError) {
                    if blank {
                        report("no application at 0x0000: the board stays in its bootloader", board: name, serial: serial)
                        _ = try enterBootloader(i)
                    } else {
                        if written { state.withLock { $0.slots[i].flashed = true } }
                        _ = try plug(i)
                    }
                } catch { report(error.description, board: name, serial: serial) }
            case .fault(let fault):
                var e = EmulationLog.Entry(event: "fault", board: name, serial: serial)
                e.reason = fault.description
                log.record(e)
                if fault.kind == .unplug {
                    leaveBus(bootloaderOf: i, reason: "unplugged (\(fault))")
                    state.withLock { $0.slots[i].bootsIntoBootloader = true }
                }
            }
        }
    }

    /// A board's EEPROM as the emulation gives it: erased (0xFF, as a part ships), with
    /// the serial record (protocol.h's layout, `BoardSerialRecord`) at its address
    /// unless the serial is `UNSET`, which a board with no record reports.
    static func eeprom(holding serial: String) -> [UInt8] {
        var eeprom = [UInt8](repeating: 0xFF, count: AVRPart.atmega32u4.eepromBytes)
        guard serial != BoardSerialNumber.unset.text, let number = try? BoardSerialNumber(serial) else { return eeprom }
        for (i, b) in BoardSerialRecord(number).bytes.enumerated() { eeprom[BoardSerialRecord.eepromAddress + i] = b }
        return eeprom
    }

    /// The flash a board's bootloader finds the first time: its bootloader section
    /// (Caterina's, as a Pro Micro ships), the image the backing runs.
    private func initialFlash() throws(EmulationError) -> FlashMemory {
        var flash = FlashMemory(part: .atmega32u4, bootloader: CaterinaBootloader.bootSection)
        let image: String?
        switch firmware {
        case .elf(let artifacts, _, _): image = artifacts.firmware
        case .core: image = try? CarriedFirmware.locate(build: false)
        case .noise: image = nil
        }
        if let image { try CaterinaEmulation.preload(&flash, imageFile: image) }
        return flash
    }

    // MARK: what the boards report

    private func boardEvent(_ event: BoardEvent, port: Int) {
        let name = "\(Self.bus)-\(port)"
        let serial = state.withLock { s in s.slots.first { $0.port == port }?.serial }
        switch event {
        case .i2c(let boardUS, let stopUS, let hostUS, let isWrite, let address, let bytes, let ack):
            guard log.isEnabled else { return }
            var e = EmulationLog.Entry(event: "i2c", board: name, serial: serial, hostMicroseconds: hostUS)
            e.board_us = boardUS
            e.board_stop_us = stopUS
            e.op = isWrite ? "w" : "r"
            e.address = Int(address)
            e.bytes = Hex.bytes(bytes, case: .lower)
            e.ack = ack
            log.record(e)
        case .bulkOut(let boardUS, let hostUS, let submittedUS, let bytes):
            guard log.isEnabled else { return }
            var e = EmulationLog.Entry(event: "bulk_out", board: name, serial: serial, hostMicroseconds: hostUS)
            e.board_us = boardUS
            e.submit_us = submittedUS
            e.bytes = Hex.bytes(bytes, case: .lower)
            log.record(e)
        case .left(let reason):
            // The firmware's bootloader jump: off the bus, and its Caterina on the port.
            queue.async { [self] in
                guard let i = index(port: port), !state.withLock({ $0.closed || $0.slots[i].caterina != nil }) else { return }
                removeFromBus(i, reason: reason)
                powerOff(i)
                // Held: the port stays empty until `release`.
                let held = state.withLock { s in
                    if s.slots[i].held { s.slots[i].bootloaderWaiting = true }
                    return s.slots[i].held
                }
                if held {
                    var e = EmulationLog.Entry(event: "held", board: name, serial: serial)
                    e.reason = "its bootloader enumerates on release"
                    log.record(e)
                    return
                }
                do throws(EmulationError) { _ = try enterBootloader(i) } catch { report(error.description, board: name, serial: serial) }
            }
        case .returned(let reason):
            queue.async { [self] in
                // Not from a board already powered off for its bootloader (the ELF's jump
                // lands in the harness's boot stub, which restarts the firmware).
                guard let i = index(port: port), state.withLock({ !$0.closed && $0.slots[i].caterina == nil && $0.slots[i].model != nil }) else {
                    return
                }
                var e = EmulationLog.Entry(event: "reboot", board: name, serial: serial)
                e.reason = reason
                log.record(e)
                if state.withLock({ $0.slots[i].plugged != nil }) { removeFromBus(i, reason: reason) }
                do throws(EmulationError) { _ = try plug(i) } catch { report(error.description, board: name, serial: serial) }
            }
        case .failed(let message):
            // While the board powers up, `plug` throws what went wrong (the set-up
            // error, or the control command's); said once, there.
            let poweringUp = state.withLock { s in s.slots.first { $0.port == port }.map { $0.model == nil } ?? false }
            if !poweringUp { report(message, board: name, serial: serial) }
            queue.async { [self] in
                guard let i = index(port: port) else { return }
                removeFromBus(i, reason: "failed")
                powerOff(i)
            }
        }
    }

    private func index(port: Int) -> Int? { state.withLock { s in s.slots.firstIndex { $0.port == port } } }

    private func report(_ message: String, board: String, serial: String?) {
        var e = EmulationLog.Entry(event: "error", board: board, serial: serial)
        e.message = message
        log.record(e)
        FileHandle.standardError.write(Data("hapbridge emulate: board \(board): \(message)\n".utf8))
    }

    // MARK: serial numbers

    /// The rule the firmware holds a serial number to (`BoardSerialNumber`,
    /// `hb_serial_char_ok`): the EEPROM record takes 1 to 20 of [0-9A-Za-z._-]. The
    /// message echoes the serial escaped and cut (`TerminalText.echo`): it may come
    /// from a control-socket client.
    public static func validate(serial: String) throws(EmulationError) {
        do { _ = try BoardSerialNumber(serial) } catch {
            let shown: BoardSerialNumberError =
                switch error {
                case .empty: .empty
                case .tooLong(_, let length): .tooLong(TerminalText.echo(serial), length: length)
                case .character(_, let offset): .character(TerminalText.echo(serial), offset: offset)
                }
            throw .invalidSerial(shown.description)
        }
    }

    /// Why two boards cannot share a serial number, in the words of both the command
    /// line's `--serial` and the control socket's `add --serial`: libusb tells boards
    /// apart by it (`usb:serial=S`), and the firmware's EEPROM record is the board's
    /// identity.
    public static let duplicateSerial = "each board needs its own serial number"

    /// The serial a board on port n gets when none is given: "0001", "0002", ...,
    /// or the next number free when that one is taken.
    public static func defaultSerial(port n: Int, taken: Set<String>) -> String {
        var n = n
        while taken.contains(String(format: "%04d", n)) { n += 1 }
        return String(format: "%04d", n)
    }

    /// One serial per board, ports 1...count: those given, then defaults.
    public static func serials(given: [String], count: Int) -> [String] {
        var all = given
        while all.count < count { all.append(defaultSerial(port: all.count + 1, taken: Set(all))) }
        return all
    }
}
