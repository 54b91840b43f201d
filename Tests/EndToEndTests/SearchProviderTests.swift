import Foundation
import Testing

/// The desktop search provider with real parts: a private dbus-daemon, the provider started by
/// D-Bus activation from the service file in `share/` (or by hand), limelightd indexing a real
/// cookbook store, and busctl calling as GNOME Shell and KRunner do. Serialized: each test runs
/// daemons and a bus.
@Suite(.serialized) struct SearchProviderTests {
    static let busName = "org.limelight.SearchProvider"
    static let gnomePath = "/org/limelight/SearchProvider"
    static let gnome = "org.gnome.Shell.SearchProvider2"
    static let krunnerPath = "/org/limelight/KRunner"
    static let krunner = "org.kde.krunner1"

    /// The installed service file, with `Exec=` naming the built program as `make install` names
    /// the installed one.
    func servicesFolder(_ h: Harness, extraArguments: String = "") throws -> URL {
        let folder = h.home.appendingPathComponent("dbus-services")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let name = "\(Self.busName).service"
        let text = try String(contentsOf: Harness.packageRoot.appendingPathComponent("share/dbus-1/services/\(name)"), encoding: .utf8)
        let program = h.bin.appendingPathComponent("limelight-search-provider").path
        #expect(text.contains("Exec=limelight-search-provider\n"))
        try Data(text.replacingOccurrences(of: "Exec=limelight-search-provider", with: "Exec=\(program) --verbose\(extraArguments)").utf8)
            .write(to: folder.appendingPathComponent(name))
        return folder
    }

    /// Starts the provider by hand on `bus`; its log goes to the returned file.
    func startProvider(_ h: Harness, on bus: SessionBus, arguments: [String] = []) throws -> (process: Process, log: URL) {
        let log = h.home.appendingPathComponent("provider-\(UUID().uuidString.prefix(8)).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = h.bin.appendingPathComponent("limelight-search-provider")
        process.arguments = ["--verbose"] + arguments
        process.environment = h.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try output.close()
        return (process, log)
    }

    func strings(_ reply: [Any]) -> [String] { reply.first as? [String] ?? [] }

    @Test func shellsFindDescribeAndOpenRecordsThroughDBusActivation() throws {
        let h = try Harness()
        try h.registerHandler(desktopFile: Harness.packageRoot.appendingPathComponent("share/applications/cookbook.desktop"))
        try h.run("cookbook", ["add", "Guacamole", "--directions", "Mash ripe avocados with lime."])
        try h.run("cookbook", ["add", "Salsa", "--directions", "Chopped tomato, onion, cilantro, lime."])
        let markers = try h.markers()
        let guacamole = try #require(markers[1]), salsa = try #require(markers[2])
        let daemon = try h.startDaemon()
        try h.waitUntil("tomato finds Salsa") { try h.searchCount("tomato") == 1 }
        let bus = try SessionBus(h, servicesFolder: try servicesFolder(h))
        #expect(try !bus.hasOwner(Self.busName))

        // GNOME Shell: the first call starts the provider.
        let tomato = try bus.call(Self.busName, Self.gnomePath, Self.gnome, "GetInitialResultSet", "as", ["1", "tomato"])
        #expect(strings(tomato) == [salsa])
        #expect(try bus.hasOwner(Self.busName))
        let lime = strings(try bus.call(Self.busName, Self.gnomePath, Self.gnome, "GetInitialResultSet", "as", ["1", "lime"]))
        #expect(Set(lime) == [salsa, guacamole])
        // The last word, half typed, finds the words it begins.
        let narrowed = try bus.call(Self.busName, Self.gnomePath, Self.gnome, "GetSubsearchResultSet", "asas",
                                    ["2"] + lime + ["2", "lime", "toma"])
        #expect(strings(narrowed) == [salsa])

        let metas = try bus.call(Self.busName, Self.gnomePath, Self.gnome, "GetResultMetas", "as", ["2", salsa, "/no/such/result"])
        let list = try #require(metas.first as? [[String: Any]])
        #expect(list.count == 1)
        func value(_ key: String) -> String? { (list.first?[key] as? [String: Any])?["data"] as? String }
        #expect(value("id") == salsa)
        #expect(value("name") == "Cookbook recipe: Salsa")
        #expect(value("description")?.contains("Chopped tomato, onion") == true)
        #expect(value("description")?.contains("[") == false)
        // The icon of the application registered for .recipe, from its desktop file.
        #expect(value("gicon") == "accessories-dictionary")

        // Activating runs the registered application (cookbook show) on the marker, as
        // `limelight open` does; what it prints goes where the bus sends its services' output.
        _ = try bus.call(Self.busName, Self.gnomePath, Self.gnome, "ActivateResult", "sasu", [salsa, "1", "tomato", "0"])
        try h.waitUntil("cookbook shows Salsa") { bus.logText.contains("Directions: Chopped tomato, onion, cilantro, lime.") }
        #expect(bus.logText.contains("opening \(salsa) with"))
        _ = try bus.call(Self.busName, Self.gnomePath, Self.gnome, "LaunchSearch", "asu", ["1", "tomato", "0"])

        // KRunner.
        let actions = try bus.call(Self.busName, Self.krunnerPath, Self.krunner, "Actions")
        #expect((actions.first as? [Any])?.isEmpty == true)
        let matches = try #require(try bus.call(Self.busName, Self.krunnerPath, Self.krunner, "Match", "s", ["avocados"]).first as? [[Any]])
        #expect(matches.count == 1)
        let match = try #require(matches.first)
        #expect(match.count == 6)
        #expect(match[0] as? String == guacamole)
        #expect(match[1] as? String == "Cookbook recipe: Guacamole")
        #expect(match[2] as? String == "accessories-dictionary")
        #expect(match[3] as? Int == 30)
        let relevance = try #require(match[4] as? Double)
        #expect(relevance > 0 && relevance <= 1)
        let properties = try #require(match[5] as? [String: Any])
        #expect(((properties["subtext"] as? [String: Any])?["data"] as? String)?.contains("Mash ripe avocados") == true)
        #expect((properties["urls"] as? [String: Any])?["data"] as? [String] == [URL(fileURLWithPath: guacamole).absoluteString])
        _ = try bus.call(Self.busName, Self.krunnerPath, Self.krunner, "Run", "ss", [guacamole, ""])
        try h.waitUntil("cookbook shows Guacamole") { bus.logText.contains("Directions: Mash ripe avocados with lime.") }
        let badAction = try bus.callAllowingFailure(Self.busName, Self.krunnerPath, Self.krunner, "Run", "ss", [guacamole, "delete"])
        #expect(badAction.status != 0 && badAction.stderr.contains("no action 'delete'"))
        _ = try bus.call(Self.busName, Self.krunnerPath, Self.krunner, "Teardown")

        // Without limelightd the provider searches the index itself, as `limelight search` does.
        h.stop(daemon)
        #expect(strings(try bus.call(Self.busName, Self.gnomePath, Self.gnome, "GetInitialResultSet", "as", ["1", "tomato"])) == [salsa])
    }

    @Test func malformedCallsAreAnsweredWithErrorsAndTheProviderCarriesOn() throws {
        let h = try Harness()
        // A store with a marker, no application registered for it, and no index yet.
        try h.run("cookbook", ["add", "Salsa", "--directions", "Chopped tomato."])
        let salsa = try #require(try h.markers()[1])
        let bus = try SessionBus(h)
        let provider = try startProvider(h, on: bus)
        defer { if provider.process.isRunning { provider.process.terminate(); provider.process.waitUntilExit() } }
        try h.waitUntil("the provider owns its name") { try bus.hasOwner(Self.busName) }

        // Arguments of the wrong type: sd-bus answers from the method's signature.
        let wrongType = try bus.callAllowingFailure(Self.busName, Self.gnomePath, Self.gnome, "GetResultMetas", "i", ["4"])
        #expect(wrongType.status != 0 && wrongType.stderr.contains("Invalid arguments"))
        let unknown = try bus.callAllowingFailure(Self.busName, Self.gnomePath, Self.gnome, "DeleteEverything")
        #expect(unknown.status != 0 && unknown.stderr.contains("DeleteEverything"))
        // An ID that is no record: nothing is opened.
        let outside = try bus.callAllowingFailure(Self.busName, Self.gnomePath, Self.gnome, "ActivateResult", "sasu", ["/etc/passwd", "0", "0"])
        #expect(outside.status != 0 && outside.stderr.contains("not inside any registered records folder"))
        let empty = try bus.callAllowingFailure(Self.busName, Self.krunnerPath, Self.krunner, "Run", "ss", ["", ""])
        #expect(empty.status != 0)
        // A record with no application for its type.
        let noApplication = try bus.callAllowingFailure(Self.busName, Self.gnomePath, Self.gnome, "ActivateResult", "sasu", [salsa, "0", "0"])
        #expect(noApplication.status != 0 && noApplication.stderr.contains("no application is registered"))
        // No index, no terms, a query the index cannot read: no results, no error.
        #expect(strings(try bus.call(Self.busName, Self.gnomePath, Self.gnome, "GetInitialResultSet", "as", ["1", "tomato"])).isEmpty)
        #expect(strings(try bus.call(Self.busName, Self.gnomePath, Self.gnome, "GetInitialResultSet", "as", ["0"])).isEmpty)
        try h.run("limelight", ["index"])
        #expect(strings(try bus.call(Self.busName, Self.gnomePath, Self.gnome, "GetInitialResultSet", "as", ["2", "tomato", "AND"])).isEmpty)
        #expect(try bus.call(Self.busName, Self.krunnerPath, Self.krunner, "Match", "s", ["\"tomato"]).first as? [Any] != nil)
        #expect(strings(try bus.call(Self.busName, Self.gnomePath, Self.gnome, "GetInitialResultSet", "as", ["1", "tomato"])) == [salsa])
        #expect(provider.process.isRunning)

        // A second provider leaves the name to the first.
        let second = try h.run("limelight-search-provider", [], extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(second.stderr.contains("owns \(Self.busName)"))
        #expect(provider.process.isRunning)
    }

    @Test func theProviderEndsWhenIdleAndTheNextCallStartsItAgain() throws {
        let h = try Harness()
        try h.run("cookbook", ["add", "Salsa", "--directions", "Chopped tomato."])
        try h.run("limelight", ["index"])
        let salsa = try #require(try h.markers()[1])
        let bus = try SessionBus(h, servicesFolder: try servicesFolder(h, extraArguments: " --idle-timeout 1"))
        #expect(strings(try bus.call(Self.busName, Self.gnomePath, Self.gnome, "GetInitialResultSet", "as", ["1", "tomato"])) == [salsa])
        #expect(try bus.hasOwner(Self.busName))
        try h.waitUntil("the provider gives up its name") { try !bus.hasOwner(Self.busName) }
        try h.waitUntil("the provider says it ends") { bus.logText.contains("idle for 1.0 s; ending") }
        #expect(strings(try bus.call(Self.busName, Self.gnomePath, Self.gnome, "GetInitialResultSet", "as", ["1", "tomato"])) == [salsa])

        // Started by hand, it ends by itself too, with status 0.
        let byHand = try SessionBus(h)
        let provider = try startProvider(h, on: byHand, arguments: ["--idle-timeout", "1"])
        try h.waitUntil("the provider owns its name") { try byHand.hasOwner(Self.busName) }
        _ = try byHand.call(Self.busName, Self.krunnerPath, Self.krunner, "Match", "s", ["tomato"])
        try h.waitUntil("the provider ends") { !provider.process.isRunning }
        #expect(provider.process.terminationStatus == 0)
        #expect(try !byHand.hasOwner(Self.busName))
    }
}
