/// The wire facts of Atmel's USB DFU bootloader (the ATmega32U4's factory bootloader,
/// 03EB:2FF4): USB DFU 1.0's class requests, states and status codes, and the FLIP
/// command set the bootloader takes in DNLOAD data ("AVR USB DFU Bootloader"
/// datasheet, doc7618, appendix A; what dfu-programmer 0.6.1 sends). The programmer
/// (`AtmelDFUProgrammer`) encodes with it and the emulated bootloader
/// (USBEmulation's `DFUBootloader`) decodes with it: one spelling of each number.
public enum AtmelDFU {
    /// Atmel's vendor ID and the ATmega32U4 bootloader's product ID.
    public static let vendorID: UInt16 = 0x03EB
    public static let productID: UInt16 = 0x2FF4
    /// The DFU interface (the bootloader's only one).
    public static let interface: UInt8 = 0

    /// bmRequestType of DFU class requests to the interface: OUT and IN.
    public static let requestTypeOut: UInt8 = 0x21
    public static let requestTypeIn: UInt8 = 0xA1

    /// DFU 1.0 class requests (table 3.2).
    public enum Request: UInt8, Sendable {
        case detach = 0, download = 1, upload = 2, getStatus = 3, clearStatus = 4, getState = 5, abort = 6
    }

    /// DFU 1.0 device states (section 6.1.2), as GETSTATUS and GETSTATE report them.
    public enum State: UInt8, Sendable, CustomStringConvertible {
        case appIdle = 0, appDetach = 1, idle = 2, downloadSync = 3, downloadBusy = 4, downloadIdle = 5
        case manifestSync = 6, manifest = 7, manifestWaitReset = 8, uploadIdle = 9, error = 10

        public var description: String {
            switch self {
            case .appIdle: "appIDLE"
            case .appDetach: "appDETACH"
            case .idle: "dfuIDLE"
            case .downloadSync: "dfuDNLOAD-SYNC"
            case .downloadBusy: "dfuDNBUSY"
            case .downloadIdle: "dfuDNLOAD-IDLE"
            case .manifestSync: "dfuMANIFEST-SYNC"
            case .manifest: "dfuMANIFEST"
            case .manifestWaitReset: "dfuMANIFEST-WAIT-RESET"
            case .uploadIdle: "dfuUPLOAD-IDLE"
            case .error: "dfuERROR"
            }
        }
    }

    /// DFU 1.0 status codes (section 6.1.2), with the specification's meaning.
    public enum Status: UInt8, Sendable, CustomStringConvertible {
        case ok = 0x00, errTarget = 0x01, errFile = 0x02, errWrite = 0x03, errErase = 0x04
        case errCheckErased = 0x05, errProg = 0x06, errVerify = 0x07, errAddress = 0x08, errNotDone = 0x09
        case errFirmware = 0x0A, errVendor = 0x0B, errUSBR = 0x0C, errPOR = 0x0D, errUnknown = 0x0E
        case errStalledPacket = 0x0F

        public var description: String {
            switch self {
            case .ok: "OK"
            case .errTarget: "errTARGET (the command is not for this device)"
            case .errFile: "errFILE (refused: the memory is read protected)"
            case .errWrite: "errWRITE (the memory is write protected)"
            case .errErase: "errERASE (the erase failed)"
            case .errCheckErased: "errCHECK_ERASED (the range is not blank)"
            case .errProg: "errPROG (the program memory function failed)"
            case .errVerify: "errVERIFY (the programmed memory failed verification)"
            case .errAddress: "errADDRESS (the address is out of range)"
            case .errNotDone: "errNOTDONE (unexpected end of data)"
            case .errFirmware: "errFIRMWARE (the firmware is corrupt)"
            case .errVendor: "errVENDOR"
            case .errUSBR: "errUSBR (unexpected USB reset)"
            case .errPOR: "errPOR (unexpected power-on reset)"
            case .errUnknown: "errUNKNOWN"
            case .errStalledPacket: "errSTALLEDPKT (the device stalled an unexpected request)"
            }
        }
    }

    /// GETSTATUS's 6 bytes: bStatus, bwPollTimeout (3 bytes, little-endian, ms), bState, iString.
    public static let statusLength = 6

    /// The FLIP program command's header: the 6 command bytes zero-padded to one
    /// 32-byte block, then the data, then a 16-byte DFU suffix (dfu-programmer's
    /// ATMEL_CONTROL_BLOCK_SIZE and ATMEL_FOOTER_SIZE).
    public static let programHeaderLength = 32
    public static let programSuffixLength = 16
    /// The most data one program or read command moves (dfu-programmer's
    /// ATMEL_MAX_TRANSFER_SIZE): 1 KiB.
    public static let maxTransferBytes = 1024

    /// The 8-bit parts' "read configuration" selectors (command 05): group, index.
    public enum Configuration: Sendable {
        public static let bootloaderVersion: (UInt8, UInt8) = (0x00, 0x00)
        public static let bootID1: (UInt8, UInt8) = (0x00, 0x01)
        public static let bootID2: (UInt8, UInt8) = (0x00, 0x02)
        /// The three signature bytes in memory order: manufacturer, family, product name.
        public static let signature: [(UInt8, UInt8)] = [(0x01, 0x30), (0x01, 0x31), (0x01, 0x60)]
        public static let productRevision: (UInt8, UInt8) = (0x01, 0x61)
    }

    /// FLIP commands, as the DNLOAD data that carries them.
    public enum Command {
        /// Chip erase of the application section (`04 00 FF`).
        public static let eraseAll: [UInt8] = [0x04, 0x00, 0xFF]
        /// Select the 64 KiB flash page the 16-bit addresses of later commands fall in.
        public static func selectPage(_ page: UInt8) -> [UInt8] { [0x06, 0x03, 0x00, page] }
        /// Blank check of flash `start...end` (inclusive): GETSTATUS then says OK or errCHECK_ERASED.
        public static func blankCheck(start: UInt16, end: UInt16) -> [UInt8] { [0x03, 0x01] + be16(start) + be16(end) }
        /// Read flash `start...end` (inclusive): UPLOADs then return it.
        public static func readFlash(start: UInt16, end: UInt16) -> [UInt8] { [0x03, 0x00] + be16(start) + be16(end) }
        /// Read one configuration byte (`Configuration`): GETSTATUS, then an UPLOAD of 1 byte.
        public static func readConfiguration(_ selector: (UInt8, UInt8)) -> [UInt8] { [0x05, selector.0, selector.1] }
        /// Program flash `start..<start + data.count`: header, data, suffix (one DNLOAD).
        public static func programFlash(start: UInt16, data: [UInt8]) -> [UInt8] {
            let end = UInt16(truncatingIfNeeded: Int(start) + data.count - 1)
            var header = [0x01, 0x00] + be16(start) + be16(end)
            header += [UInt8](repeating: 0, count: programHeaderLength - header.count)
            return header + data + suffix
        }
        /// Start the application from address 0 (a zero-length DNLOAD follows).
        public static let startApplication: [UInt8] = [0x04, 0x03, 0x01, 0x00, 0x00]
        /// Reset through the watchdog (a zero-length DNLOAD follows).
        public static let reset: [UInt8] = [0x04, 0x03, 0x00]

        /// The DFU suffix as dfu-programmer fills it: CRC 0 (not checked), length 16,
        /// "DFU", bcdDFU 1.10, VID, PID and bcdDevice all 0xFFFF ("any").
        static let suffix: [UInt8] = [0, 0, 0, 0, 16, 0x44, 0x46, 0x55, 0x01, 0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]

        static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    }
}
