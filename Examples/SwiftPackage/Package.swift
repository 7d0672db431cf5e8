// swift-tools-version:6.0
// A user's own package: one dependency, one product, `import Hapbridge`.
// Here the dependency is this checkout (`../..`); in your package it is
// `.package(url: "https://github.com/<owner>/hapbridge", branch: "main")`.
import PackageDescription

let package = Package(
    name: "HapbridgeExample",
    dependencies: [.package(name: "hapbridge", path: "../..")],
    targets: [
        .executableTarget(
            name: "HapbridgeExample",
            dependencies: [.product(name: "Hapbridge", package: "hapbridge")])
    ],
    swiftLanguageModes: [.v6]
)
