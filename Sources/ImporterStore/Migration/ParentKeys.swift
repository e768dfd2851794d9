import ImporterModel

/// The steps a parent's new key asks of its children (`ModelDiff`): a child's key begins with
/// its parent's (`Relationship`), so when the parent's key gains attributes each child takes
/// their values from its parent record, found by the parent's old key (`takeParentKey`), before
/// its own new key is made. Parents come first, so a grandchild takes what its parent just took.
enum ParentKeys {
    static func link(_ steps: [MigrationStep], from registered: [EntityDescription], to model: Model) -> [MigrationStep] {
        var steps = steps
        for relationship in parentsFirst(model.relationships) {
            guard let parent = model.entity(named: relationship.parent), let child = model.entity(named: relationship.child),
                  let storedParent = ModelDiff.held(parent, in: registered, model: model),
                  let storedChild = ModelDiff.held(child, in: registered, model: model) else { continue }
            let parentNames = ModelDiff.storedNames(storedParent, parent, model: model)
            let oldKey = storedParent.uniqueKey.map { ModelDiff.renamed($0, by: parentNames) }
            let added = parent.uniqueKey.filter { !oldKey.contains($0) }
            guard !added.isEmpty, storedChild.uniqueKey.count >= oldKey.count else { continue }
            let childNames = ModelDiff.storedNames(storedChild, child, model: model)
            for name in added { requireAfterTaking(name, of: child.name, in: &steps) }
            let link = ParentKeyLink(
                parent: parent.name, attributes: added, parentColumns: oldKey,
                childColumns: storedChild.uniqueKey.prefix(oldKey.count).map { ModelDiff.renamed($0, by: childNames) },
                fills: added.map { name in child.attribute(named: name).flatMap { ModelDiff.fill(model.evolution(of: name, in: child.name), type: $0.type) } })
            steps.append(.takeParentKey(entity: child.name, link: link))
        }
        return steps
    }

    /// A required attribute the child adds for its parent's key is added optional, without its
    /// default (which only a child without a stored parent takes), and made required once taken.
    private static func requireAfterTaking(_ name: String, of child: String, in steps: inout [MigrationStep]) {
        guard let index = steps.firstIndex(where: { if case .addAttribute(child, let attribute, _) = $0 { attribute.name == name } else { false } }),
              case .addAttribute(_, var attribute, _) = steps[index] else { return }
        let required = !attribute.isOptional
        attribute.isOptional = true
        steps[index] = .addAttribute(entity: child, attribute: attribute, fill: nil)
        if required { steps.append(.changeOptionality(entity: child, attribute: name, required: true, fill: nil)) }
    }

    /// `relationships` ordered by their parent's depth (a root's first).
    private static func parentsFirst(_ relationships: [Relationship]) -> [Relationship] {
        func depth(_ entity: String, _ seen: Int = 0) -> Int {
            guard seen < relationships.count, let up = relationships.first(where: { $0.child == entity }) else { return 0 }
            return 1 + depth(up.parent, seen + 1)
        }
        return relationships.enumerated().sorted { (depth($0.element.parent), $0.offset) < (depth($1.element.parent), $1.offset) }.map(\.element)
    }
}
