/// Models that reach the parts of a store a model decides beyond its tables: derived attributes
/// (triggers: key paths, to-one paths, aggregates over to-manys, string functions, now()),
/// compound indexes of older Xcode models, fetch indexes and uniqueness constraints.
enum ModelStoreSeeds {
    static let models = [
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
            <entity name="Order" representedClassName="Order" syncable="YES">
                <attribute name="customer" optional="YES" attributeType="String"/>
                <attribute name="customerKey" optional="YES" attributeType="String" derived="YES" derivationExpression="canonical:(customer)"/>
                <attribute name="shout" optional="YES" attributeType="String" derived="YES" derivationExpression="uppercase:(customer)"/>
                <attribute name="quiet" optional="YES" attributeType="String" derived="YES" derivationExpression="lowercase:(customer)"/>
                <attribute name="itemCount" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES" derived="YES" derivationExpression="items.@count"/>
                <attribute name="total" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES" derived="YES" derivationExpression="items.@sum.price"/>
                <attribute name="touched" optional="YES" attributeType="Date" usesScalarValueType="NO" derived="YES" derivationExpression="now()"/>
                <attribute name="copy" optional="YES" attributeType="String" derived="YES" derivationExpression="customer"/>
                <relationship name="items" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Item" inverseName="order" inverseEntity="Item"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="orders" inverseEntity="Tag"/>
            </entity>
            <entity name="Item" representedClassName="Item" syncable="YES">
                <attribute name="price" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="orderedBy" optional="YES" attributeType="String" derived="YES" derivationExpression="order.customer"/>
                <relationship name="order" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Order" inverseName="items" inverseEntity="Order"/>
            </entity>
            <entity name="Tag" representedClassName="Tag" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="orderCount" optional="YES" attributeType="Integer 64" usesScalarValueType="YES" derived="YES" derivationExpression="orders.@count"/>
                <attribute name="spent" optional="YES" attributeType="Double" usesScalarValueType="YES" derived="YES" derivationExpression="orders.@sum.total"/>
                <relationship name="orders" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Order" inverseName="tags" inverseEntity="Order"/>
            </entity>
        </model>
        """,
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="8195" systemVersion="15A282b" minimumToolsVersion="Xcode 7.0">
            <entity name="Visit" syncable="YES">
                <attribute name="city" optional="YES" attributeType="String" syncable="YES"/>
                <attribute name="day" optional="YES" attributeType="Date" syncable="YES"/>
                <attribute name="rating" attributeType="Integer 16" defaultValueString="0" syncable="YES"/>
                <relationship name="guide" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Guide" inverseName="visits" inverseEntity="Guide" syncable="YES"/>
                <compoundIndexes>
                    <compoundIndex>
                        <index value="city"/>
                        <index value="day"/>
                    </compoundIndex>
                    <compoundIndex>
                        <index value="guide"/>
                        <index value="rating"/>
                    </compoundIndex>
                </compoundIndexes>
            </entity>
            <entity name="Guide" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String" indexed="YES" syncable="YES"/>
                <relationship name="visits" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Visit" inverseName="guide" inverseEntity="Visit" syncable="YES"/>
            </entity>
        </model>
        """,
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
            <entity name="Folder" representedClassName="Folder" syncable="YES" codeGenerationType="class">
                <attribute name="uid" attributeType="UUID" usesScalarValueType="NO"/>
                <attribute name="title" attributeType="String" defaultValueString=""/>
                <attribute name="created" attributeType="Date" defaultDateTimeInterval="631152000" usesScalarValueType="NO"/>
                <attribute name="pinnedCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="pinned.@count" usesScalarValueType="YES"/>
                <relationship name="pinned" optional="YES" toMany="YES" deletionRule="Nullify" ordered="YES" destinationEntity="Folder" inverseName="pinnedBy" inverseEntity="Folder"/>
                <relationship name="pinnedBy" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Folder" inverseName="pinned" inverseEntity="Folder"/>
                <fetchIndex name="byTitle">
                    <fetchIndexElement property="title" type="Binary" order="ascending"/>
                    <fetchIndexElement property="created" type="Binary" order="descending"/>
                </fetchIndex>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="uid"/>
                    </uniquenessConstraint>
                    <uniquenessConstraint>
                        <constraint value="title"/>
                        <constraint value="created"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
            <entity name="Note" representedClassName="Note" parentEntity="Folder" syncable="YES">
                <attribute name="body" optional="YES" attributeType="String"/>
                <attribute name="length" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="body.length" usesScalarValueType="YES"/>
            </entity>
        </model>
        """,
    ]
}
