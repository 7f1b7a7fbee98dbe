import MediaJSON
import RemoteCommands
import Testing

/// A large document encoded once and spliced into many replies must read exactly as if encoded whole.
@Suite("Encoded JSON spliced into replies")
struct EncodedJSONTests {
    @Test("an object with encoded members is byte for byte the encoding of the whole value")
    func splicedObjectMatchesWholeEncoding() throws {
        let data: JSONValue = ["children": [["title": "A \"quoted\" title"], ["title": "é"]], "offset": 0]
        let whole: JSONValue = ["command": "browse", "data": data, "id": "7", "message": .null, "zeta": true]
        var writer = JSONObjectWriter()
        writer.member("command", "browse")
        writer.member("data", encoded: EncodedJSON(data))
        writer.member("id", "7")
        writer.member("message", .null)
        writer.member("zeta", true)
        #expect(writer.finish() == whole.jsonBytes)
        #expect(EncodedJSON(data).value == data)
    }

    @Test("a reply with encoded data is sent as the same bytes as one with the value")
    func replyBytesMatch() {
        let data: JSONValue = ["indexPath": [0, 1], "children": []]
        let withValue = CommandReply(id: "b", command: "browse", result: .success(data: data))
        let withBytes = CommandReply(id: "b", command: "browse", result: .success(encodedData: EncodedJSON(data)))
        #expect(withBytes.jsonBytes == withValue.json.jsonBytes)
        #expect(withValue.jsonBytes == withValue.json.jsonBytes)
        #expect(withBytes == withValue)
        let failed = CommandReply(id: nil, command: "browse", result: CommandResult(.noSuchContent, message: "none"))
        #expect(failed.jsonBytes == failed.json.jsonBytes)
        // The reply is written member by member; escaping must match the general encoder too.
        let escaped = CommandReply(id: "q\"1", command: "pläy", result: CommandResult(.commandFailed, message: "a\nb \\ \u{1}"))
        #expect(escaped.jsonBytes == escaped.json.jsonBytes)
        #expect(escaped.json.jsonString.contains(#""id":"q\"1""#))
    }
}
