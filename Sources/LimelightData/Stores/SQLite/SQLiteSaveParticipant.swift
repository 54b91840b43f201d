import Foundation

/// Takes part in an SQLite store's saves: called inside the transaction (to journal work that
/// must commit with the data) and after commit (to carry it out, possibly later); `flush` waits
/// for work carried out later, and `storeWillClose` finishes it before the connection closes.
/// `willCommit` is handed the changes as the context made them, with `insertedIDs[i]` the ID
/// `changes.inserted[i]` was stored under (its permanent ID), so no snapshot is rebuilt for it.
protocol SQLiteSaveParticipant: AnyObject {
    func storeDidOpen(_ store: SQLiteStore) throws
    func willCommit(_ changes: SaveChanges, insertedIDs: [ManagedObjectID], store: SQLiteStore) throws
    func didCommit(store: SQLiteStore)
    func flush(store: SQLiteStore) throws
    func storeWillClose(_ store: SQLiteStore)
}
