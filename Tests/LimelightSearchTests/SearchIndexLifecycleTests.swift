import Foundation
import LimelightSearch
import Testing

/// Xapian databases over time: metadata, readers that see later commits, the writer lock, and
/// every Xapian exception turned into a typed error.
struct SearchIndexLifecycleTests {
    @Test func metadataIsKeptAndSeenByReadersAfterCommit() throws {
        let scratch = try Scratch()
        let index = try SearchIndex(path: scratch.path("db"))
        #expect(try index.metadata(forKey: "limelight.fields") == nil)
        try index.setMetadata("name,directions", forKey: "limelight.fields")
        #expect(try index.metadata(forKey: "limelight.fields") == "name,directions")
        try index.commit()
        let reader = try SearchIndexReader(path: scratch.path("db"))
        #expect(try reader.metadata(forKey: "limelight.fields") == "name,directions")
        try index.setMetadata("name", forKey: "limelight.fields")
        try index.commit()
        try reader.reopen()
        #expect(try reader.metadata(forKey: "limelight.fields") == "name")
    }

    @Test func aReaderSeesNewCommitsAfterReopening() throws {
        let scratch = try Scratch()
        let index = try SearchIndex(path: scratch.path("db"))
        try index.replaceDocument(Scratch.document("a", name: "First", body: "word"))
        try index.commit()
        let reader = try SearchIndexReader(path: scratch.path("db"))
        try index.replaceDocument(Scratch.document("b", name: "Second", body: "word"))
        // Uncommitted work is invisible even after reopening.
        try reader.reopen()
        #expect(try ids(reader, "word") == ["a"])
        try index.commit()
        #expect(try ids(reader, "word") == ["a"])
        try reader.reopen()
        #expect(try ids(reader, "word") == ["a", "b"])
    }

    /// A reader left on an old revision while the writer rewrites everything many times over:
    /// Xapian throws DatabaseModifiedError once the old revision's blocks are reused, which the
    /// wrapper answers by reopening, so every search succeeds.
    @Test func aReaderLeftBehindByManyCommitsKeepsWorking() throws {
        let scratch = try Scratch()
        let index = try SearchIndex(path: scratch.path("db"))
        for id in 0..<200 { try index.replaceDocument(Scratch.document("\(id)", name: "Item", body: "generation0 filler text \(id)")) }
        try index.commit()
        let reader = try SearchIndexReader(path: scratch.path("db"))
        for generation in 1...12 {
            for id in 0..<200 {
                try index.replaceDocument(Scratch.document("\(id)", name: "Item", body: "generation\(generation) filler text \(id) " + String(repeating: "padding ", count: 20)))
            }
            try index.commit()
            // A word this reader has not read yet, so its blocks come from the old revision.
            #expect(try ids(reader, "\(generation * 13)").count == 1)
            #expect(reader.documentCount == 200)
        }
        // Had it never reopened by itself, it would still see generation 0.
        #expect(try ids(reader, "generation0").isEmpty)
        try reader.reopen()
        var latest = Scratch.query("generation12")
        latest.limit = 500
        #expect(try ids(reader, latest).count == 200)
        #expect(try ids(reader, "generation11").isEmpty)
    }

    @Test func aSecondWriterIsRefusedWithXapiansMessage() throws {
        let scratch = try Scratch()
        let first = try SearchIndex(path: scratch.path("db"))
        let error = try #require(throws: SearchIndexError.self) { try SearchIndex(path: scratch.path("db"), lockTimeout: 0) }
        #expect(error.kind == .lock)
        #expect(error.message.contains("DatabaseLockError"))
        #expect(error.description.contains("locked by another writer"))
        try first.close()
        // Once the first writer has let go, a second one opens.
        let second = try SearchIndex(path: scratch.path("db"), lockTimeout: 0)
        #expect(second.documentCount == 0)
        // The closed one reports errors rather than crashing.
        #expect(throws: SearchIndexError.self) { try first.replaceDocument(Scratch.document("a", name: "x", body: "y")) }
    }

    @Test func aWriterWaitsForTheLockToBeReleased() throws {
        let scratch = try Scratch()
        let path = scratch.path("db")
        let opened = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0)
        // The holder is opened, used and closed on its own thread: an index is not shared.
        Thread.detachNewThread {
            let holder = try? SearchIndex(path: path)
            opened.signal()
            usleep(300_000)
            try? holder?.close()
            released.signal()
        }
        opened.wait()
        #expect(FileManager.default.fileExists(atPath: path))
        // Retries for up to 30 s; the holder lets go after a moment.
        let waiting = try SearchIndex(path: path, lockTimeout: 30)
        released.wait()
        try waiting.replaceDocument(Scratch.document("a", name: "Got", body: "the lock"))
        try waiting.commit()
        #expect(waiting.documentCount == 1)
    }

    @Test func everyXapianExceptionBecomesATypedError() throws {
        let scratch = try Scratch()
        // A missing database.
        let missing = try #require(throws: SearchIndexError.self) { try SearchIndexReader(path: scratch.path("nothing")) }
        #expect(missing.kind == .opening)
        #expect(!missing.message.isEmpty)
        // A corrupt one: the right file names with garbage inside.
        let corrupt = scratch.url.appendingPathComponent("corrupt")
        try FileManager.default.createDirectory(at: corrupt, withIntermediateDirectories: true)
        for name in ["iamglass", "postlist.glass", "termlist.glass", "docdata.glass"] {
            try Data(repeating: 0x5A, count: 8192).write(to: corrupt.appendingPathComponent(name))
        }
        let unreadable = try #require(throws: SearchIndexError.self) { try SearchIndexReader(path: corrupt.path) }
        #expect([.corrupt, .opening].contains(unreadable.kind))
        #expect(unreadable.path == corrupt.path)
        #expect(throws: SearchIndexError.self) { try SearchIndex(path: corrupt.path, lockTimeout: 0) }
        // A path that is a file, not a folder.
        try Data("x".utf8).write(to: scratch.url.appendingPathComponent("file"))
        #expect(throws: SearchIndexError.self) { try SearchIndex(path: scratch.path("file"), lockTimeout: 0) }
        // An unknown stemming language, for writing and for searching.
        let language = try #require(throws: SearchIndexError.self) { try SearchIndex(path: scratch.path("db"), language: "klingon") }
        #expect(language.message.contains("klingon"))
        let index = try SearchIndex(path: scratch.path("db"))
        try index.replaceDocument(Scratch.document("a", name: "Salsa", body: "tomato"))
        try index.commit()
        var query = Scratch.query("tomato")
        query.language = "klingon"
        let reader = try SearchIndexReader(path: scratch.path("db"))
        #expect(throws: SearchIndexError.self) { try reader.search(query) }
        // A query Xapian's parser refuses.
        let parse = try #require(throws: SearchIndexError.self) { try reader.search(Scratch.query("AND")) }
        #expect(parse.kind == .queryParse)
        #expect(parse.description.contains("cannot parse the query"))
    }

    /// A limit or offset beyond Xapian's 32-bit counts, as a request on the daemon's socket or a
    /// command line may carry, trapped the daemon; they now mean "all" and "past the end".
    @Test func limitsAndOffsetsBeyond32BitsAreClamped() throws {
        let scratch = try Scratch()
        let index = try SearchIndex(path: scratch.path("db"))
        for id in ["a", "b"] { try index.replaceDocument(Scratch.document(id, name: "Dish \(id)", body: "shared words")) }
        try index.commit()
        let reader = try SearchIndexReader(path: scratch.path("db"))
        var query = Scratch.query("shared")
        query.limit = 99_999_999_999
        #expect(Set(try ids(reader, query)) == ["a", "b"])
        query.offset = 1
        #expect(try ids(reader, query).count == 1)
        query.offset = Int.max
        #expect(try ids(reader, query).isEmpty)
        query.offset = -5
        query.limit = Int.min
        #expect(try ids(reader, query).isEmpty)
    }
}
