// A child process for the crash test: it imports generated catalogs into a database over and over, saying
// on stdout when each transaction starts and commits, until the test kills it with SIGKILL.
//
// Usage: catalog-import-child <database> <source location> <items> <first generation>
import CatalogStore
import Foundation
import MediaNodeTesting

let arguments = CommandLine.arguments
guard arguments.count == 5, let items = Int(arguments[3]), let first = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: catalog-import-child <database> <location> <items> <generation>\n".utf8))
    exit(2)
}
let database = try CatalogDatabase(path: arguments[1])
let source = CatalogSource(kind: .json, location: arguments[2])
try await database.register(source)
/// Unbuffered, so the parent sees each line the moment it is written.
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

var generation = first
while true {
    let snapshot = SyntheticCatalog.snapshot(source: source, items: items, generation: generation)
    say("writing \(generation)")
    try await database.replaceContent(of: source.identifier, with: snapshot)
    say("committed \(generation)")
    generation += 1
}
