/// A payload field a command reads and the kind of value it takes, declared beside the command's decoder:
/// what the fuzz test generates payloads from and what asyncapi.yaml is checked against. The decoder
/// still checks every value.
public struct CommandField: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case number, string, bool, strings
        /// An array of non-negative integers.
        case indexPath
        /// One of these strings.
        case choice([String])
        /// A number, or one of these strings (playbackRate "next", volume "up" / "down").
        case numberOr([String])
    }

    public var name: String
    public var kind: Kind

    public init(_ name: String, _ kind: Kind) {
        self.name = name
        self.kind = kind
    }

    /// A field that takes one of an enumeration's raw values.
    public static func choice<E: RawRepresentable & CaseIterable>(_ name: String, _: E.Type) -> Self where E.RawValue == String {
        .init(name, .choice(E.allCases.map(\.rawValue)))
    }
}
