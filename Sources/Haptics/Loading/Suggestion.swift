/// "did you mean …?" for misspelt keys and names: the closest known word, when it
/// is close enough to be what was meant. Case is ignored and a swap of two
/// neighbouring letters counts as one edit, so `Tiem` points at `Time` and
/// `EventDurration` at `EventDuration`; a word may differ by one edit per four
/// letters (at least one, at most two), so `ab` points at nothing, not at `id`.
package enum Suggestion {
    package static func hint(for word: String, among known: [String]) -> String {
        guard let match = closest(to: word, among: known) else { return "" }
        return " (did you mean \"\(match)\"?)"
    }

    static func allowedEdits(_ length: Int) -> Int { min(2, max(1, length / 4)) }

    package static func closest(to word: String, among known: [String]) -> String? {
        // A word longer than any known one plus the edits allowed can match nothing:
        // checking first keeps a 1 MB key from costing a 1 MB distance computation.
        guard let longest = known.map(\.utf8.count).max(), word.utf8.count <= longest + 2 else { return nil }
        let target = Array(word.lowercased().utf8)
        var best: (word: String, distance: Int)?
        for candidate in known where candidate != word {
            let other = Array(candidate.lowercased().utf8)
            let limit = allowedEdits(min(target.count, other.count))
            let distance = editDistance(target, other, limit: limit)
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.word
    }

    /// Optimal string alignment distance (Levenshtein plus adjacent swaps), giving
    /// up early once every path exceeds `limit`.
    static func editDistance(_ a: [UInt8], _ b: [UInt8], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, beforePrevious[j - 2] + 1)
                }
                current[j] = value
                rowMinimum = min(rowMinimum, value)
            }
            if rowMinimum > limit { return limit + 1 }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
