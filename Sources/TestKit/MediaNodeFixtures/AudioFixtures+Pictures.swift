import Foundation

extension AudioFixtures {
    /// What an embedded picture is, as FLAC and Vorbis comments number it.
    public enum PictureType: UInt32, Sendable {
        case other = 0
        case frontCover = 3
        case backCover = 4
    }

    /// Embeds `image` (JPEG or PNG bytes) in the Ogg Vorbis file at `audio` as a METADATA_BLOCK_PICTURE
    /// comment, the way taggers store cover art in Ogg, with vorbis-tools' `vorbiscomment`.
    public static func embedPicture(_ image: Data, type: PictureType = .frontCover, in audio: URL) async throws {
        let mimeType = image.starts(with: [0x89, 0x50, 0x4E, 0x47]) ? "image/png" : "image/jpeg"
        // The FLAC picture block: big-endian lengths; width, height, depth and colours may be zero (unknown).
        var block = Data()
        func append(_ value: UInt32) { withUnsafeBytes(of: value.bigEndian) { block.append(contentsOf: $0) } }
        append(type.rawValue)
        append(UInt32(mimeType.utf8.count))
        block.append(contentsOf: Array(mimeType.utf8))
        append(0)
        for _ in 0..<4 { append(0) }
        append(UInt32(image.count))
        block.append(image)
        let comments = audio.deletingLastPathComponent()
            .appendingPathComponent(".\(audio.lastPathComponent).comments")
        defer { try? FileManager.default.removeItem(at: comments) }
        try Data(("METADATA_BLOCK_PICTURE=" + block.base64EncodedString() + "\n").utf8).write(to: comments)
        try await run("vorbiscomment", ["-a", "-R", "-c", comments.path, audio.path])
    }
}
