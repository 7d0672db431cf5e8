/// "did you mean …?" for misspelt keys and names: the known word within two edits
/// (case ignored), so `EventDurration` points at `EventDuration`.
enum Suggestion {
    static func hint(for word: String, among known: [String]) -> String {
        guard let match = closest(to: word, among: known) else { return "" }
        return " (did you mean \"\(match)\"?)"
    }

    static func closest(to word: String, among known: [String]) -> String? {
        let target = Array(word.lowercased().utf8)
        var best: (word: String, distance: Int)?
        for candidate in known where candidate != word {
            let distance = editDistance(target, Array(candidate.lowercased().utf8), limit: 2)
            if distance <= 2, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.word
    }

    /// Levenshtein distance, giving up early once it exceeds `limit`.
    static func editDistance(_ a: [UInt8], _ b: [UInt8], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...max(1, a.count) where !a.isEmpty {
            current[0] = i
            var rowMinimum = current[0]
            for j in 1...max(1, b.count) where !b.isEmpty {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                rowMinimum = min(rowMinimum, current[j])
            }
            if rowMinimum > limit { return limit + 1 }
            swap(&previous, &current)
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}
