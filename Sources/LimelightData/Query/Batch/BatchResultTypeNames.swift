/// Core Data's names for the batch requests' result types and results, so code written for
/// `NSBatchDeleteRequest` and its siblings reads the same once the `NS` prefixes are gone:
/// `request.resultType = .resultTypeObjectIDs`, `try context.execute(request) as? BatchDeleteResult`.
/// (Batch inserts' result types have Core Data's names already.)
extension BatchDeleteRequest.ResultType {
    public static var resultTypeStatusOnly: Self { .statusOnly }
    public static var resultTypeCount: Self { .count }
    public static var resultTypeObjectIDs: Self { .objectIDs }
}

extension BatchUpdateRequest.ResultType {
    public static var statusOnlyResultType: Self { .statusOnly }
    public static var updatedObjectsCountResultType: Self { .updatedObjectsCount }
    public static var updatedObjectIDsResultType: Self { .updatedObjectIDs }
}

/// What a batch delete returns, Core Data's `NSBatchDeleteResult`.
public typealias BatchDeleteResult = BatchResult
/// What a batch update returns, Core Data's `NSBatchUpdateResult`.
public typealias BatchUpdateResult = BatchResult
/// What a batch insert returns, Core Data's `NSBatchInsertResult`.
public typealias BatchInsertResult = BatchResult
