import ArgumentParser
import Foundation
import LimelightData
import LimelightDesktop
import LimelightSearch

extension Limelight {
    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "open",
            abstract: "Open a record by its marker file with the application registered for its type.",
            discussion: "The type comes from shared-mime-info globs (application/x-limelight-<ext> for *.<ext>); the application from xdg-mime's default for it. With no application, or --print, the record is printed.")
        @Argument(help: "Path of a marker file.") var marker: String
        @Flag(help: "Print the record instead of opening it.") var print = false

        func run() throws {
            let opener = try RecordOpener(markerPath: marker)
            let reader = opener.reader
            if !print, let started = try opener.start() {
                FileHandle.standardError.write(Data("opening with \(started.handler.desktopFile)\n".utf8))
                started.process.waitUntilExit()
                if started.process.terminationStatus != 0 { throw ExitCode(started.process.terminationStatus) }
                return
            }
            let object = try reader.object()
            Swift.print("\(reader.elements.entityName) \(reader.elements.objectURI.absoluteString)")
            Swift.print(ObjectPrinter.text(ObjectPrinter.values(of: object)))
        }
    }
}
