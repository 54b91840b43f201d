/// Where the rows of a to-many's row query stand among its members, as its ID query listed them:
/// batch faulting hands each row to the member at that position without making the row an ID of
/// its own or looking it up by hash.
///
/// Both queries walk the same index, so rows nearly always come in the members' order: each row
/// is checked against the next member first. A row out of that order (an ordered to-many, a join
/// table, a member deleted or moved in the store meanwhile) makes a table of the members'
/// positions by key, which then serves the rest.
struct MemberPositions {
    private let members: [ManagedObjectID]
    /// The store whose rows these are: a member of another store is never one of them.
    private let store: StoreReference
    private var next = 0
    private var byKey: [Int64: Int]?

    init(_ members: [ManagedObjectID], store: StoreReference) {
        self.members = members
        self.store = store
    }

    /// The position of the member whose row has `primaryKey` in the entity tree `rootIdentity`;
    /// `nil` for a row that is no member.
    mutating func position(of primaryKey: Int64, rootIdentity: ObjectIdentifier) -> Int? {
        if byKey == nil {
            if next < members.count, members[next].primaryKey == primaryKey, members[next].entity.rootIdentity == rootIdentity,
               isOfStore(members[next]) {
                next += 1
                return next - 1
            }
            var table: [Int64: Int] = [:]
            table.reserveCapacity(members.count)
            for (position, member) in members.enumerated() where isOfStore(member) {
                if let key = member.primaryKey, table[key] == nil { table[key] = position }
            }
            byKey = table
        }
        guard let position = byKey?[primaryKey], members[position].entity.rootIdentity == rootIdentity else { return nil }
        return position
    }

    /// Whether `member` is of this store, compared as IDs compare stores.
    private func isOfStore(_ member: ManagedObjectID) -> Bool {
        member.store === store || member.store?.identifier == store.identifier
    }
}
