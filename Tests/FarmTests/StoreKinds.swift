import Foundation
import ReelTestSupport
import Testing
@testable import Farm

/// The two stores the store suite runs against (docs/architecture.md, "The store").
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgres

    /// Both where a PostgreSQL server is given (and always in CI), SQLite alone elsewhere.
    static var tested: [StoreKind] { TestPostgres.isTested ? allCases : [.sqlite] }

    var testDescription: String { rawValue }

    /// A new, empty store of this kind.
    func freshLocation(_ name: String = #function) throws -> StoreLocation {
        switch self {
        case .sqlite: .sqlite(path: try TestEnvironment.scratchDirectory(name).appendingPathComponent("farm.sqlite").path)
        case .postgres: .postgres(url: try TestPostgres.freshStore(name))
        }
    }
}
