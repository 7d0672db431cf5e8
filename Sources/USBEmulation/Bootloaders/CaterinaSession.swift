import AVRBootloaders
import FirmwareImage
import Foundation
import Glibc
import Hex
import Synchronization

/// `hapbridge emulate caterina -- COMMAND`: a board waiting in Caterina at
/// /dev/ttyACM0 for the whole of COMMAND's run. Re-executes under umockdev's preload
/// if needed, plugs the board, runs COMMAND with the testbed's environment and returns
/// its exit status (the conventions of `EmulationSession`: 126 / 127 when COMMAND
/// could not be run / was not found; `run` throws when the emulation cannot be set up).
public enum CaterinaSession {
    public struct Options: Sendable {
        /// The flash before COMMAND starts (an application already on it, say); erased when nil.
        public var flash: FlashMemory
        public var identity: CaterinaEmulation.Identity
        public var command: [String]
        /// The board runs a sketch first (`SketchEmulation` on ttyACM0) and enters its
        /// bootloader (ttyACM1, the same USB port) on the 1200-baud touch.
        public var sketch: Bool
        public init(flash: FlashMemory, identity: CaterinaEmulation.Identity = .leonardoCaterina, sketch: Bool = false, command: [String]) {
            self.flash = flash
            self.identity = identity
            self.sketch = sketch
            self.command = command
        }
    }

    /// What the board saw, printed on standard error when COMMAND ends (one line).
    public static func summary(_ state: CaterinaBootloader) -> String {
        let used = state.flash.bytes[0..<state.flash.part.bootloaderStart].lastIndex { $0 != 0xFF }.map { $0 + 1 } ?? 0
        return "hapbridge emulate: caterina: \(state.commandCount) commands, application flash used to \(Hex.literal(used, width: 4)), "
            + "\(state.writesRefused) page writes into the bootloader section refused, \(state.exited ? "left the bootloader (E)" : "still in the bootloader"), "
            + "flash busy \(ChipTime.seconds(state.flash.busyMicroseconds)) s"
    }

    public static func run(_ options: Options) throws(EmulationError) -> Int32 {
        try Preload.ensureLoaded()
        let testbed = try Testbed()
        defer { testbed.close() }
        let board: Mutex<CaterinaEmulation?> = Mutex(nil)
        let failure = Mutex<EmulationError?>(nil)
        var sketch: SketchEmulation?
        if options.sketch {
            // The touch: the sketch's device leaves, Caterina comes up on the same port with
            // a new address and a new tty (the old one may still be held open).
            let plugged = Mutex<SketchEmulation?>(nil)
            // The sketch of the board whose Caterina this is (a Pro Micro's or a Leonardo's).
            let sketchIdentity = BootloaderIdentity.sketches.first { $0.caterina == options.identity } ?? .leonardoSketch
            let made = try SketchEmulation(testbed: testbed, identity: sketchIdentity, placement: .init(), addsRootHub: true) {
                DispatchQueue.global().async {
                    plugged.withLock { $0 }?.unplug()
                    do throws(EmulationError) {
                        let caterina = try CaterinaEmulation(
                            testbed: testbed, identity: options.identity, flash: options.flash,
                            placement: .init(address: 3, tty: "ttyACM1"), addsRootHub: false)
                        board.withLock { $0 = caterina }
                    } catch { failure.withLock { $0 = error } }
                }
            }
            plugged.withLock { $0 = made }
            sketch = made
        } else {
            let caterina = try CaterinaEmulation(testbed: testbed, identity: options.identity, flash: options.flash)
            board.withLock { $0 = caterina }
        }
        defer {
            sketch?.unplug()
            board.withLock { $0 }?.close()
        }
        let status: Int32
        switch ChildProcess.spawn(options.command) {
        case .success(let child): status = child.wait()
        case .failure(let failure):
            FileHandle.standardError.write(Data("hapbridge emulate: \(failure.message)\n".utf8))
            return failure.status
        }
        if let error = failure.withLock({ $0 }) { FileHandle.standardError.write(Data("hapbridge emulate: \(error.description)\n".utf8)) }
        guard let caterina = board.withLock({ $0 }) else {
            FileHandle.standardError.write(Data("hapbridge emulate: caterina: the sketch was never reset into the bootloader (no 1200-baud touch)\n".utf8))
            return status
        }
        caterina.close()
        FileHandle.standardError.write(Data((summary(caterina.state) + "\n").utf8))
        return status
    }
}
