import MediaJSON
import RemoteCommands
import Testing

/// How a raw `P/cmd/<name>` payload becomes a request, or a reply saying what was wrong with it.
@Suite("Command requests")
struct CommandRequestTests {
    static func decode(_ payload: [UInt8], name: String = "play", limit: Int = CommandRequest.defaultMaximumPayload)
        -> CommandRequest.Decoded {
        CommandRequest.decode(name: name, payload: payload, maximumPayload: limit)
    }

    static func refusal(_ decoded: CommandRequest.Decoded) -> String? {
        guard case let .refused(reply) = decoded else { return nil }
        #expect(reply.result.status == .commandFailed)
        return reply.result.message
    }

    @Test("an empty or blank payload is a request without parameters")
    func emptyPayload() {
        #expect(Self.decode([]) == .request(CommandRequest(name: "play")))
        #expect(Self.decode(Array(" \n\t\r".utf8)) == .request(CommandRequest(name: "play")))
    }

    @Test("a payload over the size limit is refused before it is read")
    func sizeLimit() {
        let fits = Array(#"{"id":"1"}"#.utf8)
        #expect(Self.refusal(Self.decode(fits, limit: fits.count)) == nil, "exactly the limit is fine")
        let message = Self.refusal(Self.decode(fits, limit: fits.count - 1))
        #expect(message == "payload of 10 bytes exceeds the limit of 9 bytes")
        let huge = [UInt8](repeating: 0x20, count: CommandRequest.defaultMaximumPayload + 1)
        #expect(Self.refusal(Self.decode(huge))?.contains("exceeds the limit of 65536 bytes") == true)
    }

    @Test("invalid UTF-8 is refused")
    func invalidUTF8() {
        let bytes: [UInt8] = Array(#"{"id":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect(Self.refusal(Self.decode(bytes)) == "payload is not valid UTF-8")
    }

    @Test("malformed JSON is refused with the offset where reading stopped")
    func malformed() {
        #expect(Self.refusal(Self.decode(Array(#"{"id":}"#.utf8)))?.hasPrefix("malformed JSON at byte 6") == true)
    }

    @Test("a payload that is not an object is refused and names what it was")
    func notAnObject() {
        #expect(Self.refusal(Self.decode(Array("[]".utf8))) == "payload must be a JSON object, got an array")
        #expect(Self.refusal(Self.decode(Array("42".utf8))) == "payload must be a JSON object, got a number")
        #expect(Self.refusal(Self.decode(Array("null".utf8))) == "payload must be a JSON object, got null")
    }

    @Test("the id is echoed: text as is, whole numbers as text")
    func identifiers() {
        func id(_ text: String) -> String?? {
            guard case let .request(request) = Self.decode(Array(text.utf8)) else { return .none }
            return .some(request.id)
        }
        #expect(id(#"{"id":"abc"}"#) == .some("abc"))
        #expect(id(#"{"id":42}"#) == .some("42"))
        #expect(id(#"{"id":-7}"#) == .some("-7"))
        #expect(id(#"{"id":null}"#) == .some(nil))
        #expect(id("{}") == .some(nil))
        #expect(Self.refusal(Self.decode(Array(#"{"id":1.5}"#.utf8))) == "'id' must be a string")
        #expect(Self.refusal(Self.decode(Array(#"{"id":true}"#.utf8))) == "'id' must be a string, got a boolean")
    }

    @Test("a number too large to be an exact id is refused, not a crash")
    func hugeNumericIdentifier() {
        #expect(Self.refusal(Self.decode(Array(#"{"id":1e300}"#.utf8))) == "'id' must be a string")
        #expect(Self.refusal(Self.decode(Array(#"{"id":-9.3e18}"#.utf8))) == "'id' must be a string")
    }

    @Test("a refusal still carries the command name as it arrived")
    func refusalNamesCommand() {
        guard case let .refused(reply) = Self.decode(Array("[".utf8), name: "nope") else {
            Issue.record("expected a refusal")
            return
        }
        #expect(reply.command == "nope")
        #expect(reply.id == nil)
    }

    @Test("a reply is the contract's JSON object")
    func replyShape() {
        let success = CommandReply(id: "42", command: "pause", result: .success)
        #expect(success.json.jsonString
            == #"{"code":0,"command":"pause","data":null,"id":"42","message":null,"status":"success"}"#)
        let codes = CommandStatus.allCases.map { "\($0.rawValue)=\($0.code)" }
        #expect(codes == ["success=0", "noSuchContent=100", "noActionableNowPlayingItem=110", "deviceNotFound=120",
                          "commandFailed=200"])
    }
}
