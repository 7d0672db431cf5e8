import FTDIBridge
import HostedBoard

extension DeviceCatalog {
    /// Every hosted adapter, by the address scheme it answers to: adding one (a CP2112)
    /// is its module and one line here (CONTRIBUTING.md, "Adding a transport").
    public static let hostedAdapters: [any HostedAdapter] = [FT232HAdapter()]
}
