import Foundation

/// Turns an XML store file's `<object>` elements into cache nodes: first one node per object, so
/// that relationships can name objects further down the file, then each node's values.
///
/// Everything the file says must fit the model; what does not is refused with the line it is on
/// (an unknown entity or property, an id used twice or named but missing, a value that is not of
/// its attribute's type), since loading around it would lose it at the next save.
struct XMLStoreReader {
    let store: XMLStore
    let names: XMLStoreNames
    let path: String
    /// Whether the store is being migrated to the model: objects of entities and values of
    /// properties the model no longer has are then dropped (as a lightweight migration drops
    /// them) rather than refused.
    let migrating: Bool
    /// The highest `z<number>` id in the file.
    private(set) var highestNumber: Int64?
    /// What migrating dropped, as `Entity` or `Entity.property`, each once.
    private(set) var dropped: Set<String> = []

    init(store: XMLStore, names: XMLStoreNames, path: String, migrating: Bool) {
        self.store = store
        self.names = names
        self.path = path
        self.migrating = migrating
    }

    mutating func nodes(of root: XMLTreeElement) throws -> [AtomicStoreCacheNode] {
        var byFileID: [String: AtomicStoreCacheNode] = [:]
        var objects: [(element: XMLTreeElement, node: AtomicStoreCacheNode)] = []
        for element in root.children {
            switch element.name {
            case "databaseInfo": continue
            case "object": break
            default: throw failure(element, "an element <\(element.name)> the XML store does not have")
            }
            guard let typeName = element[attribute: "type"], let entity = names.entity(named: typeName) else {
                if migrating {
                    dropped.insert(element[attribute: "type"] ?? "?")
                    continue
                }
                throw failure(element, "an object of type '\(element[attribute: "type"] ?? "")', which is no entity of the model")
            }
            guard !entity.isAbstract else { throw failure(element, "an object of the abstract entity \(entity.name)") }
            guard let fileID = element[attribute: "id"], !fileID.isEmpty else { throw failure(element, "an object without an id") }
            guard byFileID[fileID] == nil else { throw failure(element, "a second object with the id \(fileID)") }
            let reference: AnyHashable
            if let number = Self.number(fileID) {
                reference = AnyHashable(number)
                highestNumber = max(highestNumber ?? number, number)
            } else {
                reference = AnyHashable(fileID)
            }
            let node = AtomicStoreCacheNode(objectID: store.objectID(for: entity, withReferenceObject: reference))
            byFileID[fileID] = node
            objects.append((element, node))
        }
        do {
            for (element, node) in objects {
                node.propertyCache = try values(of: element, entity: node.objectID.entity, nodes: byFileID, dropped: &dropped)
            }
        } catch {
            // The nodes filled so far hold each other, and none of them reaches the store.
            for (_, node) in objects { node.releaseRelatedNodes() }
            throw error
        }
        return objects.map(\.node)
    }

    private func values(of object: XMLTreeElement, entity: EntityDescription, nodes: [String: AtomicStoreCacheNode],
                        dropped: inout Set<String>) throws -> [String: Any] {
        var cache: [String: Any] = [:]
        let objectName = "object \(object[attribute: "id"] ?? "") (\(entity.name))"
        for child in object.children {
            guard let name = child[attribute: "name"] else { throw failure(child, "\(objectName): a <\(child.name)> without a name") }
            let property = names.property(named: name, of: entity)
            switch (child.name, property) {
            case ("attribute", let attribute as AttributeDescription):
                do {
                    cache[attribute.name] = try Self.value(of: child, for: attribute)
                } catch {
                    throw failure(child, "\(objectName).\(attribute.name): \(error)")
                }
            case ("relationship", let relationship as RelationshipDescription):
                var destinations: [AtomicStoreCacheNode] = []
                for fileID in (child[attribute: "idrefs"] ?? "").split(whereSeparator: \.isWhitespace) {
                    guard let node = nodes[String(fileID)] else {
                        if migrating { continue }   // an object of an entity the migration dropped
                        throw failure(child, "\(objectName).\(relationship.name) names object \(fileID), which the file does not have")
                    }
                    if let destination = relationship.destinationEntity, !node.objectID.entity.isKind(of: destination) {
                        throw failure(child, "\(objectName).\(relationship.name) names object \(fileID), a \(node.objectID.entity.name), not a \(destination.name)")
                    }
                    destinations.append(node)
                }
                if relationship.isToMany {
                    cache[relationship.name] = relationship.isOrdered ? destinations as Any : Set(destinations) as Any
                } else if destinations.count > 1 {
                    throw failure(child, "\(objectName).\(relationship.name) is a to-one but names \(destinations.count) objects")
                } else if let destination = destinations.first {
                    cache[relationship.name] = destination
                }
            case ("attribute", _) where migrating, ("relationship", _) where migrating:
                dropped.insert("\(entity.name).\(name)")
            case ("attribute", _), ("relationship", _):
                throw failure(child, "\(objectName): the entity has no \(child.name) '\(name)'")
            default:
                throw failure(child, "\(objectName): an element <\(child.name)> the XML store does not have")
            }
        }
        return cache
    }

    /// The value of an `<attribute>` element: its text, or a composite's element `<attribute>`s.
    private static func value(of element: XMLTreeElement, for attribute: AttributeDescription) throws -> Any {
        guard let composite = attribute as? CompositeAttributeDescription else { return try XMLStoreValues.value(element.text, for: attribute) }
        var dictionary: [String: Any] = [:]
        for child in element.children {
            guard child.name == "attribute", let name = child[attribute: "name"],
                  let member = composite.elements.first(where: { $0.name == name }) else {
                throw XMLStoreError.unknownElement(name: child[attribute: "name"] ?? "<\(child.name)>", composite: composite.name)
            }
            dictionary[name] = try value(of: child, for: member)
        }
        return dictionary
    }

    /// The number of a `z<number>` id, Core Data's form.
    private static func number(_ fileID: String) -> Int64? {
        guard fileID.first == "z", let number = Int64(fileID.dropFirst()), number > 0 else { return nil }
        return number
    }

    private func failure(_ element: XMLTreeElement, _ reason: String) -> PersistenceError {
        .store(path: path, reason: "line \(element.line): \(reason)")
    }
}
