import Testing

extension EmulatedBoards {
    /// Two open files of one node, as two processes hold it: usbfs's claims as the kernel
    /// keeps them (drivers/usb/core/devio.c), which the FT232H's guardian relies on to take
    /// the adapter from a player that is stopped while it holds it.
    @Suite
    struct ClaimTests {
        @Test(
            "A claimed interface is bound to \"usbfs\" (GETDRIVER) and EBUSY to another file; DISCONNECT_CLAIM takes it unless its flags spare usbfs, killing the first file's URB (-ENOENT), whose transfers are then EBUSY and its release EINVAL",
            arguments: Emulate.backings)
        func disconnectClaimTakesAnotherFilesInterface(_ backing: Emulate.Backing) throws {
            let run = try Emulate.bridge(backing, [], [Emulate.probe, "claims"])
            #expect(run.status == 0, "\(run)")
            let r = run.record("claims")
            #expect(r["driver_before"] == "ENODATA", "no driver before any claim: \(run)")
            #expect(r["a_claim"] == "0" && r["a_submit"] == "0", "\(run)")
            #expect(r["b_claim"] == "EBUSY" && r["driver_claimed"] == "usbfs", "\(run)")
            #expect(r["except_usbfs"] == "EBUSY" && r["if_other"] == "EBUSY", "the flags that spare usbfs: \(run)")
            #expect(r["take"] == "0", "\(run)")
            #expect(r["a_reap"] == "0" && r["a_urb_status"] == "-2", "the first file's URB killed, -ENOENT: \(run)")
            #expect(r["a_submit_after"] == "EBUSY" && r["a_release"] == "EINVAL", "\(run)")
            #expect(r["b_release"] == "0" && r["driver_released"] == "ENODATA", "\(run)")
        }
    }
}
