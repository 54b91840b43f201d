import Foundation
import Testing
@testable import LimelightData

/// An atomic store's cache nodes hold the nodes of related objects, and a relationship's inverse
/// holds back: the nodes must still go when their store goes, and when their objects are deleted.
@Suite struct AtomicStoreNodeLifetimeTests {
    @Test func relatedNodesGoWithTheirStore() throws {
        let folder = try TemporaryFolder()
        weak var goneStore: PersistentStore?
        weak var goneDepartment: AtomicStoreCacheNode?
        weak var goneEmployee: AtomicStoreCacheNode?
        do {
            let context = try XMLStoreTests.context(XMLStoreTests.staffModel(), at: folder.file("Staff.xml"))
            let department = try context.insertNewObject(forEntityName: "Department")
            let employee = try context.insertNewObject(forEntityName: "Employee")
            employee.setValue(department, forKey: "department")
            try context.save()
            let store = try #require(context.persistentStoreCoordinator?.persistentStores.first as? AtomicStore)
            let departmentNode = try #require(store.cacheNode(for: department.objectID))
            let employeeNode = try #require(store.cacheNode(for: employee.objectID))
            // The two nodes hold each other.
            #expect(employeeNode.value(forKey: "department") as? AtomicStoreCacheNode === departmentNode)
            #expect((departmentNode.value(forKey: "employees") as? Set<AtomicStoreCacheNode>) == [employeeNode])
            goneStore = store
            goneDepartment = departmentNode
            goneEmployee = employeeNode
        }
        #expect(goneStore == nil)
        #expect(goneDepartment == nil)
        #expect(goneEmployee == nil)
    }

    @Test func nodesOfRelatedObjectsDeletedTogetherGoWithTheSave() throws {
        let folder = try TemporaryFolder()
        let context = try XMLStoreTests.context(XMLStoreTests.staffModel(), at: folder.file("Staff.xml"))
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first as? AtomicStore)
        weak var goneDepartment: AtomicStoreCacheNode?
        weak var goneEmployee: AtomicStoreCacheNode?
        do {
            let department = try context.insertNewObject(forEntityName: "Department")
            let employee = try context.insertNewObject(forEntityName: "Employee")
            employee.setValue(department, forKey: "department")
            try context.save()
            goneDepartment = store.cacheNode(for: department.objectID)
            goneEmployee = store.cacheNode(for: employee.objectID)
            #expect(goneDepartment != nil && goneEmployee != nil)
            context.delete(department)
            context.delete(employee)
            try context.save()
        }
        #expect(store.cacheNodes().isEmpty)
        #expect(goneDepartment == nil)
        #expect(goneEmployee == nil)
    }
}
