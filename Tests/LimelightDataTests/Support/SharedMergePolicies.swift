import LimelightData

extension MergePolicy {
    /// Core Data's five merge policy types, each with the shared instance of it, for tests that
    /// check a policy made by type against the shared one.
    static let sharedByType: [(MergePolicyType, MergePolicy)] = [
        (.errorMergePolicyType, .error),
        (.mergeByPropertyStoreTrumpMergePolicyType, .mergeByPropertyStoreTrump),
        (.mergeByPropertyObjectTrumpMergePolicyType, .mergeByPropertyObjectTrump),
        (.overwriteMergePolicyType, .overwrite),
        (.rollbackMergePolicyType, .rollback),
    ]
}
