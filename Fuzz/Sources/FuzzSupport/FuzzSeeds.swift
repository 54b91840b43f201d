import Foundation

/// Seed inputs for a fuzz program, made from the repository's fixtures and the project's own
/// writers when the program starts with `LIMELIGHT_FUZZ_SEEDS=<folder>`: it writes them there
/// and exits, and `make fuzz` then runs it on that folder. Seeds are made fresh each run, so they
/// follow the formats as the writers change.
public enum FuzzSeeds {
    /// Writes `make()`'s inputs to the folder named by `LIMELIGHT_FUZZ_SEEDS`, if set, and exits.
    public static func writeIfAsked(_ make: () throws -> [Data]) {
        guard let folder = ProcessInfo.processInfo.environment["LIMELIGHT_FUZZ_SEEDS"] else { return }
        do {
            let url = URL(fileURLWithPath: folder, isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            let seeds = try make()
            for (number, seed) in seeds.enumerated() {
                try seed.write(to: url.appendingPathComponent("seed-\(number)"))
            }
            print("wrote \(seeds.count) seeds to \(folder)")
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("cannot write seeds: \(error)\n".utf8))
            exit(1)
        }
    }

    /// Stops a fuzz program whose own fixture cannot be made: nothing it would find means anything.
    public static func giveUp(_ reason: String) -> Never {
        FileHandle.standardError.write(Data("\(reason)\n".utf8))
        exit(1)
    }

    /// The bytes libFuzzer hands a program, as `Data`.
    public static func data(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Data {
        Data(bytes: bytes, count: count)
    }
}

/// The repository's test fixtures, found from this file's place in the repository.
public enum FuzzFixtures {
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    public static let folder = repository.appendingPathComponent("Tests/Fixtures", isDirectory: true)

    /// Every `contents` file of the fixtures' Xcode models.
    public static func modelContents() -> [URL] {
        var found: [URL] = []
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if url.lastPathComponent == "contents", url.deletingLastPathComponent().pathExtension == "xcdatamodel" { found.append(url) }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// A scratch folder for a fuzz program's files (a store, an index), in the process's own
    /// folder in the temporary directory: one run's, overwritten input after input, and removed
    /// when the program exits (a crash leaves it, beside the finding).
    public static func scratch(_ name: String) -> URL {
        let url = processFolder.appendingPathComponent(name, isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private static let processFolder: URL = {
        atexit { try? FileManager.default.removeItem(at: FuzzFixtures.folder(of: getpid())) }
        return folder(of: getpid())
    }()

    private static func folder(of process: pid_t) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("limelight-fuzz-\(process)", isDirectory: true)
    }
}
