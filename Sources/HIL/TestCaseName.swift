/// The name each test of a run goes by in reports that key tests by name: JUnit's
/// testcase (GitLab keys a test by its suite, classname and name and keeps one of each
/// key: `Gitlab::Ci::Reports::TestCase#key`) and the OpenMetrics `test` label (a
/// family keeps one sample per label set). The device is part of it, so one test on two
/// devices is two testcases; a test met again under the same suite on the same device
/// (a script given twice, two scripts of one suite) is told apart by its occurrence.
public struct TestCaseName: Sendable, Equatable {
    /// The test's name, with " (2)", " (3)"… for a later occurrence in the run.
    public var test: String
    /// The bench device it ran on.
    public var device: String

    /// "bring-up [dut]": the device after the name, as pytest names a parametrised case.
    public var text: String { "\(test) [\(device)]" }

    /// One name per test of `record`, in its order.
    public static func all(in record: RunRecord) -> [TestCaseName] {
        var seen: [String: Int] = [:]
        return record.tests.map { t in
            // Suite, test and device, kept apart by characters none of them is read with.
            let key = "\(t.suite)\u{0}\(t.name)\u{0}\(t.device)"
            let n = (seen[key] ?? 0) + 1
            seen[key] = n
            return TestCaseName(test: n == 1 ? t.name : "\(t.name) (\(n))", device: t.device)
        }
    }
}
