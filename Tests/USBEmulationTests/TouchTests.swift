import Foundation
import Testing

/// The 1200-baud touch: `hapbridge flash --port` on the tty of a board running an
/// Arduino sketch (`emulate caterina --sketch`: 2341:8036 on ttyACM0, which resets
/// into Caterina when its port is set to 1200 baud and closed) finds the Caterina that
/// comes up on the same USB port under a new tty and flashes it.
@Suite("flash --port on a sketch: the 1200-baud touch")
struct TouchTests {
    static var ready: Bool { FlashFromFirmwareTests.ready }

    @Test("flash --port /dev/ttyACM0 on a sketch: the touch, Caterina (2341:0036) on the same port as ttyACM1, written, verified and left",
          .enabled(if: ready, "make -C Firmware firmware"))
    func touchThenFlash() throws {
        let h = Emulate.hapbridge
        let run = try Emulate.run([h, "emulate", "caterina", "--sketch", "--", "sh", "-c", "lsusb; \(h) flash --port /dev/ttyACM0 --json; echo status=$?; lsusb"])
        #expect(run.status == 0, "\(run)")
        let lines = run.output.split(separator: "\n").map(String.init)
        let report = lines.first { $0.hasPrefix("{") }.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(report?["ok"] as? Bool == true, "\(run)")
        #expect(report?["entry"] as? String == "1200-baud touch", "\(run)")
        #expect(report?["location"] as? String == "/dev/ttyACM1", "\(run)")
        #expect(lines.contains("status=0"), "\(run)")
        #expect(lines.first { $0.contains("ID 2341:") }?.contains("ID 2341:8036") == true, "the sketch first: \(run)")
        #expect(lines.last { $0.contains("ID 2341:") }?.contains("ID 2341:0036") == true, "then its bootloader: \(run)")
        #expect(run.errors.contains("left the bootloader (E)"), "\(run)")
    }

    @Test("plain flash finds the one Pro Micro running its sketch (1b4f:9206), touches its tty and flashes its Caterina (1b4f:9205) on the same port",
          .enabled(if: ready, "make -C Firmware firmware"))
    func plainFlashTouchesAProMicroFromTheShop() throws {
        let h = Emulate.hapbridge
        let run = try Emulate.run([
            h, "emulate", "caterina", "--board", "pro-micro", "--sketch", "--", "sh", "-c", "lsusb; \(h) list; \(h) flash --json; echo status=$?; lsusb",
        ])
        #expect(run.status == 0, "\(run)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("usb:1-1") && $0.contains("arduino-sketch") }, "list names the sketch: \(run)")
        let report = lines.first { $0.hasPrefix("{") }.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(report?["ok"] as? Bool == true, "\(run)")
        #expect(report?["entry"] as? String == "1200-baud touch", "\(run)")
        #expect(report?["location"] as? String == "/dev/ttyACM1", "\(run)")
        #expect(lines.contains("status=0"), "\(run)")
        #expect(lines.first { $0.contains("ID 1b4f:") }?.contains("ID 1b4f:9206") == true, "the sketch first: \(run)")
        #expect(lines.last { $0.contains("ID 1b4f:") }?.contains("ID 1b4f:9205") == true, "then its bootloader: \(run)")
    }
}
