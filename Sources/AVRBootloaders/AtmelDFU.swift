/// USB DFU 1.0's class requests, states and status codes ("Universal Serial Bus Device
/// Class Specification for Device Firmware Upgrade", 1.0), as Atmel's USB DFU
/// bootloaders use them: every request goes to interface 0 (the bootloader's only one),
/// and DNLOAD carries a FLIP command (`FLIP`).
public enum AtmelDFU {
    /// The DFU interface.
    public static let interface: UInt8 = 0

    /// bmRequestType of the class requests to the interface: OUT and IN.
    public static let requestTypeOut: UInt8 = 0x21
    public static let requestTypeIn: UInt8 = 0xA1

    /// The class requests (DFU 1.0 table 3.2).
    public enum Request: UInt8, Sendable {
        case detach = 0, download = 1, upload = 2, getStatus = 3, clearStatus = 4, getState = 5, abort = 6
    }

    /// The device states (DFU 1.0 §6.1.2), as GETSTATUS and GETSTATE report them.
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

    /// The status codes (DFU 1.0 §6.1.2), with the specification's meaning.
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

    /// GETSTATUS's answer: bStatus, bwPollTimeout (3 bytes, little-endian, ms), bState, iString.
    public static let statusLength = 6
}
