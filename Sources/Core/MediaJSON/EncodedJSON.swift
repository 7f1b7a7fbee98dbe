/// A JSON value already written by `jsonBytes`, kept as bytes so a large document (a page of the content
/// tree) is encoded once and then embedded in every message that carries it without encoding it again.
public struct EncodedJSON: Sendable, Hashable {
    public let bytes: [UInt8]

    public init(_ value: JSONValue) { bytes = value.jsonBytes }

    /// Takes bytes that `jsonBytes` wrote (or that hold exactly one JSON value); they are not checked.
    public init(encoded bytes: [UInt8]) { self.bytes = bytes }

    /// The value again; parses, so it is for readers off the hot path (tests, logs).
    public var value: JSONValue { (try? JSONValue(parsing: bytes)) ?? .null }
}

/// Writes one small object member by member: no dictionary to build and no keys to sort, for a
/// message on a hot path (every command's reply). Members must come in sorted key order, so the bytes
/// are the same as `jsonBytes` of the whole object.
public struct JSONObjectWriter {
    private var output: [UInt8]

    public init(capacity: Int = 128) {
        output = []
        output.reserveCapacity(capacity)
        output.append(UInt8(ascii: "{"))
    }

    /// `key` is written as it is: plain ASCII that needs no escaping.
    public mutating func member(_ key: StaticString, _ value: JSONValue) {
        open(key)
        value.write(to: &output)
    }

    public mutating func member(_ key: StaticString, encoded value: EncodedJSON) {
        open(key)
        output.append(contentsOf: value.bytes)
    }

    public consuming func finish() -> [UInt8] {
        output.append(UInt8(ascii: "}"))
        return output
    }

    private mutating func open(_ key: StaticString) {
        if output.count > 1 { output.append(UInt8(ascii: ",")) }
        output.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { output.append(contentsOf: $0) }
        output.append(contentsOf: "\":".utf8)
    }
}
