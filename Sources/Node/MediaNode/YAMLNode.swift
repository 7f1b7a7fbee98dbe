import MediaJSON

/// A YAML document in the block style asyncapi.yaml is written in, with its keys in the order given: what
/// `medianode docs` writes the command channels as. Only what that document needs: mappings, sequences (at
/// their key's indentation) and scalars, a string quoted whenever a YAML 1.1 reader could take it for
/// something else (`off`, `1.0`, `{prefix}/...`, `a: b`).
indirect enum YAMLNode: Equatable {
    case scalar(JSONValue)
    case mapping([(String, YAMLNode)])
    case sequence([YAMLNode])

    static func == (lhs: YAMLNode, rhs: YAMLNode) -> Bool {
        switch (lhs, rhs) {
        case let (.scalar(a), .scalar(b)): a == b
        case let (.sequence(a), .sequence(b)): a == b
        case let (.mapping(a), .mapping(b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }

    /// A JSON value as YAML, a schema's keywords in the order people read them (its kind, then its bounds,
    /// then its description), the others sorted.
    init(_ value: JSONValue) {
        switch value {
        case let .array(elements): self = .sequence(elements.map(YAMLNode.init))
        case let .object(members):
            self = .mapping(members.keys.sorted(by: Self.readingOrder).map { ($0, YAMLNode(members[$0]!)) })
        default: self = .scalar(value)
        }
    }

    private static let leading = [
        "$ref", "type", "const", "enum", "oneOf", "items", "properties", "required", "minimum", "exclusiveMinimum",
        "maximum", "minLength", "maxLength", "pattern", "default",
    ]

    private static func readingOrder(_ a: String, _ b: String) -> Bool {
        let rank = { (key: String) in key == "description" ? leading.count : leading.firstIndex(of: key) ?? leading.count + 1 }
        return (rank(a), a) < (rank(b), b)
    }

    /// The lines of this node as the value of a mapping key at `indent` spaces (what follows "key:").
    func lines(indent: Int) -> [String] {
        let pad = String(repeating: " ", count: indent)
        switch self {
        case let .scalar(value):
            return Self.scalar(value, column: indent, continuation: indent + 2).enumerated().map { $0 == 0 ? pad + $1 : $1 }
        case let .mapping(members):
            return members.flatMap { key, node in Self.member(pad + key + ":", node, indent: indent) }
        case let .sequence(elements):
            return elements.flatMap { element -> [String] in
                switch element {
                case .scalar:
                    return Self.member(pad + "-", element, indent: indent)
                case .mapping, .sequence:
                    // The first line of the element on the dash's line, the rest under it.
                    let inner = element.lines(indent: indent + 2)
                    return [pad + "- " + inner[0].dropFirst(indent + 2)] + inner.dropFirst()
                }
            }
        }
    }

    /// `head` (a key with its colon, or a dash) followed by `node`: a scalar on the same line, a block below it.
    private static func member(_ head: String, _ node: YAMLNode, indent: Int) -> [String] {
        switch node {
        case let .scalar(value):
            let text = scalar(value, column: head.count + 1, continuation: indent + 2)
            return [head + " " + text[0]] + text.dropFirst()
        case let .mapping(members) where members.isEmpty: return [head + " {}"]
        case let .sequence(elements) where elements.isEmpty: return [head + " []"]
        case .mapping: return [head] + node.lines(indent: indent + 2)
        case .sequence: return [head] + node.lines(indent: indent)
        }
    }

    static let width = 120

    /// A scalar starting at `column`: plain when nothing can misread it, else single-quoted, folded at
    /// spaces onto lines indented by `continuation` when too long (a reader joins them with one space again).
    private static func scalar(_ value: JSONValue, column: Int, continuation: Int) -> [String] {
        switch value {
        case .null: return ["null"]
        case let .bool(flag): return [flag ? "true" : "false"]
        case let .number(number):
            return [number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : "\(number)"]
        case let .string(text):
            if isPlain(text), column + text.count <= width { return [text] }
            return folded("'" + text.replacing("'", with: "''") + "'", column: column, continuation: continuation)
        case .array, .object: return [value.jsonString]
        }
    }

    private static let misread: Set<String> = ["y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"]

    private static func isPlain(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.properties.isAlphabetic, !misread.contains(text.lowercased()),
              !text.contains(": "), !text.contains(" #"), !text.hasSuffix(":"), !text.hasSuffix(" ")
        else { return false }
        return text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F && $0 != "#" }
    }

    /// A quoted scalar broken at single spaces so no line passes `width`, the first starting at `column`, the
    /// others indented by `continuation`.
    private static func folded(_ quoted: String, column: Int, continuation: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        var start = column
        let words = quoted.split(separator: " ", omittingEmptySubsequences: false)
        // A run of spaces would lose all but one in the fold: such text stays on one line.
        guard !words.dropFirst().dropLast().contains(where: \.isEmpty) else { return [quoted] }
        for word in words {
            if !line.isEmpty, start + line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
                start = continuation
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(line)
        let pad = String(repeating: " ", count: continuation)
        return [lines[0]] + lines.dropFirst().map { pad + $0 }
    }
}
