/// Core Data's names for what a fetch returns (`NSFetchRequestResultType`), so
/// `request.resultType = .countResultType` reads the same here.
extension FetchRequestResultType {
    public static var managedObjectResultType: Self { .managedObject }
    public static var managedObjectIDResultType: Self { .managedObjectID }
    public static var dictionaryResultType: Self { .dictionary }
    public static var countResultType: Self { .count }
}
