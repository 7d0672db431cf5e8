import DeviceInterface
import Testing

extension I2CError.Kind {
    /// A kind of this test module's own, as an adapter's module would add one.
    static let arbitrationLost = I2CError.Kind("arbitrationLost")
}

@Suite("I2C errors")
struct I2CErrorTests {
    /// The texts users and tests match, word for word as they read when I2CError was an enum.
    @Test("each of the seam's kinds says what it said as an enum case, word for word")
    func messagesAreUnchanged() {
        #expect(I2CError.addressNotAcknowledged(address: 0x5A).description == "no ACK from I2C address 0x5A (chip absent, unpowered, or SDA/SCL miswired?)")
        #expect(I2CError.addressNotAcknowledged(address: 0x05).description == "no ACK from I2C address 0x05 (chip absent, unpowered, or SDA/SCL miswired?)")
        #expect(
            I2CError.addressNotAcknowledged(address: 0x19, advice: "is SDA wired to both D1 and D2?").description
                == "no ACK from I2C address 0x19 (is SDA wired to both D1 and D2?)")
        #expect(I2CError.dataNotAcknowledged(address: 0x5A, register: 0x17).description == "I2C device 0x5A did not acknowledge data for register 0x17")
        #expect(I2CError.dataNotAcknowledged(address: 0x5A, register: 0x0C).description == "I2C device 0x5A did not acknowledge data for register 0x0C")
        #expect(I2CError.adapterFailure("ftdi_read_data: usb bulk read failed").description == "I2C adapter failure: ftdi_read_data: usb bulk read failed")
        #expect(I2CError.cancelled.description == "wait cancelled")
    }

    @Test("a kind's name is stable, and the constructors put the context where a catch reads it")
    func kindNamesAndContext() {
        let kinds: [I2CError.Kind] = [.addressNotAcknowledged, .dataNotAcknowledged, .adapterFailure, .cancelled]
        #expect(kinds.map(\.name) == ["addressNotAcknowledged", "dataNotAcknowledged", "adapterFailure", "cancelled"])
        #expect(Set(kinds).count == kinds.count)
        let nack = I2CError.addressNotAcknowledged(address: 0x5A, advice: "check EN")
        #expect(nack.kind == .addressNotAcknowledged && nack.address == 0x5A && nack.register == nil && nack.advice == "check EN")
        let data = I2CError.dataNotAcknowledged(address: 0x5A, register: 0x17)
        #expect(data.kind == .dataNotAcknowledged && data.address == 0x5A && data.register == 0x17 && data.advice == nil)
        #expect(I2CError.adapterFailure("gone").detail == "gone" && I2CError.adapterFailure("gone").address == nil)
    }

    /// What makes adding a kind safe: nobody can switch over kinds exhaustively.
    @Test("a switch over an I2CError matches its kind whatever the context, and reads the context from the value")
    func switchMatchesTheKind() {
        func verdict(_ error: I2CError) -> String {
            switch error {
            case .addressNotAcknowledged: "wiring at \(error.address.map { String($0) } ?? "?")"
            case .dataNotAcknowledged: "register \(error.register.map { String($0) } ?? "?")"
            case .adapterFailure: "adapter: \(error.detail)"
            case .cancelled: "cancelled"
            default: "other"
            }
        }
        #expect(verdict(.addressNotAcknowledged(address: 0x5A)) == "wiring at 90")
        #expect(verdict(.addressNotAcknowledged(address: 0x19, advice: "x")) == "wiring at 25")
        #expect(verdict(.dataNotAcknowledged(address: 0x5A, register: 0x17)) == "register 23")
        #expect(verdict(.adapterFailure("gone")) == "adapter: gone")
        #expect(verdict(.cancelled) == "cancelled")
        #expect(verdict(I2CError(.arbitrationLost)) == "other")
        if case .adapterFailure = I2CError.adapterFailure("x") {} else { Issue.record("if case .adapterFailure did not match") }
    }

    @Test("an untyped error is caught by its kind; other errors do not match")
    func catchByKind() {
        struct Other: Error {}
        func fail(_ error: any Error) throws { throw error }
        var caught: [String] = []
        for error: any Error in [I2CError.dataNotAcknowledged(address: 0x5A, register: 1), I2CError.cancelled, Other()] {
            do { try fail(error) } catch I2CError.Kind.dataNotAcknowledged {
                caught.append("data")
            } catch I2CError.Kind.cancelled {
                caught.append("cancelled")
            } catch {
                caught.append("other")
            }
        }
        #expect(caught == ["data", "cancelled", "other"])
        #expect(!(I2CError.Kind.cancelled ~= (Other() as any Error)))
    }

    @Test("another module adds a kind of its own: it is matched in a switch, caught and described like the seam's own")
    func anotherModuleAddsAKind() {
        let error = I2CError(.arbitrationLost, address: 0x5A, register: 0x01, detail: "another master drove SDA low")
        func verdict(_ error: I2CError) -> String {
            switch error {
            case .arbitrationLost: "retry"
            case .cancelled: "cancelled"
            default: "other"
            }
        }
        #expect(verdict(error) == "retry" && verdict(.cancelled) == "cancelled" && verdict(.adapterFailure("x")) == "other")
        #expect(error.description == "I2C arbitrationLost at 0x5A register 0x01: another master drove SDA low")
        #expect(I2CError(.arbitrationLost).description == "I2C arbitrationLost")
        do { throw error } catch I2CError.Kind.arbitrationLost {} catch { Issue.record("not caught by its kind: \(error)") }
        #expect(I2CError.Kind.arbitrationLost != .adapterFailure)
    }

    @Test("errors are equal when kind and context are: what #expect(throws:) compares")
    func equality() {
        #expect(I2CError.addressNotAcknowledged(address: 0x5A) == .addressNotAcknowledged(address: 0x5A))
        #expect(I2CError.addressNotAcknowledged(address: 0x5A) != .addressNotAcknowledged(address: 0x5A, advice: "x"))
        #expect(I2CError.addressNotAcknowledged(address: 0x5A) != .addressNotAcknowledged(address: 0x19))
        #expect(I2CError.dataNotAcknowledged(address: 0x5A, register: 1) != .dataNotAcknowledged(address: 0x5A, register: 2))
        #expect(I2CError.cancelled == .cancelled && I2CError.cancelled != .adapterFailure(""))
        #expect(Set<I2CError>([.cancelled, .cancelled, .adapterFailure("x")]).count == 2)
    }
}
