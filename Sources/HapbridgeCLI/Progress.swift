import Foundation

/// `play`'s progress on standard error. On a terminal, one line redrawn in place (a
/// carriage return and the new text), at most `redrawInterval` apart in wall-clock
/// time however fast virtual time runs; elsewhere (a log, a pipe) a plain line at
/// each tenth of the pattern, so an hour-long pattern is eleven lines, not 72,000.
struct ProgressLine {
    enum Style { case inPlace, lines }

    let style: Style
    static let redrawInterval: Duration = .milliseconds(100)
    private let now: () -> ContinuousClock.Instant
    private let write: (String) throws(StreamWriteError) -> Void
    private var lastDraw: ContinuousClock.Instant?
    private var drawnCount = 0
    /// Lines style: the next tenth (0...10) to print a line at; 11 once the end is out.
    private var nextTenth = 0

    init(
        style: Style, now: @escaping () -> ContinuousClock.Instant = { .now },
        write: @escaping (String) throws(StreamWriteError) -> Void = { (text) throws(StreamWriteError) in try Console.write(text, to: .error) }
    ) {
        self.style = style
        self.now = now
        self.write = write
    }

    /// `fraction` of the pattern has played (0...1).
    mutating func update(_ text: String, fraction: Double) throws(StreamWriteError) {
        switch style {
        case .inPlace:
            let t = now()
            if let lastDraw, t - lastDraw < Self.redrawInterval { return }
            lastDraw = t
            try redraw(text)
        case .lines:
            let tenths = fraction.isFinite ? min(10, max(0, fraction * 10)) : 0
            guard tenths >= Double(nextTenth) else { return }
            nextTenth = Int(tenths.rounded(.down)) + 1
            try line(text)
        }
    }

    /// The final state, shown unless the line at the end is out already; on a
    /// terminal the line is then ended.
    mutating func finish(_ text: String) throws(StreamWriteError) {
        switch style {
        case .inPlace:
            try redraw(text)
            try write("\n")
        case .lines:
            if nextTenth <= 10 { try line(text) }
        }
    }

    private mutating func redraw(_ text: String) throws(StreamWriteError) {
        let shown = TerminalText.safe(text)
        // Spaces wipe what a longer previous line left behind.
        try write("\r" + shown + String(repeating: " ", count: max(0, drawnCount - shown.count)))
        drawnCount = shown.count
    }

    private func line(_ text: String) throws(StreamWriteError) {
        try write(TerminalText.safe(text) + "\n")
    }
}
