import CSearchProviderVtables
import CSystemd
import Foundation

/// A connection to the session bus (`$DBUS_SESSION_BUS_ADDRESS`, as D-Bus activation sets it),
/// owning one well-known name and serving objects on it, one message at a time on the calling
/// thread.
final class BusConnection {
    private let bus: OpaquePointer

    init() throws {
        var bus: OpaquePointer?
        try BusSystemError.check(sd_bus_open_user(&bus), "connecting to the session bus")
        guard let bus else { throw BusSystemError(action: "connecting to the session bus", code: ENOTCONN) }
        self.bus = bus
    }

    deinit { sd_bus_flush_close_unref(bus) }

    /// Takes `name`, refusing to queue for it or to take it from another owner: a second provider
    /// started while one runs ends with `NameTakenError`.
    func requestName(_ name: String) throws {
        let result = sd_bus_request_name(bus, name, 0)
        if result == -EEXIST || result == -EALREADY { throw NameTakenError(name: name) }
        try BusSystemError.check(result, "taking the name \(name)")
    }

    /// Gives up `name`: the bus routes no more calls here, and a later call starts a new provider.
    func releaseName(_ name: String) throws {
        try BusSystemError.check(sd_bus_release_name(bus, name), "giving up the name \(name)")
    }

    func addGnomeSearchProvider(at path: String, target: UnsafeMutablePointer<sp_target>) throws {
        try BusSystemError.check(sp_add_gnome_search_provider(bus, path, target), "serving the GNOME search provider at \(path)")
    }

    func addKRunnerRunner(at path: String, target: UnsafeMutablePointer<sp_target>) throws {
        try BusSystemError.check(sp_add_krunner_runner(bus, path, target), "serving the KRunner runner at \(path)")
    }

    /// Answers calls until `deadline()` (read again after every message) has passed with nothing
    /// to do. Returns `false` when the bus went away first.
    func serve(until deadline: () -> ContinuousClock.Instant) throws -> Bool {
        while true {
            let processed = sd_bus_process(bus, nil)
            if Self.isDisconnection(processed) { return false }
            try BusSystemError.check(processed, "reading from the bus")
            if processed > 0 { continue }
            let remaining = deadline() - ContinuousClock.now
            guard remaining > .zero else { return true }
            let (seconds, attoseconds) = remaining.components
            let microseconds = UInt64(max(0, seconds)) * 1_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000_000) + 1
            let waited = sd_bus_wait(bus, microseconds)
            if waited == -EINTR { continue }
            if Self.isDisconnection(waited) { return false }
            try BusSystemError.check(waited, "waiting for the bus")
        }
    }

    /// Answers the calls already received (after the name was given up, those sent just before).
    func drain() throws {
        while true {
            let processed = sd_bus_process(bus, nil)
            if Self.isDisconnection(processed) { return }
            if try BusSystemError.check(processed, "reading from the bus") == 0 { break }
        }
        try BusSystemError.check(sd_bus_flush(bus), "writing to the bus")
    }

    private static func isDisconnection(_ result: Int32) -> Bool {
        result == -ECONNRESET || result == -ENOTCONN || result == -EPIPE
    }
}

/// Another process owns the provider's name already.
struct NameTakenError: Error, CustomStringConvertible {
    var name: String
    var description: String { "another process owns \(name) on the session bus already" }
}
