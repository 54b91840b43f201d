import Foundation
@testable import LimelightData

/// Earthquakes with composite attributes, as an Xcode 15 model holds them: a magnitude (a Richter
/// value with bounds, and a scale that defaults to "ML") and a location whose coordinate is a
/// nested composite; reports point at their quake through a to-one.
enum QuakeModel {
    static let xml = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22222" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
        <entity name="Quake" representedClassName="Quake" syncable="YES">
            <attribute name="code" optional="YES" attributeType="String"/>
            <attribute name="location" optional="YES" attributeType="Composite" composite="Location"/>
            <attribute name="magnitude" optional="YES" attributeType="Composite" composite="Magnitude"/>
            <relationship name="reports" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Report" inverseName="quake" inverseEntity="Report"/>
        </entity>
        <entity name="Report" representedClassName="Report" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="quake" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Quake" inverseName="reports" inverseEntity="Quake"/>
        </entity>
        <composite name="Coordinate">
            <attribute name="latitude" optional="YES" attributeType="Double" usesScalarValueType="NO"/>
            <attribute name="longitude" optional="YES" attributeType="Double" usesScalarValueType="NO"/>
        </composite>
        <composite name="Location">
            <attribute name="place" optional="YES" attributeType="String"/>
            <attribute name="coordinate" optional="YES" attributeType="Composite" composite="Coordinate"/>
        </composite>
        <composite name="Magnitude">
            <attribute name="richter" optional="YES" attributeType="Double" minValueString="0" maxValueString="10" usesScalarValueType="NO"/>
            <attribute name="scale" optional="YES" attributeType="String" defaultValueString="ML"/>
        </composite>
    </model>
    """

    static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel(xmlData: Data(xml.utf8), source: "Quakes.xcdatamodel")
    }

    /// Four quakes (one without a magnitude or location) and two reports, saved.
    static func fill(_ context: ManagedObjectContext) throws {
        let quakes: [(String, [String: Any]?, [String: Any]?)] = [
            ("ci1", ["richter": 4.6, "scale": "ML"], ["place": "Ridgecrest", "coordinate": ["latitude": 35.77, "longitude": -117.6]]),
            ("ak2", ["richter": 6.1, "scale": "Mw"], ["place": "Anchorage", "coordinate": ["latitude": 61.2]]),
            ("nc3", ["richter": 2.9], ["place": "Petrolia"]),
            ("us4", nil, nil),
        ]
        var made: [String: ManagedObject] = [:]
        for (code, magnitude, location) in quakes {
            let quake = try context.insertNewObject(forEntityName: "Quake")
            quake.setValue(code, forKey: "code")
            quake.setValue(magnitude, forKey: "magnitude")
            quake.setValue(location, forKey: "location")
            made[code] = quake
        }
        for (title, code) in [("Felt in Ridgecrest", "ci1"), ("Pipeline check", "ak2")] {
            let report = try context.insertNewObject(forEntityName: "Report")
            report.setValue(title, forKey: "title")
            report.setValue(made[code], forKey: "quake")
        }
        try context.save()
    }

    /// A composite's value as text, keys in order (nested dictionaries too), so values compare
    /// whatever dictionary types they come in.
    static func text(_ value: Any?) -> String {
        guard let value else { return "nil" }
        if let dictionary = value as? [String: Any] {
            return "[" + dictionary.keys.sorted().map { "\($0): \(text(dictionary[$0]))" }.joined(separator: ", ") + "]"
        }
        return "\(value)"
    }

    /// The codes of the quakes a fetch gives, in its order.
    static func codes(_ context: ManagedObjectContext, _ format: String? = nil, sortedBy keys: [(String, Bool)] = [("code", true)]) throws -> [String] {
        let request = FetchRequest<ManagedObject>(entityName: "Quake", predicate: try format.map { try QueryPredicate(format: $0) },
                                                  sortDescriptors: keys.map { QuerySortDescriptor(key: $0.0, ascending: $0.1) })
        return try context.fetch(request).compactMap { $0.value(forKey: "code") as? String }
    }
}
