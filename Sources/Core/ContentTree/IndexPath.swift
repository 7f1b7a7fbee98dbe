/// The address of a tree node as a head unit sees it (S20): child positions from the root; empty is the root.
///
/// Named after MPPlayableContentManager's index paths. Files that also import Foundation must write
/// `ContentTree.IndexPath`, since Foundation has a type of the same name.
public struct IndexPath: Sendable, Hashable, Codable, ExpressibleByArrayLiteral, CustomStringConvertible {
    public var indices: [Int]

    public init(_ indices: [Int] = []) { self.indices = indices }
    public init(arrayLiteral elements: Int...) { self.indices = elements }

    /// The root: the empty path.
    public static let root = IndexPath()

    public var isRoot: Bool { indices.isEmpty }
    /// The length of the path; the root is depth 0 (S22 counts depth this way).
    public var depth: Int { indices.count }
    public var last: Int? { indices.last }

    /// The path of the container holding this node; nil for the root.
    public var parent: IndexPath? { isRoot ? nil : IndexPath(Array(indices.dropLast())) }

    /// The path of this node's child at `index`.
    public func appending(_ index: Int) -> IndexPath { IndexPath(indices + [index]) }

    /// The topic suffix form, "0/2/5" (empty for the root).
    public var description: String { indices.map(String.init).joined(separator: "/") }

    public init(from decoder: any Decoder) throws {
        indices = try decoder.singleValueContainer().decode([Int].self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(indices)
    }
}
