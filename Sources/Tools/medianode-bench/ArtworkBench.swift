import Artwork
import CGdkPixbuf
import Foundation
import MediaNodeFixtures

/// Artwork processing per picture: the node's processor (decode, turn upright, scale to 600 px, encode a
/// JPEG of at most 256 KiB) beside gdk-pixbuf decoding and scaling to the same size alone (the floor: what
/// any resize costs before encoding), interleaved in blocks on one thread.
enum ArtworkBench {
    static func run(repetitions: Int, in directory: URL) async throws {
        let pictures = directory.appendingPathComponent("pictures")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        let cases: [(String, URL)] = [
            ("cover 1000x1000 JPEG", try await AudioFixtures.writeCover(named: "cover.jpg", width: 1000, height: 1000, in: pictures)),
            ("cover 800x800 PNG", try await AudioFixtures.writeCover(named: "cover.png", width: 800, height: 800, pattern: 18, in: pictures)),
            ("photo 3000x3000 JPEG of noise", try await AudioFixtures.writeCover(named: "noise.jpg", width: 3000, height: 3000, pattern: 1, in: pictures)),
        ]
        let processor = ArtworkProcessor(maximumDimension: 600)
        for (name, url) in cases {
            let bytes = [UInt8](try Data(contentsOf: url))
            let output = try processor.process(bytes)
            let (subject, floor) = await onDedicatedThread {
                var subject = LatencySamples(), floor = LatencySamples()
                for round in 0..<(repetitions / 5 + 1) {
                    var subjectBlock = LatencySamples(), floorBlock = LatencySamples()
                    for _ in 0..<5 {
                        let start = ContinuousClock.now
                        _ = try? processor.process(bytes)
                        subjectBlock.append(ContinuousClock.now - start)
                    }
                    for _ in 0..<5 {
                        let start = ContinuousClock.now
                        decodeAndScale(bytes, width: output.width, height: output.height)
                        floorBlock.append(ContinuousClock.now - start)
                    }
                    if round == 0 { continue }  // warm-up
                    subject.values += subjectBlock.values
                    floor.values += floorBlock.values
                }
                return (subject, floor)
            }
            report("artwork \(name), \(bytes.count) bytes in -> \(output.width)x\(output.height) JPEG, \(output.bytes.count) bytes out:",
                   subject: ("medianode: ArtworkProcessor.process", subject),
                   floor: ("floor: gdk-pixbuf decode + scale only", floor))
        }
    }

    /// The floor: the same loader and the same bilinear scale, no orientation, no encoding.
    static func decodeAndScale(_ bytes: [UInt8], width: Int, height: Int) {
        let loader = gdk_pixbuf_loader_new()
        defer { mn_loader_unref(loader) }
        _ = bytes.withUnsafeBufferPointer { gdk_pixbuf_loader_write(loader, $0.baseAddress, gsize($0.count), nil) }
        _ = gdk_pixbuf_loader_close(loader, nil)
        guard let pixbuf = gdk_pixbuf_loader_get_pixbuf(loader),
              let scaled = gdk_pixbuf_scale_simple(pixbuf, Int32(width), Int32(height), GDK_INTERP_BILINEAR)
        else { return }
        mn_pixbuf_unref(scaled)
    }
}
