/// The SVG plots `hapbridge run --plots DIR` writes, one per play, measure or sweep
/// step of each test's last attempt, and where each went: the JUnit report attaches
/// them to their testcases (`[[ATTACHMENT|path]]`).
public struct RunPlots: Sendable {
    /// The directory as given (trailing slashes dropped), so that a path relative to
    /// the CI job's directory stays relative: GitLab finds an attachment by its path
    /// among the job's artifacts, relative to `$CI_PROJECT_DIR`.
    public let directory: String
    /// Written plots: the test's index in the record → step index → path.
    public private(set) var written: [Int: [Int: String]] = [:]

    public init(directory: String) {
        var d = Substring(directory)
        while d.count > 1, d.hasSuffix("/") { d = d.dropLast() }
        self.directory = String(d)
    }

    /// `DIR/NN-test-stepM.svg`: NN the test's place in the run (from 01), the test's
    /// name with every character but letters and digits as "-", M the step's (from 1).
    public func path(testIndex: Int, test: TestResult, stepIndex: Int) -> String {
        let slug = String(test.name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" })
        let number = testIndex + 1 < 10 ? "0\(testIndex + 1)" : "\(testIndex + 1)"
        return "\(directory == "/" ? "" : directory)/\(number)-\(slug)-step\(stepIndex + 1).svg"
    }

    /// Notes a plot as written.
    public mutating func wrote(_ path: String, testIndex: Int, stepIndex: Int) {
        written[testIndex, default: [:]][stepIndex] = path
    }

    /// The plots written for a test, by step index.
    public func plots(testIndex: Int) -> [Int: String] { written[testIndex] ?? [:] }
}
