import Foundation

/// The bench file beside Package.swift, wherever `swift test` is run from.
let benchFile = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("bench-sim.yaml").path
