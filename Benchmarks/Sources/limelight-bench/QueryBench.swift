import CSQLiteBench
import Foundation
import LimelightData

/// Predicates translated to SQL against the same query written by hand, and batch faulting of a
/// large to-many against one hand-written SELECT, all on one store that Limelight wrote.
struct QueryBench {
    let workspace: Workspace
    let url: URL
    let itemCount: Int
    let folderSize: Int
    static let tagNames = (0..<99).map { "tag\($0)" } + ["x"]

    init(workspace: Workspace) {
        self.workspace = workspace
        url = workspace.root.appendingPathComponent("query.sqlite")
        itemCount = workspace.scaled(200_000)
        folderSize = workspace.scaled(10_000)
    }

    static let model: ManagedObjectModel = {
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "name", type: .string), AttributeDescription(name: "rank", type: .integer64),
            RelationshipDescription(name: "tags", destination: "Tag", inverse: "items", toMany: true),
        ])
        let tag = EntityDescription(name: "Tag", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "items", destination: "Item", inverse: "tags", toMany: true),
        ])
        let folder = EntityDescription(name: "Folder", properties: [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "notes", destination: "Note", inverse: "folder", toMany: true),
        ])
        let note = EntityDescription(name: "Note", properties: [
            AttributeDescription(name: "title", type: .string), AttributeDescription(name: "size", type: .integer64),
            RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes"),
        ])
        return ManagedObjectModel(entities: [item, tag, folder, note])
    }()

    func context() throws -> ManagedObjectContext { try StoreBench.context(url, model: Self.model) }

    /// Items named from the corpus with two tags each (one in a hundred carries `x`), and one folder
    /// of `folderSize` notes.
    func populate() throws {
        let context = try context()
        var tags: [ManagedObject] = []
        for name in Self.tagNames {
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue(name, forKey: "name")
            tags.append(tag)
        }
        try context.save()
        var random = SplitMix64(seed: 11)
        for index in 0..<itemCount {
            let item = try context.insertNewObject(forEntityName: "Item")
            item.setValue(workspace.corpus.name(index), forKey: "name")
            item.setValue(Int64(index), forKey: "rank")
            let first = Int(random.next() % UInt64(tags.count)), second = (first + 1 + Int(random.next() % 98)) % tags.count
            item.setValue(Set([tags[first], tags[second]]), forKey: "tags")
            if index % 20_000 == 19_999 {
                try context.save()
                context.reset()
                var byName: [String: ManagedObject] = [:]
                for tag in try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag")) { byName[tag.value(forKey: "name") as? String ?? ""] = tag }
                tags = Self.tagNames.compactMap { byName[$0] }
            }
        }
        let folder = try context.insertNewObject(forEntityName: "Folder")
        folder.setValue("inbox", forKey: "title")
        for index in 0..<folderSize {
            let note = try context.insertNewObject(forEntityName: "Note")
            note.setValue(workspace.corpus.name(index), forKey: "title")
            note.setValue(Int64(index), forKey: "size")
            note.setValue(folder, forKey: "folder")
        }
        try context.save()
    }

    /// A raw connection with the folding function a hand-written query needs for `[cd]`; SQLite's
    /// own NOCASE and LIKE fold ASCII only.
    func rawDatabase() throws -> RawDatabase {
        let db = try RawDatabase(url.path)
        let rc = sqlite3_create_function_v2(db.handle, "FOLD", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, _, args in
            guard let args, let text = sqlite3_value_text(args[0]) else { sqlite3_result_null(context); return }
            let folded = String(cString: text).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
            sqlite3_result_text(context, folded, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }, nil, nil, nil)
        guard rc == SQLITE_OK else { throw BenchError("cannot register FOLD") }
        return db
    }

    /// Fetches with `format` through a fresh context and reads every result's attributes; the peer
    /// runs `sql` and reads the same columns. Both must find the same number of rows.
    func compare(_ title: String, format: String, sql: String) throws -> Measure {
        var ours: [Double] = [], raw: [Double] = []
        var counts: Set<Int> = []
        for _ in 0..<workspace.repeats {
            let context = try context()
            ours.append(try seconds {
                let request = FetchRequest<ManagedObject>(entityName: "Item", predicate: try QueryPredicate(format: format))
                request.returnsObjectsAsFaults = false
                var total = 0
                let objects = try context.fetch(request)
                for object in objects {
                    total += (object.value(forKey: "name") as? String)?.utf8.count ?? 0
                    total += Int(object.value(forKey: "rank") as? Int64 ?? 0) & 1
                }
                counts.insert(objects.count)
                if total == -1 { print("") }
            })
            let db = try rawDatabase()
            raw.append(try seconds {
                let select = try db.prepare(sql)
                counts.insert(readTitlesAndSizes(select))
            })
        }
        guard counts.count == 1 else { throw BenchError("\(format): Limelight and the hand-written SQL disagree: \(counts.sorted()) rows") }
        return Measure(name: "\(title) over \(itemCount) rows (\(counts.first ?? 0) hits)", unit: "s", ours: Series(label: "Limelight", samples: ours),
                       peers: [Series(label: "hand-written SQL", samples: raw)], goal: "≤ 1.3×") { ours, peers in
            peers["hand-written SQL"].map { ours <= 1.3 * $0 }
        }
    }

    func contains() throws -> Measure {
        try compare("fetch `name CONTAINS[cd] 'é'`", format: "name CONTAINS[cd] 'é'",
                    sql: "SELECT Z_PK, ZNAME, ZRANK FROM ZITEM WHERE instr(FOLD(ZNAME), 'e') > 0")
    }

    /// The join table's name and columns come from the store itself (Core Data numbers them).
    func anyTag() throws -> Measure {
        let db = try RawDatabase(url.path)
        guard let join = try db.strings("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%TAGS' ESCAPE '\\'").first else {
            throw BenchError("no join table for Item.tags in \(url.path)")
        }
        let columns = try db.strings("SELECT name FROM pragma_table_info('\(join)')")
        guard let itemColumn = columns.first(where: { $0.hasSuffix("ITEMS") }), let tagColumn = columns.first(where: { $0.hasSuffix("TAGS") }) else {
            throw BenchError("unexpected columns \(columns) in \(join)")
        }
        let sql = """
            SELECT Z_PK, ZNAME, ZRANK FROM ZITEM WHERE EXISTS (SELECT 1 FROM \(join) J JOIN ZTAG T ON T.Z_PK = J.\(tagColumn) \
            WHERE J.\(itemColumn) = ZITEM.Z_PK AND T.ZNAME = 'x')
            """
        return try compare("fetch `ANY tags.name == 'x'`", format: "ANY tags.name == 'x'", sql: sql)
    }

    /// Walks the folder's notes from a fresh context, reading two attributes of each: the faults fire
    /// in batches. The peer reads the same rows with one SELECT on the foreign key.
    func batchFaulting() throws -> Measure {
        var ours: [Double] = [], raw: [Double] = []
        var counts: Set<Int> = []
        for _ in 0..<workspace.repeats {
            let context = try context()
            ours.append(try seconds {
                guard let folder = try context.fetch(FetchRequest<ManagedObject>(entityName: "Folder")).first,
                      let notes = folder.value(forKey: "notes") as? Set<ManagedObject> else { throw BenchError("no folder") }
                var total = 0
                for note in notes {
                    total += (note.value(forKey: "title") as? String)?.utf8.count ?? 0
                    total += Int(note.value(forKey: "size") as? Int64 ?? 0) & 1
                }
                counts.insert(notes.count)
                if total == -1 { print("") }
            })
            let db = try RawDatabase(url.path)
            raw.append(try seconds {
                let folder = try db.prepare("SELECT Z_PK FROM ZFOLDER LIMIT 1")
                guard folder.step() else { throw BenchError("no folder") }
                let select = try db.prepare("SELECT Z_PK, ZTITLE, ZSIZE FROM ZNOTE WHERE ZFOLDER = ?")
                select.bind(1, folder.int64(0))
                counts.insert(readTitlesAndSizes(select))
            })
        }
        guard counts.count == 1 else { throw BenchError("batch faulting: Limelight and SQL disagree: \(counts.sorted()) rows") }
        return Measure(name: "batch faulting: walk a to-many of \(folderSize) objects", unit: "s", ours: Series(label: "Limelight", samples: ours),
                       peers: [Series(label: "one SQL query", samples: raw)], goal: "≤ 1.5×") { ours, peers in
            peers["one SQL query"].map { ours <= 1.5 * $0 }
        }
    }

    /// Reads every row's title (column 1) and size (column 2) as the Limelight side reads them, so
    /// both sides touch the same data; returns the number of rows.
    func readTitlesAndSizes(_ select: RawStatement) -> Int {
        var total = 0, rows = 0
        while select.step() {
            total += select.text(1).utf8.count + Int(select.int64(2) & 1)
            rows += 1
        }
        if total == -1 { print("") }   // keeps the reads from being optimised away
        return rows
    }
}
