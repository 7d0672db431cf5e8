import FirmwareImage
import Foundation
import Glibc

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
        public init(flash: FlashMemory, identity: CaterinaEmulation.Identity = .leonardo, command: [String]) {
            self.flash = flash
            self.identity = identity
            self.command = command
        }
    }

    /// What the board saw, printed on standard error when COMMAND ends (one line).
    public static func summary(_ state: CaterinaBootloader) -> String {
        let used = state.flash.bytes[0..<state.flash.part.bootloaderStart].lastIndex { $0 != 0xFF }.map { $0 + 1 } ?? 0
        return "hapbridge emulate: caterina: \(state.commandCount) commands, application flash used to \(String(format: "0x%04X", used)), "
            + "\(state.writesRefused) page writes into the bootloader section refused, \(state.exited ? "left the bootloader (E)" : "still in the bootloader")"
    }

    public static func run(_ options: Options) throws(EmulationError) -> Int32 {
        try Preload.ensureLoaded()
        let testbed = try Testbed()
        defer { testbed.close() }
        let board = try CaterinaEmulation(testbed: testbed, identity: options.identity, flash: options.flash)
        defer { board.close() }
        let status: Int32
        switch ChildProcess.spawn(options.command) {
        case .success(let child): status = child.wait()
        case .failure(let failure):
            FileHandle.standardError.write(Data("hapbridge emulate: \(failure.message)\n".utf8))
            return failure.status
        }
        board.close()
        FileHandle.standardError.write(Data((summary(board.state) + "\n").utf8))
        return status
    }
}
