import CGdkPixbuf

/// A picture ready to publish: JPEG, within the size limits.
public struct ProcessedArtwork: Sendable, Equatable {
    public var bytes: [UInt8]
    public var width: Int
    public var height: Int
    /// JPEG when this processor made it; a cached PNG already within the limits is published as it is.
    public var mimeType: String

    public init(bytes: [UInt8], width: Int, height: Int, mimeType: String = "image/jpeg") {
        self.bytes = bytes
        self.width = width
        self.height = height
        self.mimeType = mimeType
    }
}

public struct ArtworkError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Decodes a picture (JPEG, PNG, GIF, ...), turns it upright, scales it to fit `maximumDimension` and
/// encodes it as a JPEG of at most `maximumBytes` (many brokers and head units choke on large packets).
///
/// CPU-bound (a few ms for a typical cover): call it off latency-sensitive paths.
public struct ArtworkProcessor: Sendable {
    public var maximumDimension: Int
    public var maximumBytes: Int

    /// The most pixels a picture may have to be decoded at all: a few hundred bytes of PNG can declare
    /// 30,000 x 30,000 pixels, gigabytes once decoded. 36 million (6,000 x 6,000) is more than any cover.
    public var maximumPixels: Int

    public init(maximumDimension: Int = 600, maximumBytes: Int = 256 * 1024, maximumPixels: Int = 36_000_000) {
        self.maximumDimension = max(16, maximumDimension)
        self.maximumBytes = max(4096, maximumBytes)
        self.maximumPixels = max(1, maximumPixels)
    }

    /// The picture's width and height from its header, without decoding it; nil when it cannot be read.
    public static func dimensions(of data: [UInt8]) -> (width: Int, height: Int)? {
        let check = SizeCheck(maximumPixels: 0)
        _ = try? load(data, check: check)
        return check.width > 0 && check.height > 0 ? (check.width, check.height) : nil
    }

    public func process(_ data: [UInt8]) throws(ArtworkError) -> ProcessedArtwork {
        guard !data.isEmpty else { throw ArtworkError(message: "empty image") }
        let decoded = try Self.decode(data, maximumPixels: maximumPixels)
        defer { mn_pixbuf_unref(decoded) }
        // Pictures from phones carry their rotation in EXIF; a head unit would show them on their side.
        let upright = gdk_pixbuf_apply_embedded_orientation(decoded) ?? decoded
        defer { if upright != decoded { mn_pixbuf_unref(upright) } }
        var width = Int(gdk_pixbuf_get_width(upright))
        var height = Int(gdk_pixbuf_get_height(upright))
        guard width > 0, height > 0 else { throw ArtworkError(message: "image has no pixels") }
        let scale = min(1, Double(maximumDimension) / Double(max(width, height)))
        width = max(1, Int((Double(width) * scale).rounded()))
        height = max(1, Int((Double(height) * scale).rounded()))
        var qualities = [85, 75, 60, 45]
        while true {
            guard let scaled = gdk_pixbuf_scale_simple(upright, Int32(width), Int32(height), GDK_INTERP_BILINEAR) else {
                throw ArtworkError(message: "cannot scale the image")
            }
            defer { mn_pixbuf_unref(scaled) }
            for quality in qualities {
                let bytes = try Self.encodeJPEG(scaled, quality: quality)
                if bytes.count <= maximumBytes { return ProcessedArtwork(bytes: bytes, width: width, height: height) }
            }
            // Still too large at the lowest quality: shrink and try again.
            qualities = [60, 45]
            width = max(1, width * 3 / 4)
            height = max(1, height * 3 / 4)
        }
    }

    private static func decode(_ data: [UInt8], maximumPixels: Int) throws(ArtworkError) -> OpaquePointer {
        let check = SizeCheck(maximumPixels: maximumPixels)
        do {
            return try load(data, check: check)
        } catch {
            if check.refused {
                throw ArtworkError(message: "picture of \(check.width) x \(check.height) pixels refused without decoding "
                                   + "(more than \(maximumPixels / 1_000_000) million pixels)")
            }
            throw error
        }
    }

    /// What the loader's "size-prepared" handler sees and decides.
    final class SizeCheck {
        let maximumPixels: Int
        var width = 0
        var height = 0
        var refused = false
        init(maximumPixels: Int) { self.maximumPixels = maximumPixels }
    }

    private static func load(_ data: [UInt8], check: SizeCheck) throws(ArtworkError) -> OpaquePointer {
        let loader = gdk_pixbuf_loader_new()
        defer { mn_loader_unref(loader) }
        let context = Unmanaged.passRetained(check)
        defer { context.release() }
        mn_loader_on_size_prepared(loader, { loader, width, height, context in
            guard let context else { return }
            let check = Unmanaged<SizeCheck>.fromOpaque(context).takeUnretainedValue()
            check.width = Int(width)
            check.height = Int(height)
            if check.width * check.height > check.maximumPixels {
                check.refused = true
                // A size of zero makes every gdk-pixbuf loader stop before it allocates the picture.
                gdk_pixbuf_loader_set_size(loader, 0, 0)
            }
        }, context.toOpaque())
        var error: UnsafeMutablePointer<GError>?
        let wrote = data.withUnsafeBufferPointer { gdk_pixbuf_loader_write(loader, $0.baseAddress, gsize($0.count), &error) }
        var closeError: UnsafeMutablePointer<GError>?
        let closed = gdk_pixbuf_loader_close(loader, &closeError)
        if error == nil { error = closeError } else if let closeError { g_error_free(closeError) }
        if wrote == 0 || closed == 0 {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown image format"
            if let error { g_error_free(error) }
            throw ArtworkError(message: "not a readable image: \(message)")
        }
        guard let pixbuf = gdk_pixbuf_loader_get_pixbuf(loader) else {
            throw ArtworkError(message: "not a readable image")
        }
        // The loader owns its pixbuf; keep our own reference past the loader's release.
        mn_pixbuf_ref(pixbuf)
        return pixbuf
    }

    private static func encodeJPEG(_ pixbuf: OpaquePointer, quality: Int) throws(ArtworkError) -> [UInt8] {
        var buffer: UnsafeMutablePointer<gchar>?
        var size: gsize = 0
        var error: UnsafeMutablePointer<GError>?
        guard mn_pixbuf_save_jpeg(pixbuf, &buffer, &size, Int32(quality), &error) != 0, let buffer else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            throw ArtworkError(message: "cannot encode JPEG: \(message)")
        }
        defer { g_free(buffer) }
        return buffer.withMemoryRebound(to: UInt8.self, capacity: Int(size)) {
            Array(UnsafeBufferPointer(start: $0, count: Int(size)))
        }
    }
}
