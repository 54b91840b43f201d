import Foundation
import LimelightDesktop

/// The icon a result is shown with: the icon of the application registered for its marker's type
/// (its desktop file's `Icon=`), else a generic document's.
final class ResultIcons {
    /// The freedesktop icon name of a plain document, for records without an application icon.
    static let generic = "text-x-generic"

    /// Icons by marker extension: one look-up (which asks `xdg-mime`) per type and process.
    private var byExtension: [String: String] = [:]

    /// A theme icon name or an absolute path, as GNOME's `gicon` and KRunner's icon name take them.
    func icon(forMarker path: String) -> String {
        let fileExtension = (path as NSString).pathExtension
        if let known = byExtension[fileExtension] { return known }
        let icon = ((try? DesktopHandler.find(forFile: path)) ?? nil)?.icon ?? Self.generic
        byExtension[fileExtension] = icon
        return icon
    }
}
