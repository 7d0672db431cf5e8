import BridgeLink
import BridgeProtocol
import HapticEngine
import Testing

/// The session limits a host asks for in HELLO each come from the protocol header's
/// one definition (`HB_DEFAULT_KEEPALIVE_MS`, `HB_DEFAULT_MAX_DRIVE_MS`,
/// `HB_MAX_DRIVE_LIMIT_MS` through `HostFrameEncoder`), never a copy of its number.
@Suite struct SessionLimitDefaultsTests {
    @Test("The engine and the link offer the board's one keep-alive default")
    func oneKeepAliveDefault() {
        #expect(HostFrameEncoder.defaultKeepAliveMilliseconds == 500)
        #expect(HapticEngine.Options().keepAliveMilliseconds == HostFrameEncoder.defaultKeepAliveMilliseconds)
        #expect(BridgeLink.OpenOptions().keepAliveMilliseconds == HostFrameEncoder.defaultKeepAliveMilliseconds)
    }

    @Test("The engine asks for the longest continuous drive a board grants (30 s); a link's bench session keeps the board's default (0 in HELLO: 5 s)")
    func maxDriveDefaults() {
        #expect(HostFrameEncoder.maximumMaxDriveMilliseconds == 30_000)
        #expect(HostFrameEncoder.defaultMaxDriveMilliseconds == 5_000)
        #expect(HapticEngine.Options().maxDriveMilliseconds == HostFrameEncoder.maximumMaxDriveMilliseconds)
        #expect(BridgeLink.OpenOptions().maxDriveMilliseconds == 0)
    }
}
