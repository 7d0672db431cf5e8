import Foundation
import FoundationXML

/// An SVG document read back as XML: its elements in document order, each with its
/// attributes and text. Reading fails unless the document is well-formed.
struct SVGElements {
    struct Element {
        var name: String
        var attributes: [String: String]
        var text = ""

        func number(_ attribute: String) -> Double? { attributes[attribute].flatMap(Double.init) }
    }

    struct NotWellFormed: Error { var reason: String }

    var elements: [Element]

    init(_ svg: String) throws {
        let collector = Collector()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = collector
        guard parser.parse() else { throw NotWellFormed(reason: String(describing: parser.parserError)) }
        elements = collector.elements
    }

    func all(_ name: String) -> [Element] { elements.filter { $0.name == name } }

    /// The plot's frame: the rectangle drawn with the frame's grey.
    var frame: (left: Double, top: Double, right: Double, bottom: Double)? {
        guard let r = all("rect").first(where: { $0.attributes["stroke"] == "#888" }),
              let x = r.number("x"), let y = r.number("y"), let w = r.number("width"), let h = r.number("height") else { return nil }
        return (x, y, x + w, y + h)
    }

    /// The points of a path's `d`, per subpath (each starts at an M).
    static func subpaths(_ d: String) -> [[(x: Double, y: Double)]] {
        d.split(separator: "M").map { part in
            part.split(whereSeparator: { $0 == " " || $0 == "L" || $0 == "Z" }).compactMap { pair in
                let xy = pair.split(separator: ",").compactMap { Double($0) }
                return xy.count == 2 ? (xy[0], xy[1]) : nil
            }
        }.filter { !$0.isEmpty }
    }

    private final class Collector: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        private var open: [Int] = []

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]) {
            open.append(elements.count)
            elements.append(Element(name: name, attributes: attributes))
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) { open.removeLast() }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let i = open.last { elements[i].text += string }
        }
    }
}
