import Foundation
import ReelTestSupport
import Testing

/// Every `docs/NAME.md, "Section"` that code, tests, benchmarks or docs cite names a file
/// of the repository and one of its headings, and nothing cites material outside the
/// repository: a maintainer who follows a reference finds what it promises.
struct DocsReferencesTests {
    static let root = TestEnvironment.packageRoot

    /// Headings of each markdown document, by its path from the package root.
    static func headings() throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        let docs = root.appendingPathComponent("docs")
        let names = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        for name in names + ["README.md"] {
            let text = try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
            result[name] = text.split(separator: "\n").compactMap { line in
                guard line.hasPrefix("#") else { return nil }
                return line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            }
        }
        return result
    }

    /// Files that may cite docs: sources, tests, benchmarks, cluster files, docs, README.
    static func citingFiles() -> [URL] {
        var files: [URL] = [root.appendingPathComponent("README.md")]
        for folder in ["Sources", "Tests", "bench", "cluster", "docs"] {
            guard let walker = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            else { continue }
            for case let url as URL in walker where ["swift", "md", "py", "yaml", "yml", "sh", ""].contains(url.pathExtension) {
                files.append(url)
            }
        }
        return files
    }

    @Test func everyCitedSectionExists() throws {
        let headings = try Self.headings()
        // `docs/x.md, "Section"` or `docs/x.md ("Section")`, the section possibly wrapped over a comment line.
        let citation = /(docs\/[\w.-]+\.md|README\.md),?\s*\(?"([A-Za-z][^"\n]*(?:\n\s*(?:\/\/\/|\/\/|#)?\s*[^"\n]*)?)"/
        var broken: [String] = []
        var checked = 0
        for file in Self.citingFiles() where file.lastPathComponent != "DocsReferencesTests.swift" {
            guard let text = try? String(contentsOf: file, encoding: .utf8), text.contains(".md") else { continue }
            for match in text.matches(of: citation) {
                let document = String(match.output.1)
                let section = String(match.output.2).replacing(/\s*\n\s*(?:\/\/\/|\/\/|#)?\s*/, with: " ")
                guard !section.contains(where: { "(){}=;\\".contains($0) }) else { continue }   // code, not a citation
                checked += 1
                let place = "\(file.path.dropFirst(Self.root.path.count + 1)): \(document), \"\(section)\""
                guard let titles = headings[document] else {
                    broken.append(place + " (no such document)")
                    continue
                }
                if !titles.contains(where: { $0 == section || $0.hasPrefix(section) }) { broken.append(place) }
            }
        }
        #expect(checked > 100, "only \(checked) citations found: is the pattern still right?")
        #expect(broken.isEmpty, "\(broken.joined(separator: "\n"))")
    }

    /// docs/architecture.md names types a maintainer will look for: each exists in the
    /// sources (or is a module, or a library's name the text says is one).
    @Test func architectureNamesOnlyTypesThatExist() throws {
        var declared = Set<String>()
        let declaration = /\b(?:struct|class|enum|protocol|typealias|actor|extension)\s+(\w+)/
        let sources = Self.root.appendingPathComponent("Sources")
        let modules = try FileManager.default.contentsOfDirectory(atPath: sources.path)
        guard let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else { return }
        for case let url as URL in walker where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            for match in text.matches(of: declaration) { declared.insert(String(match.output.1)) }
        }
        let libraries: Set = ["AVERROR", "AVIOContext", "AffineTransform", "Int128", "Mutex", "Sendable", "ServiceGroup"]
        let text = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let named = Set(text.matches(of: /`([A-Z][A-Za-z0-9]+)`/).map { String($0.output.1) })
        let unknown = named.subtracting(declared).subtracting(modules).subtracting(libraries)
        #expect(named.count > 40)
        #expect(unknown.isEmpty, "docs/architecture.md names \(unknown.sorted())")
    }

    @Test func nothingCitesMaterialOutsideTheRepository() throws {
        var outside: [String] = []
        // The workplace's material, named by its parts so that this file does not cite it
        // either (it is checked like every other).
        let needles = ["../" + "shared", "(" + "notes".uppercased()] + ["filters", "design"].map { $0.uppercased() + ".md" }
        for file in Self.citingFiles() {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for needle in needles where text.contains(needle) {
                outside.append("\(file.lastPathComponent): \(needle)")
            }
        }
        #expect(outside.isEmpty, "\(outside)")
    }
}
