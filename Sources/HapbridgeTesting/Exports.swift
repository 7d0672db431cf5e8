// `import HapbridgeTesting` is all a user's test target needs: the bench fixture and the
// measurements (here), the step, limit and verdict types and the record's reports (HIL),
// the figures with their units (Measurements), and the sweep a `sweep` step returns
// (`BenchResult.sweep`: Bench's procedure and its result, the one type of Bench's a
// user names here, so it alone is exported).
@_exported import HIL
@_exported import Measurements
@_exported import struct Bench.FrequencySweep
