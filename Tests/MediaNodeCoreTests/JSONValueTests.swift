import MediaJSON
import Testing

/// The wire format of every topic: strict reading (RFC 8259) and byte-stable writing.
@Suite("JSON values")
struct JSONValueTests {
    static func parse(_ text: String) throws -> JSONValue { try JSONValue(parsing: text) }

    static func failure(_ text: String) -> JSONParseError? {
        do {
            _ = try JSONValue(parsing: text)
            return nil
        } catch {
            return error
        }
    }

    static func nested(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    @Test("escapes, including \\u and surrogate pairs, read as their characters")
    func escapes() throws {
        #expect(try Self.parse(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{08}\u{0C}\n\r\t"))
        #expect(try Self.parse(#""\u00e9\u00C9 \u20AC""#) == .string("éÉ €"))
        #expect(try Self.parse(#""\ud83c\udfb5""#) == .string("🎵"))
        #expect(try Self.parse(#""\u0000""#) == .string("\u{0}"))
        #expect(try Self.parse("\"raw 🎵 é\"") == .string("raw 🎵 é"))
    }

    @Test("numbers: signs, fractions and exponents")
    func numbers() throws {
        let cases: [(String, Double)] = [
            ("0", 0), ("-0", 0), ("42", 42), ("-17", -17), ("3.25", 3.25), ("1e3", 1000), ("1E+3", 1000),
            ("2.5e-3", 0.0025), ("-1.5E2", -150), ("0.1", 0.1), ("1e-400", 0),
        ]
        for (text, value) in cases { #expect(try Self.parse(text) == .number(value), "\(text)") }
    }

    @Test("whitespace, literals and nesting")
    func structure() throws {
        let text = " \t\r\n{ \"a\" : [ true , false , null , { } , [ ] ] , \"b\" : { \"c\" : \"d\" } } \n"
        #expect(try Self.parse(text) == ["a": [true, false, nil, [:], []], "b": ["c": "d"]])
        #expect(try Self.parse(Self.nested(JSONValue.maximumDepth)).arrayValue != nil, "64 levels are fine")
    }

    @Test("malformed documents are refused with the offset where reading stopped")
    func malformed() {
        let cases: [(String, Int, String)] = [
            ("[1,]", 3, "unexpected character"),
            (#"{"a":1,}"#, 7, "expected a member name"),
            ("01", 1, "unexpected text after"),
            ("[01]", 2, "expected ',' or ']'"),
            ("-", 1, "expected a digit"),
            ("1.", 2, "after '.'"),
            ("1e", 2, "exponent"),
            (".5", 0, "unexpected character"),
            ("+1", 0, "unexpected character"),
            ("\"a\u{01}b\"", 2, "control character"),
            ("\"tab\there\"", 4, "control character"),
            (#""\ud800""#, 7, "unpaired surrogate"),
            (#""\ud800\u0041""#, 13, "invalid low surrogate"),
            (#""\udc00""#, 7, "invalid \\u escape"),
            (#""\x""#, 3, "invalid escape"),
            (#""\u12g4""#, 5, "hex digit"),
            ("\"open", 5, "unterminated string"),
            ("tru", 3, "expected 'true'"),
            ("nul", 3, "expected 'null'"),
            ("{\"a\" 1}", 5, "expected ':'"),
            ("{'a':1}", 1, "member name"),
            ("[1 2]", 3, "expected ',' or ']'"),
            ("", 0, "unexpected end"),
            ("1e999", 5, "out of range"),
            ("NaN", 0, "unexpected character"),
        ]
        for (text, offset, fragment) in cases {
            let error = Self.failure(text)
            #expect(error?.offset == offset, "\(text.debugDescription): \(error?.description ?? "accepted")")
            #expect(error?.message.contains(fragment) == true, "\(text.debugDescription): \(error?.message ?? "")")
        }
    }

    @Test("documents nested deeper than 64 levels are refused")
    func depthLimit() {
        let error = Self.failure(Self.nested(JSONValue.maximumDepth + 1))
        #expect(error?.offset == JSONValue.maximumDepth)
        #expect(error?.message.contains("nested deeper than 64") == true)
        let objects = String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(Self.failure(objects) != nil)
    }

    @Test("integral numbers print without a fraction, others in full")
    func numberWriting() {
        let cases: [(Double, String)] = [
            (1, "1"), (-3, "-3"), (0, "0"), (-0.0, "0"), (231, "231"), (1.5, "1.5"), (0.1, "0.1"),
            (1_763_800_000.25, "1763800000.25"), (9_007_199_254_740_991, "9007199254740991"),
            (.infinity, "null"), (.nan, "null"),
        ]
        for (value, text) in cases { #expect(JSONValue.number(value).jsonString == text, "\(value)") }
    }

    @Test("keys are written sorted and compact, so equal values give equal bytes")
    func sortedKeys() {
        let value: JSONValue = ["zeta": 1, "alpha": ["b": true, "a": nil], "Mid": "x", "_": []]
        #expect(value.jsonString == #"{"Mid":"x","_":[],"alpha":{"a":null,"b":true},"zeta":1}"#)
    }

    @Test("strings are escaped as JSON requires")
    func stringWriting() {
        #expect(JSONValue.string("a\"b\\c\nd\re\tf\u{01}g/é🎵").jsonString == #""a\"b\\c\nd\re\tf\u0001g/é🎵""#)
    }

    @Test("writing then reading gives the same value back")
    func roundTrip() throws {
        let values: [JSONValue] = [
            nil, true, 0, -12, 0.5, 1e-7, .number(.greatestFiniteMagnitude), .number(.leastNonzeroMagnitude), 123_456.789, "", "🎵 \u{0} \u{1F}",
            [1, [2, [3, ["deep": [:]]]]],
            ["state": "playing", "timestamp": 1_763_800_000.25, "ids": ["a", "b"], "n": nil],
        ]
        for value in values {
            let text = value.jsonString
            #expect(try JSONValue(parsing: text) == value, "\(text)")
            #expect(try JSONValue(parsing: text).jsonString == text, "stable bytes for \(text)")
        }
    }

    @Test("accessors answer only for their own type")
    func accessors() {
        let value: JSONValue = ["n": 1, "s": "x", "b": false, "a": [], "o": [:]]
        #expect(value["n"]?.numberValue == 1 && value["n"]?.stringValue == nil)
        #expect(value["s"]?.stringValue == "x" && value["b"]?.boolValue == false)
        #expect(value["a"]?.arrayValue == [] && value["o"]?.objectValue == [:])
        #expect(value["missing"] == nil && JSONValue.string("x")["key"] == nil)
        #expect(JSONValue(nil as String?) == .null && JSONValue(3 as Int?) == 3)
        #expect([JSONValue.null, true, 1, "", [], [:]].map(\.typeName)
            == ["null", "a boolean", "a number", "a string", "an array", "an object"])
    }
}
