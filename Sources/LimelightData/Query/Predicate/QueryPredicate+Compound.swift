extension QueryPredicate {
    /// How a compound predicate joins its subpredicates, as Core Data's
    /// `NSCompoundPredicate.LogicalType`.
    public enum LogicalType: Sendable, Equatable {
        case and
        case or
        case not
    }

    /// Joins `subpredicates` by `type`, as `NSCompoundPredicate(type:subpredicates:)`: `.and` is
    /// true when there are none, `.or` false. `.not` negates its one subpredicate; given several,
    /// it negates all of them together (`NOT (a AND b)`), and given none it is false.
    public init(type: LogicalType, subpredicates: [QueryPredicate]) {
        switch type {
        case .and: self = .and(subpredicates)
        case .or: self = .or(subpredicates)
        case .not: self = .not(subpredicates.count == 1 ? subpredicates[0] : .and(subpredicates))
        }
    }
}
