/// The JSON text of a pattern file, parsed by the strict parser, with its syntax
/// errors and warnings turned into the loader's own, located by line and column
/// (a document that does not parse has no JSON paths yet).
enum PatternText {
    static func parse(
        _ bytes: [UInt8], limits: JSONParser.Limits, trailingCommas: JSONParser.TrailingCommas
    ) throws(PatternLoadError) -> (value: JSONValue, warnings: [PatternWarning]) {
        let document: JSONParser.Document
        do {
            document = try JSONParser.parse(bytes, limits: limits, trailingCommas: trailingCommas)
        } catch {
            throw PatternLoadError(path: location(error.position), rule: error.message)
        }
        let warnings = document.warnings.map { warning in
            PatternWarning(path: location(warning.position), kind: .compatibility, message: warning.message)
        }
        return (document.value, warnings)
    }

    static func location(_ position: JSONParser.Position) -> String { "(JSON \(position))" }
}
