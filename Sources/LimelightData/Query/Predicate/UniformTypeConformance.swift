import Foundation

/// Which uniform type identifiers conform to which, for the predicate operators `UTI-CONFORMS-TO`
/// and `UTI-EQUALS` (`ANY $attachment.registeredTypeIdentifiers UTI-CONFORMS-TO "public.image"`).
///
/// There is no system type database on Linux, so this carries the hierarchy of the public types
/// Apple declares that predicates name in practice. A type it does not know conforms only to
/// itself. Identifiers compare without regard to case, as UTIs do.
enum UniformTypeConformance {
    /// The types each type directly conforms to.
    static let parents: [String: [String]] = [
        "public.item": [],
        "public.content": [],
        "public.data": ["public.item"],
        "public.directory": ["public.item"],
        "public.folder": ["public.directory"],
        "com.apple.package": ["public.directory"],
        "com.apple.bundle": ["public.directory"],
        "com.apple.application-bundle": ["com.apple.application", "com.apple.bundle", "com.apple.package"],
        "com.apple.application": ["public.data"],
        "public.symlink": ["public.item"],
        "com.apple.alias-file": ["public.data"],
        "public.url": ["public.data"],
        "public.file-url": ["public.url"],
        "public.composite-content": ["public.content"],
        "public.text": ["public.data", "public.content"],
        "public.plain-text": ["public.text"],
        "public.utf8-plain-text": ["public.plain-text"],
        "public.utf16-plain-text": ["public.plain-text"],
        "public.utf16-external-plain-text": ["public.plain-text"],
        "public.delimited-values-text": ["public.text"],
        "public.comma-separated-values-text": ["public.delimited-values-text"],
        "public.tab-separated-values-text": ["public.delimited-values-text"],
        "public.rtf": ["public.text"],
        "public.html": ["public.text"],
        "public.xml": ["public.text"],
        "public.json": ["public.text"],
        "public.yaml": ["public.text"],
        "public.source-code": ["public.plain-text"],
        "public.script": ["public.source-code"],
        "public.shell-script": ["public.script"],
        "public.python-script": ["public.script"],
        "public.swift-source": ["public.source-code"],
        "public.vcard": ["public.text"],
        "com.apple.ical.ics": ["public.text"],
        "net.daringfireball.markdown": ["public.plain-text"],
        "com.adobe.pdf": ["public.data", "public.composite-content"],
        "com.apple.rtfd": ["com.apple.package", "public.composite-content"],
        "com.apple.flat-rtfd": ["public.data", "public.composite-content"],
        "org.openxmlformats.wordprocessingml.document": ["public.data", "public.composite-content"],
        "org.openxmlformats.spreadsheetml.sheet": ["public.data", "public.spreadsheet"],
        "org.openxmlformats.presentationml.presentation": ["public.data", "public.presentation"],
        "public.spreadsheet": ["public.content"],
        "public.presentation": ["public.composite-content"],
        "public.image": ["public.data", "public.content"],
        "public.jpeg": ["public.image"],
        "public.png": ["public.image"],
        "public.tiff": ["public.image"],
        "com.compuserve.gif": ["public.image"],
        "public.heic": ["public.heif-standard"],
        "public.heif": ["public.heif-standard"],
        "public.heif-standard": ["public.image"],
        "public.camera-raw-image": ["public.image"],
        "public.svg-image": ["public.image", "public.xml"],
        "org.webmproject.webp": ["public.image"],
        "com.microsoft.bmp": ["public.image"],
        "com.microsoft.ico": ["public.image"],
        "com.apple.icns": ["public.image"],
        "public.audiovisual-content": ["public.data", "public.content"],
        "public.movie": ["public.audiovisual-content"],
        "public.video": ["public.movie"],
        "public.audio": ["public.audiovisual-content"],
        "com.apple.quicktime-movie": ["public.movie"],
        "public.mpeg": ["public.movie"],
        "public.mpeg-4": ["public.movie"],
        "com.apple.m4v-video": ["public.movie"],
        "public.avi": ["public.movie"],
        "public.mp3": ["public.audio"],
        "public.mpeg-4-audio": ["public.mpeg-4", "public.audio"],
        "com.apple.m4a-audio": ["public.audio"],
        "com.microsoft.waveform-audio": ["public.audio"],
        "public.aiff-audio": ["public.audio"],
        "public.archive": ["public.data"],
        "public.zip-archive": ["public.archive"],
        "org.gnu.gnu-zip-archive": ["public.archive"],
        "public.tar-archive": ["public.archive"],
        "public.executable": ["public.item"],
        "public.database": ["public.item"],
        "public.contact": ["public.item"],
        "public.message": ["public.item"],
        "com.apple.pkpass": ["public.data"],
        "public.font": ["public.data"],
    ]

    /// Whether `type` is `parent` or declares conformance to it, directly or through its parents.
    static func conforms(_ type: String, to parent: String) -> Bool {
        let wanted = parent.lowercased()
        var pending = [type.lowercased()]
        var seen: Set<String> = []
        while let next = pending.popLast() {
            if next == wanted { return true }
            guard seen.insert(next).inserted else { continue }
            pending += parents[next] ?? []
        }
        return false
    }

    /// Whether two identifiers name the same type.
    static func equal(_ type: String, _ other: String) -> Bool {
        type.lowercased() == other.lowercased()
    }
}
