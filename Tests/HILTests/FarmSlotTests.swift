import Devices
import Foundation
@testable import HIL
import Testing

/// How farm mode lays out a bench's devices before anything is opened.
@Suite("hapbridge run: farm mode's device slots")
struct FarmSlotTests {
    static func bench(_ names: [String]) throws -> BenchFile {
        try BenchFile.parse(
            "bench: slots\ndevices:\n" + names.map { "  - {name: \($0), address: sim, actuator: pmd-c10-100, tags: [farm]}\n" }.joined(),
            file: "slots.yaml")
    }

    @Test("Several devices each get a libusb context (an event thread) of their own, so one board's slow reaps never delay another's replies; one device keeps the runner's catalog")
    func eachDeviceItsOwnUSBContext() throws {
        let catalog = DeviceCatalog()
        let four = try HILRunner(bench: Self.bench(["a", "b", "c", "d"]), scripts: [], catalog: catalog).makeSlots()
        let catalogs = ["a", "b", "c", "d"].compactMap { four[$0]?.catalog }
        #expect(catalogs.count == 4)
        for (i, c) in catalogs.enumerated() {
            #expect(c !== catalog)
            #expect(c.adapterSettings == catalog.adapterSettings)
            for other in catalogs[(i + 1)...] {
                #expect(c !== other)
                // Where libusb starts at all (it needs no USB device to): distinct contexts.
                if let mine = c.usb, let theirs = other.usb { #expect(mine !== theirs) }
            }
        }
        let one = try HILRunner(bench: Self.bench(["a"]), scripts: [], catalog: catalog).makeSlots()
        #expect(one["a"]?.catalog === catalog)
    }
}
