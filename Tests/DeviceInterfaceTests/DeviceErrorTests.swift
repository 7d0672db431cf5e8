import DeviceInterface
import Testing

extension DeviceError.Kind {
    /// A kind of this test module's own, as a transport's module would add one.
    static let hubPowerOff = DeviceError.Kind("hubPowerOff")
}

@Suite("Device errors")
struct DeviceErrorTests {
    @Test("each kind says what happened in one line, naming the device and what to do")
    func messages() {
        #expect(DeviceError.disconnected.description == "the device is disconnected")
        #expect(
            DeviceError.accessDenied(device: "/dev/bus/usb/001/004 (usb:1-2)", advice: "add a udev rule").description
                == "permission denied opening /dev/bus/usb/001/004 (usb:1-2): add a udev rule")
        #expect(
            DeviceError.busy(device: "the bridge board at usb:1-2").description
                == "the bridge board at usb:1-2 is in use by another program (its interface is claimed)")
        #expect(DeviceError.notFound("no bridge board at usb:1-2 any more").description == "no bridge board at usb:1-2 any more")
        #expect(DeviceError.timeout("the board did not take the data").description == "timed out: the board did not take the data")
        #expect(DeviceError.io("bulk OUT ended with 3").description == "device I/O failed: bulk OUT ended with 3")
    }

    @Test("a kind's name is stable: what tools print and tests match")
    func kindNames() {
        let kinds: [DeviceError.Kind] = [.disconnected, .accessDenied, .busy, .notFound, .timeout, .io]
        #expect(kinds.map(\.name) == ["disconnected", "accessDenied", "busy", "notFound", "timeout", "io"])
        #expect(Set(kinds).count == kinds.count)
        #expect(DeviceError.busy(device: "x").kind == .busy && DeviceError.busy(device: "x").device == "x")
        #expect(DeviceError.accessDenied(device: "d", advice: "a").detail == "a")
    }

    /// What makes adding a kind safe: nobody can switch over kinds exhaustively, so
    /// every `switch` has a `default` already.
    @Test("a switch over a DeviceError matches its kind, whatever the context, and needs a default")
    func switchMatchesTheKind() {
        func verdict(_ error: DeviceError) -> String {
            switch error {
            case .disconnected: "gone"
            case .busy, .accessDenied: "ask the user"
            default: "other"
            }
        }
        #expect(verdict(.disconnected) == "gone")
        #expect(verdict(.busy(device: "a")) == "ask the user" && verdict(.busy(device: "b")) == "ask the user")
        #expect(verdict(.accessDenied(device: "a", advice: "b")) == "ask the user")
        #expect(verdict(.io("x")) == "other")
        if case .timeout = DeviceError.timeout("t") {} else { Issue.record("if case .timeout did not match") }
    }

    @Test("an untyped error is caught by its kind, as swift-system's Errno is; other errors do not match")
    func catchByKind() {
        struct Other: Error {}
        func fail(_ error: any Error) throws { throw error }
        var caught: [String] = []
        for error: any Error in [DeviceError.busy(device: "b"), DeviceError.timeout("t"), Other()] {
            do { try fail(error) } catch DeviceError.Kind.busy {
                caught.append("busy")
            } catch DeviceError.Kind.timeout {
                caught.append("timeout")
            } catch {
                caught.append("other")
            }
        }
        #expect(caught == ["busy", "timeout", "other"])
        #expect(!(DeviceError.Kind.disconnected ~= (Other() as any Error)))
    }

    @Test("another module adds a kind of its own: it is matched, caught and described like the seam's own")
    func anotherModuleAddsAKind() {
        let error = DeviceError(.hubPowerOff, device: "hub 1-1 port 3", detail: "the port's power was switched off")
        func verdict(_ error: DeviceError) -> String {
            switch error {
            case .hubPowerOff: "power"
            case .disconnected: "gone"
            default: "other"
            }
        }
        #expect(verdict(error) == "power" && verdict(.disconnected) == "gone")
        #expect(error.description == "hub 1-1 port 3: hubPowerOff: the port's power was switched off")
        do { throw error } catch DeviceError.Kind.hubPowerOff {} catch { Issue.record("not caught by its kind: \(error)") }
        #expect(DeviceError.Kind.hubPowerOff != .disconnected)
    }

    @Test("errors are equal when kind and context are; the context tells two of a kind apart")
    func equality() {
        #expect(DeviceError.disconnected == .disconnected)
        #expect(DeviceError.busy(device: "a") == .busy(device: "a"))
        #expect(DeviceError.busy(device: "a") != .busy(device: "b"))
        #expect(DeviceError.notFound("x") != .io("x"))
        #expect(Set<DeviceError>([.io("x"), .io("x"), .timeout("x")]).count == 2)
    }
}
