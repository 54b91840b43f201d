import Foundation
import Testing
@testable import LimelightData

/// A composite attribute's value in objects: a dictionary by key, its elements by namespaced key
/// path, changes tracked and undone as changes of the attribute, merged between contexts, and
/// wrong values reported with the entity, attribute and element named.
@Suite struct CompositeValueTests {
    @Test func valuesAreDictionariesReadAndSetByKeyAndKeyPath() throws {
        let context = try TestStack.context(model: try QuakeModel.make(), at: nil)
        try context.performAndWait {
            let quake = try context.insertNewObject(forEntityName: "Quake")
            // A new object's composite starts with its elements' defaults.
            #expect(quake.value(forKey: "magnitude") as? [String: String] == ["scale": "ML"])
            #expect(quake.value(forKey: "location") == nil)

            // Numbers are kept in their element's type: an Int given for a Double is a Double.
            quake.setValue(["richter": 5, "scale": "Mw"], forKey: "magnitude")
            let magnitude = try #require(quake.value(forKey: "magnitude") as? [String: Any])
            #expect(magnitude["richter"] as? Double == 5 && magnitude["scale"] as? String == "Mw")
            #expect(quake.value(forKeyPath: "magnitude.richter") as? Double == 5)

            quake.setValue(4.6, forKeyPath: "magnitude.richter")
            #expect(quake.value(forKeyPath: "magnitude.richter") as? Double == 4.6)
            #expect(quake.value(forKeyPath: "magnitude.scale") as? String == "Mw")
            // Nested composites through a key path, made on the way.
            quake.setValue(35.77, forKeyPath: "location.coordinate.latitude")
            #expect(quake.value(forKeyPath: "location.coordinate.latitude") as? Double == 35.77)
            #expect(quake.value(forKeyPath: "location.coordinate") as? [String: Double] == ["latitude": 35.77])
            #expect(quake.value(forKeyPath: "location.place") == nil)
            // Setting an element to nil removes it; nil and NSNull in a dictionary are no values.
            quake.setValue(nil, forKeyPath: "magnitude.scale")
            quake.setValue(["place": "Ridgecrest", "coordinate": NSNull()] as [String: Any], forKey: "location")
            #expect(quake.value(forKey: "magnitude") as? [String: Double] == ["richter": 4.6])
            #expect(quake.value(forKey: "location") as? [String: String] == ["place": "Ridgecrest"])
            quake.setValue(["place": "Ridgecrest", "coordinate": nil] as [String: Any?], forKey: "location")
            #expect(quake.value(forKey: "location") as? [String: String] == ["place": "Ridgecrest"])
            // An optional composite (or nested composite) without element values is no value, as
            // a store reads one back.
            quake.setValue(["coordinate": [String: Any]()], forKey: "location")
            #expect(quake.value(forKey: "location") == nil)
            quake.setValue(["place": "Ridgecrest"], forKey: "location")

            // Through a to-one: a report reads and sets its quake's elements.
            let report = try context.insertNewObject(forEntityName: "Report")
            report.setValue(quake, forKey: "quake")
            #expect(report.value(forKeyPath: "quake.magnitude.richter") as? Double == 4.6)
            report.setValue(5.1, forKeyPath: "quake.magnitude.richter")
            #expect(quake.value(forKeyPath: "magnitude.richter") as? Double == 5.1)
            // Through a to-many: one value per quake, as for any key path.
            #expect(quake.value(forKeyPath: "reports.quake.magnitude.richter") as? [Any] != nil)
            try context.save()
        }
    }

    @Test func changesOfElementsAreTrackedUndoneAndSaved() throws {
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: try QuakeModel.make(), at: folder.file("quakes.sqlite"))
        try context.performAndWait {
            try QuakeModel.fill(context)
            let quake = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Quake", predicate: try QueryPredicate(format: "code == 'ci1'"))).first)
            #expect(!quake.hasChanges)
            // Setting the same dictionary again is no change.
            quake.setValue(["scale": "ML", "richter": 4.6], forKey: "magnitude")
            #expect(!quake.hasChanges)

            context.undoManager?.beginGrouping()
            quake.setValue(4.7, forKeyPath: "magnitude.richter")
            context.undoManager?.endGrouping()
            #expect(quake.hasChanges && context.updatedObjects.contains(quake))
            #expect(quake.changedValues()["magnitude"] as? [String: AnyHashable] == ["richter": 4.7, "scale": "ML"])
            #expect(quake.changedValues()["code"] == nil && quake.changedValues()["location"] == nil)
            #expect(quake.committedValues(forKeys: ["magnitude"])["magnitude"] as? [String: AnyHashable] == ["richter": 4.6, "scale": "ML"])

            context.undo()
            #expect(quake.value(forKeyPath: "magnitude.richter") as? Double == 4.6)
            // Undone, the composite is its saved value again.
            #expect(quake.changedValues()["magnitude"] == nil)
            context.redo()
            #expect(quake.value(forKeyPath: "magnitude.richter") as? Double == 4.7)
            try context.save()
        }
        // Another context sees the saved element.
        let other = try TestStack.context(model: try QuakeModel.make(), at: folder.file("quakes.sqlite"))
        let reread = try other.performAndWait { try QuakeModel.codes(other, "magnitude.richter == 4.7") }
        #expect(reread == ["ci1"])
    }

    @Test func savesOfOneContextMergeIntoAnother() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: try QuakeModel.make())
        try coordinator.addPersistentStore(type: .sqlite, at: folder.file("quakes.sqlite"))
        let writer = ManagedObjectContext(concurrencyType: .privateQueue), reader = ManagedObjectContext(concurrencyType: .privateQueue)
        writer.persistentStoreCoordinator = coordinator
        reader.persistentStoreCoordinator = coordinator
        reader.automaticallyMergesChangesFromParent = true
        try writer.performAndWait { try QuakeModel.fill(writer) }
        let readersQuake = try reader.performAndWait { () throws -> ManagedObject in
            let quake = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Quake", predicate: try QueryPredicate(format: "code == 'ak2'"))).first)
            #expect(quake.value(forKeyPath: "location.coordinate.latitude") as? Double == 61.2)
            return quake
        }
        try writer.performAndWait {
            let quake = try #require(try writer.fetch(FetchRequest<ManagedObject>(entityName: "Quake", predicate: try QueryPredicate(format: "code == 'ak2'"))).first)
            quake.setValue(-149.9, forKeyPath: "location.coordinate.longitude")
            try writer.save()
        }
        reader.performAndWait {
            #expect(readersQuake.value(forKeyPath: "location.coordinate") as? [String: Double] == ["latitude": 61.2, "longitude": -149.9])
            #expect(readersQuake.value(forKeyPath: "location.place") as? String == "Anchorage")
        }
    }

    @Test func wrongValuesFailValidationNamingEntityAttributeAndElement() throws {
        let context = try TestStack.context(model: try QuakeModel.make(), at: nil)
        let failures: [String] = context.performAndWait {
            var failures: [String] = []
            func saving(_ change: (ManagedObject) -> Void) -> String {
                defer { context.rollback() }
                guard let quake = try? context.insertNewObject(forEntityName: "Quake") else { return "no object" }
                change(quake)
                do {
                    try context.save()
                    return "saved"
                } catch {
                    return "\(error)"
                }
            }
            failures.append(saving { $0.setValue(["richter": "big"], forKey: "magnitude") })
            failures.append(saving { $0.setValue(["richter": 4.0, "depth": 10], forKey: "magnitude") })
            failures.append(saving { $0.setValue(12.5, forKeyPath: "magnitude.richter") })
            failures.append(saving { $0.setValue("north", forKeyPath: "location.coordinate.latitude") })
            failures.append(saving { $0.setValue("a string", forKey: "magnitude") })
            failures.append(saving { $0.setValue(1, forKeyPath: "code.length") })
            failures.append(saving { $0.setValue(["richter": 4.0], forKey: "magnitude") })
            return failures
        }
        #expect(failures[0].contains("Quake.magnitude.richter") && failures[0].contains("expected Double, got String big"))
        #expect(failures[1].contains("Quake.magnitude.depth") && failures[1].contains("the composite magnitude has no element 'depth'"))
        #expect(failures[2].contains("Quake.magnitude.richter") && failures[2].contains("12.5 is greater than the maximum 10"))
        #expect(failures[3].contains("Quake.location.coordinate.latitude") && failures[3].contains("expected Double, got String north"))
        #expect(failures[4].contains("Quake.magnitude") && failures[4].contains("expected a dictionary of the composite's elements, got String"))
        #expect(failures[5].contains("Quake.code.length") && failures[5].contains("neither a to-one relationship nor a composite attribute"))
        #expect(failures[6] == "saved")

        // validateValue(_:forKey:) checks a composite's value the same way, before it is set.
        let checked: [String] = try context.performAndWait {
            let quake = try context.insertNewObject(forEntityName: "Quake")
            var results: [String] = []
            for value in [["richter": -1.0], ["richter": 3.0]] as [[String: Any]] {
                do {
                    try quake.validateValue(value, forKey: "magnitude")
                    results.append("valid")
                } catch {
                    results.append("\(error)")
                }
            }
            return results
        }
        #expect(checked[0].contains("Quake.magnitude.richter") && checked[0].contains("less than the minimum 0"))
        #expect(checked[1] == "valid")
    }

    @Test func requiredElementsAndCompositesAreRequired() throws {
        let richter = AttributeDescription(name: "richter", type: .double, isOptional: false)
        let magnitude = CompositeAttributeDescription(name: "magnitude", elements: [richter, AttributeDescription(name: "scale", type: .string)],
                                                      isOptional: false)
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Quake", properties: [magnitude])])
        let context = try TestStack.context(model: model, at: nil)
        let results: [String] = context.performAndWait {
            var results: [String] = []
            for value in [nil, ["scale": "ML"], ["richter": 3.2]] as [[String: Any]?] {
                defer { context.rollback() }
                guard let quake = try? context.insertNewObject(forEntityName: "Quake") else { continue }
                quake.setValue(value, forKey: "magnitude")
                do {
                    try context.save()
                    results.append("saved")
                } catch {
                    results.append("\(error)")
                }
            }
            return results
        }
        #expect(results[0].contains("Quake.magnitude") && results[0].contains("a value is required"))
        #expect(results[1].contains("Quake.magnitude.richter") && results[1].contains("a value is required"))
        #expect(results[2] == "saved")
    }
}
