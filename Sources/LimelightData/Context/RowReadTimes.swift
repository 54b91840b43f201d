import Dispatch

/// When the rows that faults carry were read, for `stalenessInterval`.
///
/// Kept only while the interval is not negative: with the default, nothing is timed and a fetch
/// does no work for it. A fetch notes the time it started for the faults it returns. A fault whose
/// time is not known (its row came while timing was off, or by a way that does not note it, such
/// as prefetching) counts as stale, so no fault ever uses a row older than the interval allows.
struct RowReadTimes {
    private(set) var isOn = false
    /// By object: when its row was read, in nanoseconds of uptime.
    private var times: [ObjectIdentifier: UInt64] = [:]

    mutating func startIfNeeded() { isOn = true }

    mutating func stop() {
        isOn = false
        times = [:]
    }

    /// Now, as the times are kept.
    static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Notes that the rows the faults among `objects` carry were read at `time` (`now`).
    mutating func noteRead(of objects: [ManagedObject], at time: UInt64) {
        for object in objects where object.faultFlag && object.cachedRowValues != nil { times[ObjectIdentifier(object)] = time }
    }

    /// Whether the row `object` carries is at most `interval` seconds old; forgets its time.
    mutating func takeIsFresh(_ object: ManagedObject, within interval: Double) -> Bool {
        guard let read = times.removeValue(forKey: ObjectIdentifier(object)), interval > 0 else { return false }
        let age = Double(Self.now &- read) / 1_000_000_000
        return age <= interval
    }

    /// Forgets a departing object, so another one made at its address does not inherit its time.
    mutating func forget(_ object: ManagedObject) {
        times[ObjectIdentifier(object)] = nil
    }
}
