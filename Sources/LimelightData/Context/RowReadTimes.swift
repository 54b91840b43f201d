import Dispatch

/// When the rows that faults carry were read, for `stalenessInterval`.
///
/// Kept only while the interval is not negative: with the default, nothing is timed and a fetch
/// does no work for it. A fault whose time is not known (its row came while timing was off) counts
/// as stale, so turning the interval on never lets a fault use a row older than it allows.
struct RowReadTimes {
    private(set) var isOn = false
    /// By object: when its row was read, in nanoseconds of uptime.
    private var times: [ObjectIdentifier: UInt64] = [:]

    mutating func startIfNeeded() { isOn = true }

    mutating func stop() {
        isOn = false
        times = [:]
    }

    /// Notes that `object`'s row was read now.
    mutating func noteRead(of object: ManagedObject) {
        times[ObjectIdentifier(object)] = DispatchTime.now().uptimeNanoseconds
    }

    /// Whether the row `object` carries is at most `interval` seconds old; forgets its time.
    mutating func takeIsFresh(_ object: ManagedObject, within interval: Double) -> Bool {
        guard let read = times.removeValue(forKey: ObjectIdentifier(object)), interval > 0 else { return false }
        let age = Double(DispatchTime.now().uptimeNanoseconds &- read) / 1_000_000_000
        return age <= interval
    }

    /// Forgets a departing object, so another one made at its address does not inherit its time.
    mutating func forget(_ object: ManagedObject) {
        times[ObjectIdentifier(object)] = nil
    }
}
