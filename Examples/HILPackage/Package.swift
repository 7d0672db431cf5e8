// swift-tools-version:6.0
// A user's own package running HIL tests in `swift test`: one dependency, one product,
// `import HapbridgeTesting`. Here the dependency is this checkout (`../..`); in your
// package it is `.package(url: "https://github.com/<owner>/hapbridge", branch: "main")`.
import PackageDescription

let package = Package(
    name: "HILPackage",
    dependencies: [.package(name: "hapbridge", path: "../..")],
    targets: [
        .testTarget(
            name: "BenchTests",
            dependencies: [.product(name: "HapbridgeTesting", package: "hapbridge")])
    ],
    swiftLanguageModes: [.v6]
)
