/// What one committed catalog change touched, by container, so the tree layer republishes only those
/// nodes and clears the removed ones (S27) instead of reloading everything.
public struct CatalogDiff: Sendable, Hashable {
    /// The source whose refresh produced this change; nil for store-wide changes.
    public var sourceIdentifier: String?
    /// Containers that did not exist before.
    public var addedContainers: Set<String>
    /// Containers that no longer exist: their retained nodes should be cleared.
    public var removedContainers: Set<String>
    /// Containers that still exist and whose own fields or child list (membership, order, or a child's
    /// fields) changed.
    public var changedContainers: Set<String>
    public var addedItems: Int
    public var removedItems: Int
    /// Items (containers included) that kept their identifier but changed a field.
    public var updatedItems: Int

    public init(
        sourceIdentifier: String? = nil, addedContainers: Set<String> = [], removedContainers: Set<String> = [],
        changedContainers: Set<String> = [], addedItems: Int = 0, removedItems: Int = 0, updatedItems: Int = 0
    ) {
        self.sourceIdentifier = sourceIdentifier
        self.addedContainers = addedContainers
        self.removedContainers = removedContainers
        self.changedContainers = changedContainers
        self.addedItems = addedItems
        self.removedItems = removedItems
        self.updatedItems = updatedItems
    }

    /// True when nothing visible changed (an unchanged feed, a rescan that found nothing new).
    public var isEmpty: Bool {
        addedContainers.isEmpty && removedContainers.isEmpty && changedContainers.isEmpty
            && addedItems == 0 && removedItems == 0 && updatedItems == 0
    }

    /// Containers whose node must be (re)published: added or changed.
    public var containersToPublish: Set<String> { addedContainers.union(changedContainers) }

    /// Folds a later diff into this one, for coalescing bursts of refreshes into one republish.
    public mutating func merge(_ later: CatalogDiff) {
        if sourceIdentifier != later.sourceIdentifier { sourceIdentifier = nil }
        let reAdded = removedContainers.intersection(later.addedContainers)
        removedContainers.subtract(later.addedContainers)
        addedContainers.subtract(later.removedContainers)
        changedContainers.subtract(later.removedContainers)
        addedContainers.formUnion(later.addedContainers.subtracting(reAdded))
        changedContainers.formUnion(reAdded)
        removedContainers.formUnion(later.removedContainers)
        changedContainers.formUnion(later.changedContainers.subtracting(addedContainers))
        addedItems += later.addedItems
        removedItems += later.removedItems
        updatedItems += later.updatedItems
    }
}
