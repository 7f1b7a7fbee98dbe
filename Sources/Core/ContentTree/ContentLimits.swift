import MediaJSON

/// What a head unit allows while the vehicle moves (S22), from `P/context`: at most `itemsCount` children
/// per list and no node at depth `treeDepth` or deeper. Going deeper crashes some head units, so every
/// published node and every answer is checked against these.
public struct ContentLimits: Sendable, Hashable {
    public var isEnforced: Bool
    /// enforcedContentItemsCount: the longest list a node may show.
    public var itemsCount: Int?
    /// enforcedContentTreeDepth: nodes at this depth or deeper are neither published nor answered.
    public var treeDepth: Int?
    /// Whether the head unit can play; kept for readers, it does not change the tree.
    public var endpointAvailable: Bool

    public init(isEnforced: Bool = false, itemsCount: Int? = nil, treeDepth: Int? = nil, endpointAvailable: Bool = true) {
        self.isEnforced = isEnforced
        self.itemsCount = itemsCount
        self.treeDepth = treeDepth
        self.endpointAvailable = endpointAvailable
    }

    /// No limits: a parked car or a dashboard.
    public static let none = ContentLimits()

    /// Reads a `P/context` document; fields it lacks keep their value from `previous`.
    public init(context: JSONValue, previous: ContentLimits = .none) throws(ContentLimitsError) {
        guard let fields = context.objectValue else { throw .init("the context must be a JSON object") }
        self = previous
        if let value = fields["contentLimitsEnforced"], value != .null {
            guard let flag = value.boolValue else { throw .init("'contentLimitsEnforced' must be a boolean") }
            isEnforced = flag
        }
        if let value = fields["endpointAvailable"], value != .null {
            guard let flag = value.boolValue else { throw .init("'endpointAvailable' must be a boolean") }
            endpointAvailable = flag
        }
        itemsCount = try Self.count(fields["enforcedContentItemsCount"], "enforcedContentItemsCount", minimum: 1)
            ?? itemsCount
        treeDepth = try Self.count(fields["enforcedContentTreeDepth"], "enforcedContentTreeDepth", minimum: 1)
            ?? treeDepth
    }

    private static func count(_ value: JSONValue?, _ name: String, minimum: Int) throws(ContentLimitsError) -> Int? {
        guard let value, value != .null else { return nil }
        guard let number = value.numberValue, number == number.rounded(), number >= Double(minimum), number < 1e9 else {
            throw .init("'\(name)' must be a whole number of at least \(minimum)")
        }
        return Int(number)
    }

    /// Whether a node at `depth` may be published or answered.
    public func allowsNode(atDepth depth: Int) -> Bool {
        guard isEnforced, let treeDepth else { return true }
        return depth < treeDepth
    }

    /// The most children a node may list (nil: no limit).
    public var maximumChildren: Int? { isEnforced ? itemsCount : nil }

    /// A child count as a head unit may see it.
    public func cap(_ count: Int) -> Int { maximumChildren.map { min($0, count) } ?? count }
}

/// A context document the node could not read.
public struct ContentLimitsError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
