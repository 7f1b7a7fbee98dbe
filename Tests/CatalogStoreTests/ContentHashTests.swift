import CatalogStore
import Foundation
import Testing

/// Item identifiers, artwork keys and catalog content hashes are stored in existing databases and named in
/// retained topics (`P/artwork/<key>`): whatever computes them, they must stay the same bytes. The expected values are
/// SHA-256 as `sha256sum` prints it, at the lengths where padding changes (55, 56, 64 bytes).
@Suite("content hashes stay what earlier databases stored")
struct ContentHashTests {
    /// A pattern that is not all one byte, so a digest that mixes bytes up would show.
    static func pattern(_ count: Int) -> Data { Data((0..<count).map { UInt8(($0 * 31 + 7) % 256) }) }

    static let expected: [(length: Int, hex: String)] = [
        (0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (1, "ca358758f6d27e6cf45272937977a748fd88391db679ceda7dc7bf1f005ee879"),
        (55, "8aa994584139d128848eeebc4e815639ba5ab6e6e39574195a63ac4f14f7c43b"),
        (56, "ad574708f75c044c9b85de64cb568ee7711ff4f36448c6242f053ba8f6cc2b63"),
        (63, "280ed3e8ff1df845b2e7dfe6ac6cee817bef20e783cc65abc41b818b4d2fe076"),
        (64, "c6ab9724ade5b6a7a1edfffb12f3aa9181351355af8fd08c919952ad211339dd"),
        (65, "788367c73c7ddf4c53f65e68cc0d943e6227ab55b0e78ba63ace822b1c6301c0"),
        (119, "3d610547d68216dedf7435a4fb6260353911f6b3fd3f18805ddb8be285d726fe"),
        (1_000_003, "98a99a78c43949f17251c669c6e3ff37064482fdc65e85ef1f21b70c2e48a81b"),
    ]

    @Test("the hash of bytes is their SHA-256 in lowercase hex, at every padding boundary")
    func vectors() {
        for (length, hex) in Self.expected {
            #expect(SHA256.hex(Self.pattern(length)) == hex, "\(length) bytes")
        }
        #expect(SHA256.hex(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("an artwork's key is the SHA-256 of its bytes, as the catalog stored it before")
    func artworkKey() {
        let blob = ArtworkBlob(data: Self.pattern(65))
        #expect(blob.key == "788367c73c7ddf4c53f65e68cc0d943e6227ab55b0e78ba63ace822b1c6301c0")
        #expect(ArtworkBlob(data: Data("Café – 東京".utf8)).key == "de3e3b22156ee5ca608e87bb8b3c30932003d635b367d21726ccee5839cfc77a")
    }

    @Test("stable identifiers are the prefix and 16 hex digits of the key's SHA-256, as stored before")
    func stableIdentifiers() {
        #expect(StableIdentifier.make("track", key: "local:0123456789abcdef\n/music/Band/First/01 Intro.ogg")
            == "track:b5f56f60b46ba689")
        #expect(StableIdentifier.make("local", key: "/media/usb0\n/home/ÿ/Müsik") == "local:c0ce1a2a5f2cfe10")
        #expect(StableIdentifier.make("episode", key: "rss:feed\nhttps://example.net/ep?id=7&x=ü") == "episode:f1e1d13e645996ba")
        #expect(SHA256.hex("abc") == SHA256.hex(Data("abc".utf8)))
    }

    @Test("a slice of a larger buffer hashes as its own bytes")
    func slice() {
        let whole = Self.pattern(200)
        #expect(SHA256.hex(whole[whole.startIndex + 10..<whole.startIndex + 66]) == SHA256.hex(Data(whole[10..<66])))
    }
}
