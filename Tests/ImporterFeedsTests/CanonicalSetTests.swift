import ImporterTestSupport
@testable import ImporterFeeds
import ImporterModel
import Testing

/// `repeated: set`: the values a record lists, in a canonical order, each once, whatever order the
/// feed lists them in.
@Suite struct CanonicalSetTests {
    static func canonical(_ text: String) -> (String, Bool) {
        let result = Array(text.utf8).withUnsafeBufferPointer { CanonicalSet.canonical($0) }
        return (String(decoding: result.text, as: UTF8.self), result.repeated)
    }

    @Test func anyOrderGivesOneTextAndARepeatIsKeptOnce() {
        #expect(Self.canonical(#"["b","a","c"]"#) == (#"["a","b","c"]"#, false))
        #expect(Self.canonical(#"["c","a","b"]"#) == (#"["a","b","c"]"#, false))
        #expect(Self.canonical(#"["b","a","b"]"#) == (#"["a","b"]"#, true))
        #expect(Self.canonical("[]") == ("[]", false))
        #expect(Self.canonical(#"[null,2,"x",true,1.5]"#) == (#"["x",1.5,2,null,true]"#, false))
    }

    /// Commas and quotes inside a value do not split it.
    @Test func valuesHoldingCommasAndQuotesStayWhole() {
        let elements = Array(#"["x,y","a\"b",",","\\"]"#.utf8).withUnsafeBufferPointer { CanonicalSet.elements(of: $0) }
        #expect(elements.map { String(decoding: $0, as: UTF8.self) } == [#""x,y""#, #""a\"b""#, #"",""#, #""\\""#])
        #expect(Self.canonical(#"["x,y","a\"b","x,y"]"#) == (#"["a\"b","x,y"]"#, true))
    }

    /// Permuting a set's values never changes its text (a property over random lists).
    @Test func everyPermutationGivesTheSameText() {
        var generator = SplitMix64(seed: 44)
        for _ in 0..<200 {
            let values = (0..<Int.random(in: 0...6, using: &generator)).map { _ in "\"v\(Int.random(in: 0...4, using: &generator)),\\\"\"" }
            let expected = Self.canonical("[" + values.joined(separator: ",") + "]")
            let shuffled = values.shuffled(using: &generator)
            #expect(Self.canonical("[" + shuffled.joined(separator: ",") + "]") == expected, "\(values) / \(shuffled)")
        }
    }

    @Test func aSetIsTextAndParsesFromTheModelFile() throws {
        let yaml = """
            entities:
            - name: Episode
              table: episode
              key: [guid]
              attributes:
              - {name: guid, type: text, required: true}
              - {name: cast, type: text}
            feeds:
            - name: rss
              entity: Episode
              format: xml
              records: /rss/channel/item
              fields:
              - {attribute: guid, field: guid}
              - {attribute: cast, field: author, repeated: set}
            """
        let model = try ModelFile.parse(yaml, name: "m.yaml")
        #expect(model.feeds[0].fields[1].repeated == .set && model.validate().isEmpty)
        #expect(ModelFile.yaml(model).contains("repeated: set"))
        var numbered = model
        numbered.entities[0].attributes.append(AttributeDescription(name: "rank", type: .integer))
        var rank = FieldMapping(attribute: "rank", field: "rank")
        rank.repeated = .set
        numbered.feeds[0].fields.append(rank)
        #expect(numbered.validate().contains { $0.contains("repeated: set stores text, but 'rank' is integer") }, "\(numbered.validate())")
    }
}
