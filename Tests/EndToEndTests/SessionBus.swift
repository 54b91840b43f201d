import Foundation

/// A private session bus (a real `dbus-daemon`) for a harness, with `busctl` to call on it. With
/// a services folder it starts services by D-Bus activation, in the harness's environment.
final class SessionBus {
    let address: String
    /// What the bus and the services it started wrote.
    let log: URL
    private let daemon: Process

    init(_ harness: Harness, servicesFolder: URL? = nil) throws {
        // A socket's path must fit in 108 bytes: the harness's short runtime folder.
        let socket = harness.runtime.appendingPathComponent("bus-\(UUID().uuidString.prefix(8))")
        address = "unix:path=\(socket.path)"
        let config = harness.home.appendingPathComponent("session-bus.conf")
        try Data("""
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>
              \(servicesFolder.map { "<servicedir>\($0.path)</servicedir>" } ?? "")
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """.utf8).write(to: config)
        log = harness.home.appendingPathComponent("session-bus.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        daemon.arguments = ["dbus-daemon", "--nofork", "--config-file=\(config.path)"]
        daemon.environment = harness.environment.merging(["DBUS_SESSION_BUS_ADDRESS": address]) { $1 }
        daemon.standardOutput = output
        daemon.standardError = output
        try daemon.run()
        try output.close()
        try harness.waitUntil("the session bus answers") {
            (try? self.busctl(["call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId"]))?.status == 0
        }
    }

    /// Ends the bus; the services it started see it go and end too. (SIGKILL: dbus-daemon
    /// leaves SIGTERM to its session's manager.)
    deinit {
        if daemon.isRunning {
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
        }
    }

    var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Runs `busctl` on this bus with JSON output.
    func busctl(_ arguments: [String]) throws -> Harness.Result {
        try Harness.runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["busctl", "--address=\(address)", "--json=short"] + arguments,
                               environment: nil, scratch: log.deletingLastPathComponent())
    }

    /// Calls `method` and returns the reply's values (busctl's JSON `data`); throws when the call fails.
    func call(_ destination: String, _ path: String, _ interface: String, _ method: String, _ signature: String = "",
              _ arguments: [String] = []) throws -> [Any] {
        let result = try callAllowingFailure(destination, path, interface, method, signature, arguments)
        guard result.status == 0 else { throw HarnessError("\(method) failed: \(result.stderr)") }
        guard !result.stdout.isEmpty else { return [] }
        guard let reply = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
              let data = reply["data"] as? [Any] else { throw HarnessError("\(method): unexpected reply \(result.stdout)") }
        return data
    }

    func callAllowingFailure(_ destination: String, _ path: String, _ interface: String, _ method: String, _ signature: String = "",
                             _ arguments: [String] = []) throws -> Harness.Result {
        try busctl(["call", destination, path, interface, method] + (signature.isEmpty ? [] : [signature] + arguments))
    }

    /// Whether a process owns `name` on the bus.
    func hasOwner(_ name: String) throws -> Bool {
        try call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", "s", [name]).first as? Bool ?? false
    }
}
