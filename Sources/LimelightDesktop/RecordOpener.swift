import Foundation
import LimelightData

/// Opens a record by its marker file the way `limelight open` does: the marker must lie in a
/// registered records folder and decode to an object of its store, and the application
/// registered for its type (`DesktopHandler`) is started on the marker.
///
/// `limelight open` and the desktop search provider both open records through this type, so a
/// record opens alike from the shell and from the desktop's search.
public struct RecordOpener {
    /// The marker, decoded and its store opened: refused when the path is not a marker of a
    /// registered store, so that a path from elsewhere (a D-Bus caller's) opens nothing else.
    public let reader: ExternalRecordReader

    public init(markerPath: String, roots: [String: URL] = ExternalRecordsRegistry.registeredRoots()) throws {
        reader = try ExternalRecordReader(markerPath: markerPath, roots: roots)
    }

    /// The marker's path as decoded (what the application is given).
    public var markerPath: String { reader.elements.markerURL.path }

    /// Starts the application registered for the marker's type on the marker and returns it
    /// with its process, still running; `nil` when no application is registered.
    public func start() throws -> (handler: DesktopHandler, process: Process)? {
        guard let handler = try DesktopHandler.find(forFile: markerPath) else { return nil }
        return (handler, try handler.start(file: markerPath))
    }
}
