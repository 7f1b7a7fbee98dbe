/// Writes a JSON document token by token into bytes, exactly as `JSONValue.jsonBytes` would write it,
/// for documents on a hot path: building a `JSONValue` costs a dictionary and a key sort per object (a
/// 100-item tree page took about 0.4 ms that way). The caller writes an object's keys in sorted order
/// itself, so the bytes stay the ones change detection compares.
public struct JSONByteWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Punctuation and keys, written as given: `{"children":[`.
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// A value already written (`jsonBytes` or this writer's), copied as it is.
    public mutating func raw(encoded value: [UInt8]) { bytes.append(contentsOf: value) }

    public mutating func string(_ value: String) { JSONValue.writeString(value, to: &bytes) }

    public mutating func string(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    public mutating func number(_ value: Double) { JSONValue.writeNumber(value, to: &bytes) }

    public mutating func number(_ value: Int) { JSONValue.writeNumber(Double(value), to: &bytes) }

    public mutating func bool(_ value: Bool) { raw(value ? "true" : "false") }

    public mutating func null() { raw("null") }
}
