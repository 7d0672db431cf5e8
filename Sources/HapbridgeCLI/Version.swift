import BridgeProtocol
import USBBridge

/// What `hapbridge --version` says: the host's own version, the protocol it speaks and
/// the board versions it can talk to, and the USB identity it looks for.
enum HapbridgeVersion {
    /// The host software's version (this CLI and its libraries).
    static let host = "0.3.0"

    static var text: String {
        let major = HostFrameEncoder.protocolMajor, minor = HostFrameEncoder.protocolMinor
        return "hapbridge \(host)\n"
            + "bridge protocol \(major).\(minor) (talks to boards at \(major).0 through \(major).\(minor); register access needs \(major).1)\n"
            + "bridge board USB \(USBKnownIdentity.usbID(vendorID: USBIdentity.vendorID, productID: USBIdentity.productID))"
    }
}
