import Foundation
import Testing

/// The docs describe the house as built: every module under `Sources/` has its row in
/// docs/ARCHITECTURE.md's module table and its line in the README's layout, so a module
/// added without them fails here rather than going unmentioned.
@Suite struct DocumentedModulesTests {
    static func modules() throws -> [String] {
        let sources = Hapbridge.repository.appendingPathComponent("Sources")
        return try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: sources.appendingPathComponent(name).path, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }.sorted()
    }

    static func text(_ relative: String) throws -> String {
        try String(contentsOf: Hapbridge.repository.appendingPathComponent(relative), encoding: .utf8)
    }

    /// The module names a table row's first cell gives in backticks ("| `CLibFTDI`, `LibFTDI` | …").
    static func namedInFirstCells(of table: Substring) -> Set<String> {
        var names = Set<String>()
        for row in table.split(separator: "\n") where row.hasPrefix("|") {
            let cells = row.split(separator: "|", omittingEmptySubsequences: false)
            guard cells.count > 2 else { continue }
            let parts = cells[1].split(separator: "`", omittingEmptySubsequences: false)
            for (index, part) in parts.enumerated() where index % 2 == 1 { names.insert(String(part)) }
        }
        return names
    }

    @Test("Every module under Sources/ has a row in ARCHITECTURE.md's module table")
    func everyModuleInTheArchitectureTable() throws {
        let architecture = try Self.text("docs/ARCHITECTURE.md")
        let section = try #require(
            architecture.components(separatedBy: "## The parts, module by module").dropFirst().first?
                .components(separatedBy: "\n## ").first)
        let named = Self.namedInFirstCells(of: Substring(section))
        let modules = try Self.modules()
        #expect(modules.count > 30, "Sources/ read: \(modules)")
        for module in modules {
            #expect(named.contains(module), "docs/ARCHITECTURE.md's module table has no row for Sources/\(module)")
        }
    }

    @Test("Every module under Sources/ is on a line of the README's layout")
    func everyModuleInTheReadmeLayout() throws {
        let readme = try Self.text("README.md")
        let section = try #require(readme.components(separatedBy: "## Layout").dropFirst().first?.components(separatedBy: "\n## ").first)
        // "Sources/CLibUSB, LibUSB  libusb …": the names before the description.
        var listed = Set<String>()
        for line in section.split(separator: "\n") where line.hasPrefix("Sources/") {
            // Names are the first word and every word after one ending in a comma.
            for word in line.dropFirst("Sources/".count).split(separator: " ") {
                listed.insert(String(word.hasSuffix(",") ? word.dropLast() : word))
                if !word.hasSuffix(",") { break }
            }
        }
        listed.insert("hapbridge")  // "Sources/hapbridge is its entry point", on HapbridgeCLI's line
        for module in try Self.modules() {
            #expect(listed.contains(module), "README's Layout has no line for Sources/\(module)")
        }
    }
}
