// `import HapbridgeTesting` is all a user's test target needs: the bench fixture and the
// measurements (here), the step, limit and verdict types and the record's reports (HIL),
// and the figures with their units (Measurements).
@_exported import HIL
@_exported import Measurements
