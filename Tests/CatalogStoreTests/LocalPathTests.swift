import CatalogStore
import Foundation
import Testing

@Suite("Paths as bytes")
struct LocalPathTests {
    @Test("every file name maps to a string and back to its exact bytes; only names that are not UTF-8 change")
    func roundTrip() {
        let names: [[UInt8]] = [
            Array("/music/Plain.ogg".utf8),
            Array("/music/Café.ogg".utf8),
            Array("/music/Caf".utf8) + [0xE9] + Array(".ogg".utf8),       // Latin-1
            Array("/music/".utf8) + [0xC3, 0x28, 0xFF, 0x80],               // broken UTF-8
            Array("/music/\u{F7E9}.ogg".utf8),                               // valid, but one of the escapes itself
        ]
        for bytes in names {
            let path = LocalPath.string(fromBytes: bytes)
            #expect(LocalPath.bytes(of: path) == bytes, "\(path.debugDescription)")
            #expect(LocalPath.path(fromFileURI: LocalPath.fileURI(of: path)) == path)
        }
        #expect(LocalPath.string(fromBytes: names[1]) == "/music/Café.ogg")
        #expect(LocalPath.fileURI(of: "/music/Café.ogg") == URL(fileURLWithPath: "/music/Café.ogg").absoluteString)
        let latin1 = LocalPath.string(fromBytes: names[2])
        #expect(LocalPath.fileURI(of: latin1) == "file:///music/Caf%E9.ogg")
        #expect(LocalPath.displayName(latin1) == "/music/Café.ogg")
        #expect(LocalPath.displayName(LocalPath.string(fromBytes: [0x93, 0x41, 0x94])) == "\u{201C}A\u{201D}")
    }
}
