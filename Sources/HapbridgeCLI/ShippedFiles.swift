import FileAccess

/// The files hapbridge's help and messages point to, named where this hapbridge has
/// them: an installed one's copies (the Debian package puts the HIL examples in
/// /usr/share/hapbridge/hil and the documents under /usr/share/doc/hapbridge by their
/// repository paths), else their repository paths, as the README names them.
enum ShippedFiles {
    /// The HIL examples, their JSON Schemas and their README (`Examples/hil`).
    static var hilExamples: String { InstalledData.directory("hil")?.path ?? "Examples/hil" }

    /// A document by its repository path (`Hardware/boards/ft232h.md`): its installed
    /// copy, or that path.
    static func document(_ path: String) -> String { InstalledData.document(path)?.path ?? path }

    /// Where the documents are, for the root command's help.
    static var documents: String {
        InstalledData.document("README.md").map { $0.deletingLastPathComponent().path } ?? "the source tree (README.md)"
    }
}
