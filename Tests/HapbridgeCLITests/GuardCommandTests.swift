import Devices
import Foundation
import HostedBoard
import Testing

@testable import HapbridgeCLI

/// `hapbridge guard SCHEME`, the one hidden subcommand that runs any hosted adapter's
/// guardian: the player renders its command line (`HostedGuardianRequest.arguments`) and
/// the command parses it, so the two ends must agree; anything else started by hand is
/// refused before it touches an adapter.
@Suite("hapbridge guard: one guardian subcommand for every hosted adapter")
struct GuardCommandTests {
    @Test("the command line a player starts each adapter's guardian with parses back to the same request, a serial that begins with '-' too")
    func requestRoundTrips() throws {
        for adapter in DeviceCatalog.hostedAdapters {
            for serial in ["FT0001", "-1.x_", nil] {
                let request = HostedGuardianRequest(scheme: adapter.scheme, player: 4242, node: "/dev/bus/usb/001/002", sclHz: 100_000, serial: serial)
                #expect(request.arguments.first == HostedGuardianRequest.subcommand)
                let parsed = try #require(try HapbridgeCommand.parseAsRoot(request.arguments) as? GuardCommand, "\(request.arguments)")
                #expect(
                    HostedGuardianRequest(scheme: parsed.scheme, player: parsed.player, node: parsed.node, sclHz: parsed.sclHz, serial: parsed.serial)
                        == request, "\(request.arguments)")
            }
        }
    }

    @Test("guard for a scheme no adapter answers to is a usage error (exit 2) naming the schemes; guard started by hand, not by its player on a socket, exits 1 saying so")
    func refusedOutsideItsPlayer() throws {
        let unknown = try Hapbridge.run(["guard", "bluetooth", "--player", "2", "--node", "/dev/null"])
        #expect(unknown.status == 2, "\(unknown.err)")
        #expect(unknown.err.contains("no hosted adapter answers to bluetooth (ftdi)"), "\(unknown.err)")
        let byHand = try Hapbridge.run(["guard", "ftdi", "--player", "2", "--node", "/dev/null", "--", "FT0001"])
        #expect(byHand.status == 1, "\(byHand.err)")
        #expect(byHand.err.contains("guard is started by the player it watches"), "\(byHand.err)")
    }
}
