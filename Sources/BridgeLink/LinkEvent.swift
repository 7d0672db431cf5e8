import BridgeProtocol

/// What the board or the link said that the link's owner acts on; everything else
/// (clock sync, I2C results, REPLACED, HELLO_REPLY) the link takes in itself.
public enum LinkEvent: Sendable, Equatable {
    /// The board stopped the actuator (EVENT_STOPPED) and why.
    case stopped(BoardFrame.Stopped)
    case chipStatus(BoardFrame.ChipStatus)
    /// A QUEUE_STATUS, with the lag of the command the board ran since the last one.
    case queueStatus(BoardFrame.QueueStatus, lag: Int64?)
    /// The board refused a frame; `command` is the stamped command it refused, which
    /// the link sends again (REPLACE_FROM and re-send) where it still can.
    case refused(BoardFrame.Nak, command: StampedCommand?)
    case acknowledged(BoardFrame.Ack)
    /// The link is gone (unplugged, USB error).
    case disconnected
    /// The board is back after a disconnect or a reset: its session is gone.
    case reappeared
}

/// Where the board went after ENTER_BOOTLOADER: the same USB port (a board is the
/// socket it is plugged into, whatever it enumerates as next) and the bootloader it
/// said it has.
public struct BootloaderHandoff: Sendable, Equatable {
    /// The address the board was at (`usb:1-2`); its bootloader enumerates there.
    public var port: String?
    public var bootloader: BootloaderKind?
}
