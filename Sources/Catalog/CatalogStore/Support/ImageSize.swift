import Foundation

/// The pixel size of a JPEG or PNG from its header, without decoding it: the tree's artwork references
/// carry the size so a dashboard can lay out a grid before it fetches a single picture.
public enum ImageSize {
    /// Width and height, or nil when the bytes are neither a JPEG nor a PNG with a readable header.
    public static func of(_ data: Data) -> (width: Int, height: Int)? {
        data.withUnsafeBytes { raw -> (width: Int, height: Int)? in
            let bytes = raw.bindMemory(to: UInt8.self)
            if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return png(bytes) }
            if bytes.starts(with: [0xFF, 0xD8]) { return jpeg(bytes) }
            return nil
        }
    }

    private static func bigEndian(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int, _ count: Int) -> Int {
        (offset..<offset + count).reduce(0) { $0 << 8 | Int(bytes[$1]) }
    }

    /// IHDR is the first chunk: width and height at bytes 16 and 20.
    private static func png(_ bytes: UnsafeBufferPointer<UInt8>) -> (width: Int, height: Int)? {
        guard bytes.count >= 24 else { return nil }
        let width = bigEndian(bytes, 16, 4)
        let height = bigEndian(bytes, 20, 4)
        return width > 0 && height > 0 ? (width, height) : nil
    }

    /// Walks the marker segments up to the first start-of-frame, which holds the size.
    private static func jpeg(_ bytes: UnsafeBufferPointer<UInt8>) -> (width: Int, height: Int)? {
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF {
                offset += 1  // fill byte
                continue
            }
            // Markers without a length: TEM and the restart markers.
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                offset += 2
                continue
            }
            let length = bigEndian(bytes, offset + 2, 2)
            // Start of frame: every SOFn but DHT (C4), JPG (C8) and DAC (CC).
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard offset + 9 <= bytes.count else { return nil }
                let height = bigEndian(bytes, offset + 5, 2)
                let width = bigEndian(bytes, offset + 7, 2)
                return width > 0 && height > 0 ? (width, height) : nil
            }
            guard length >= 2 else { return nil }
            offset += 2 + length
        }
        return nil
    }
}
