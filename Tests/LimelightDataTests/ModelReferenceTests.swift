import Foundation
import Testing
@testable import LimelightData

/// The model's back-references (a property's entity, a relationship's destination, an entity's
/// parent) do not keep their target alive and read `nil` once it is gone.
@Suite struct ModelReferenceTests {
    @Test func backReferencesFollowTheirTargetsAndLetThemGo() throws {
        let attribute = AttributeDescription(name: "title", type: .string)
        let relationship = RelationshipDescription(name: "owner", destination: "Person")
        weak var goneEntity: EntityDescription?
        do {
            let note = EntityDescription(name: "Note", properties: [attribute, relationship])
            let person = EntityDescription(name: "Person", properties: [])
            let special = EntityDescription(name: "SpecialNote", properties: [], parent: "Note")
            let model = ManagedObjectModel(entities: [note, person, special])
            try model.resolve()
            #expect(attribute.entity === note)
            #expect(relationship.destinationEntity === person)
            #expect(special.superentity === note)
            #expect(model.entity(named: "Note") === note)
            goneEntity = note
        }
        #expect(goneEntity == nil)
        #expect(attribute.entity == nil)
        #expect(relationship.destinationEntity == nil)
    }
}
