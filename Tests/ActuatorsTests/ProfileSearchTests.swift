import Actuators
import Foundation
import Testing

/// Where a profile name is looked up, and that the file actually used is known.
@Suite struct ProfileSearchTests {
    /// A scratch tree: a "checkout" holding the shipped profiles (with the schema)
    /// and an executable, and a user's home with a project folder whose parent has
    /// its own Hardware/actuators.
    struct Tree {
        let root: URL
        var shipped: URL { root.appendingPathComponent("checkout/Hardware/actuators") }
        var executable: URL { root.appendingPathComponent("checkout/.build/release/hapbridge") }
        var parentProfiles: URL { root.appendingPathComponent("home/Hardware/actuators") }
        var project: URL { root.appendingPathComponent("home/project") }
        var environment: URL { root.appendingPathComponent("mine") }

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("profiles-\(UUID().uuidString)")
            let fm = FileManager.default
            for dir in [shipped, executable.deletingLastPathComponent(), parentProfiles, project, environment] {
                try fm.createDirectory(at: dir, withIntermediateDirectories: true)
            }
            try "{}".write(to: shipped.appendingPathComponent("actuator-profile.schema.json"), atomically: true, encoding: .utf8)
            for dir in [shipped, parentProfiles, environment] {
                let text = ProfileLoadingTests.valid.replacingOccurrences(of: "bench measurement", with: dir.path)
                try text.write(to: dir.appendingPathComponent("my-lra.json"), atomically: true, encoding: .utf8)
            }
        }

        func directories(environment variable: [String: String] = [:]) -> [String] {
            ActuatorProfileLoader.searchDirectories(environment: variable, executable: executable, currentDirectory: project.path)
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    @Test("the order: $HAPBRIDGE_ACTUATORS, the shipped profiles beside the executable, then the current directory and its parents")
    func searchOrder() throws {
        let tree = try Tree()
        defer { tree.remove() }
        #expect(tree.directories() == [tree.shipped.path, tree.parentProfiles.path])
        #expect(tree.directories(environment: ["HAPBRIDGE_ACTUATORS": tree.environment.path])
            == [tree.environment.path, tree.shipped.path, tree.parentProfiles.path])
    }

    @Test("a profile in a parent directory does not shadow the shipped one; the hidden copy is reported")
    func parentDirectoryCannotShadowTheShippedProfile() throws {
        let tree = try Tree()
        defer { tree.remove() }
        let loaded = try ActuatorProfileLoader.locate("my-lra", directories: tree.directories())
        #expect(loaded.file == tree.shipped.appendingPathComponent("my-lra.json").path)
        #expect(loaded.profile.source.document == tree.shipped.path)
        #expect(loaded.shadowed == [tree.parentProfiles.appendingPathComponent("my-lra.json").path])
    }

    @Test("$HAPBRIDGE_ACTUATORS, set on purpose, comes first, and what it hides is reported")
    func environmentComesFirst() throws {
        let tree = try Tree()
        defer { tree.remove() }
        let loaded = try ActuatorProfileLoader.locate(
            "my-lra", directories: tree.directories(environment: ["HAPBRIDGE_ACTUATORS": tree.environment.path]))
        #expect(loaded.file == tree.environment.appendingPathComponent("my-lra.json").path)
        #expect(loaded.shadowed.count == 2)
    }

    @Test("without a checkout beside the executable, the current directory and its parents are searched")
    func noShippedDirectory() throws {
        let tree = try Tree()
        defer { tree.remove() }
        let elsewhere = ActuatorProfileLoader.searchDirectories(
            environment: [:], executable: URL(fileURLWithPath: "/usr/local/bin/hapbridge"), currentDirectory: tree.project.path)
        #expect(elsewhere == [tree.parentProfiles.path])
    }
}
