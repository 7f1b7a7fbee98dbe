import Foundation

/// SHA-256 (FIPS 180-4), for artwork content keys and stable identifiers: swift-corelibs-foundation has no
/// digest API and a content hash must be the same on every node, so it cannot be Swift's seeded `Hasher`.
///
/// A scan hashes a key per track, album, artist and genre, so this works in place: no arrays per call.
public enum SHA256 {
    /// The digest of `data` as 64 lowercase hex digits.
    public static func hex(_ data: Data) -> String {
        data.withUnsafeBytes { hex(of: $0) }
    }

    /// The digest of a string's UTF-8 bytes as hex.
    public static func hex(_ text: String) -> String {
        var text = text
        return text.withUTF8 { hex(of: UnsafeRawBufferPointer($0)) }
    }

    /// The 32-byte digest of `data`.
    public static func digest(_ data: Data) -> [UInt8] {
        data.withUnsafeBytes { bytes in
            let state = hash(bytes)
            return (0..<32).map { UInt8(truncatingIfNeeded: state[$0 / 4] >> UInt32(24 - 8 * ($0 % 4))) }
        }
    }

    static func hex(of bytes: UnsafeRawBufferPointer) -> String {
        let state = hash(bytes)
        return String(unsafeUninitializedCapacity: 64) { text in
            for word in 0..<8 {
                for nibble in 0..<8 {
                    text[word * 8 + nibble] = digits[Int(state[word] >> UInt32(28 - 4 * nibble) & 0xF)]
                }
            }
            return 64
        }
    }

    /// The eight state words after hashing `bytes`.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt32] {
        var state = Block.initial
        // The message schedule and the padded tail live on the stack.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            let w = schedule.baseAddress!
            let whole = bytes.count / 64 * 64
            var offset = 0
            while offset < whole {
                state.compress(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 64]), schedule: w)
                offset += 64
            }
            // The tail, a 0x80 byte, zeros and the bit length fill one or two more blocks.
            withUnsafeTemporaryAllocation(byteCount: 128, alignment: 8) { tail in
                tail.initializeMemory(as: UInt8.self, repeating: 0)
                let rest = bytes.count - whole
                if rest > 0 { tail.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[whole...])) }
                tail[rest] = 0x80
                let blocks = rest < 56 ? 1 : 2
                let bits = UInt64(bytes.count) &* 8
                for index in 0..<8 { tail[blocks * 64 - 1 - index] = UInt8(truncatingIfNeeded: bits >> UInt64(8 * index)) }
                for block in 0..<blocks {
                    state.compress(UnsafeRawBufferPointer(rebasing: tail[block * 64..<block * 64 + 64]), schedule: w)
                }
            }
        }
        return [state.a, state.b, state.c, state.d, state.e, state.f, state.g, state.h]
    }

    struct Block {
        var a, b, c, d, e, f, g, h: UInt32

        static let initial = Block(
            a: 0x6a09_e667, b: 0xbb67_ae85, c: 0x3c6e_f372, d: 0xa54f_f53a, e: 0x510e_527f, f: 0x9b05_688c,
            g: 0x1f83_d9ab, h: 0x5be0_cd19)

        mutating func compress(_ block: UnsafeRawBufferPointer, schedule w: UnsafeMutablePointer<UInt32>) {
            for t in 0..<16 {
                let i = t * 4
                w[t] = UInt32(block[i]) << 24 | UInt32(block[i + 1]) << 16 | UInt32(block[i + 2]) << 8
                    | UInt32(block[i + 3])
            }
            for t in 16..<64 {
                let w15 = w[t - 15], w2 = w[t - 2]
                let s0 = rotate(w15, 7) ^ rotate(w15, 18) ^ (w15 >> 3)
                let s1 = rotate(w2, 17) ^ rotate(w2, 19) ^ (w2 >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var a = a, b = b, c = c, d = d, e = e, f = f, g = g, h = h
            for t in 0..<64 {
                let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                let choice = (e & f) ^ (~e & g)
                let temp1 = h &+ s1 &+ choice &+ SHA256.roundConstant(t) &+ w[t]
                let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let temp2 = s0 &+ majority
                h = g; g = f; f = e; e = d &+ temp1
                d = c; c = b; b = a; a = temp1 &+ temp2
            }
            self.a &+= a; self.b &+= b; self.c &+= c; self.d &+= d
            self.e &+= e; self.f &+= f; self.g &+= g; self.h &+= h
        }
    }

    @inline(__always)
    static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 { value >> count | value << (32 - count) }

    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    @inline(__always)
    static func roundConstant(_ t: Int) -> UInt32 {
        roundConstants.withUnsafeBufferPointer { $0[t] }
    }

    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}

/// Identifiers that stay the same across refreshes, so progress, marks and head-unit selections survive.
public enum StableIdentifier {
    /// `<prefix>:<16 hex digits of SHA-256(key)>`: short, topic-safe, and stable for the same key.
    public static func make(_ prefix: String, key: String) -> String {
        prefix + ":" + String(SHA256.hex(key).prefix(16))
    }
}
