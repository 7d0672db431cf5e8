import MPSSE
import Testing

@Suite("MPSSE clock divisors")
struct MPSSEClockTests {
    @Test("400 kHz and 100 kHz I2C: divide-by-5 off, three-phase on, divisors 49 and 199")
    func i2cDivisors() {
        let fast = MPSSEClock.i2c(sclHz: 400_000)
        #expect(fast.divisor == 49 && !fast.divideBy5 && fast.threePhase)
        #expect(abs(fast.nanosecondsPerBit - 2_500) < 0.001)
        let standard = MPSSEClock.i2c(sclHz: 100_000)
        #expect(standard.divisor == 199)
        #expect(abs(standard.nanosecondsPerBit - 10_000) < 0.001)
    }

    @Test("the power-on clock is 12 MHz ÷ 2 = 6 MHz TCK (divide-by-5 on, divisor 0)")
    func powerOn() {
        #expect(MPSSEClock().tckHz == 6_000_000)
    }
}
