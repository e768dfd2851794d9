import ImporterTestSupport
import Foundation
@testable import ImporterKit
import Testing

@Suite struct ModelFileTests {
    @Test func theBuiltInModelRoundTripsThroughYAMLAndJSON() throws {
        let yaml = ModelFile.yaml(FireballModel.model)
        #expect(try ModelFile.parse(yaml, name: "fireball.yaml") == FireballModel.model)
        let json = ModelFile.json(FireballModel.model)
        #expect(try ModelFile.parse(json, name: "fireball.json") == FireballModel.model)
        #expect(yaml.contains("expression:"))
        #expect(yaml.contains("group-by:"))
    }

    @Test func theShippedModelFileIsTheBuiltInModel() throws {
        #expect(try ModelFile.load(path: sample("models/fireball.yaml")) == FireballModel.model)
    }

    @Test func expressionsRoundTripThroughTheirText() throws {
        for derived in FireballModel.entity.derivedAttributes {
            #expect(try ExpressionParser.parse(derived.expression.text) == derived.expression)
        }
        let parsed = try ExpressionParser.parse("case when energy is not null and not (energy < -1.5) then upper('it''s') || year(date) else null end")
        #expect(try ExpressionParser.parse(parsed.text) == parsed)
        #expect(throws: ExpressionParser.Failure.self) { _ = try ExpressionParser.parse("drop(table)") }
        #expect(throws: ExpressionParser.Failure.self) { _ = try ExpressionParser.parse("energy; DELETE FROM fireball") }
        #expect(throws: ExpressionParser.Failure.self) { _ = try ExpressionParser.parse("'unclosed") }
    }

    @Test func everyProblemIsReportedWithItsLocation() throws {
        let text = """
            entities:
              - name: Station
                table: station
                key: [code]
                colour: blue
                attributes:
                  - name: code
                    type: text
                  - name: height
                    type: float
                  - name: "x, DROP TABLE station"
                    type: real
                derived:
                  - name: bad
                    type: integer
                    expression: "height +"
            views:
              - name: importer_sneaky
                entity: Station
                group-by: [nowhere]
                aggregates:
                  - {name: n, function: median}
            """
        let problems = problemsOf { () throws(ModelError) -> Model in try ModelFile.parse(text, name: "m.yaml") }
        #expect(problems.contains { $0.hasPrefix("m.yaml:5:5: entities[0]: unknown key 'colour'") })
        #expect(problems.contains { $0.hasPrefix("m.yaml:10:15: entities[0].attributes[1].type: 'float' is not one of: text, integer, real, boolean, date, datetime") })
        #expect(problems.contains { $0.hasPrefix("m.yaml:16:21: entities[0].derived[0].expression: at character 9: expected a value") })
        #expect(problems.contains { $0.hasPrefix("m.yaml:22:29: views[0].aggregates[0].function: 'median' is not one of") })
        #expect(problems.count == 4, "\(problems)")

        // With the syntax right, the model's own checks are placed at their declarations.
        let semantic = """
            entities:
              - name: Station
                table: station
                key: [code, missing]
                attributes:
                  - name: code
                    type: text
                  - name: "x, DROP TABLE station"
                    type: real
            views:
              - name: importer_sneaky
                entity: Station
                group-by: [nowhere]
                aggregates:
                  - {name: n, function: count}
                  - {name: codes, function: sum, attribute: code}
            """
        do {
            let found = problemsOf { () throws(ModelError) -> Model in try ModelFile.parse(semantic, name: "s.yaml") }
            #expect(!found.isEmpty)
            #expect(found.contains("s.yaml:8:9: entity Station: attribute: 'x, DROP TABLE station' contains a comma (importer lists changed attributes separated by commas)"))
            #expect(found.contains("s.yaml:6:9: entity Station: unique key attribute 'code' must be required (not optional)"))
            #expect(found.contains("s.yaml:2:5: entity Station: unique key attribute 'missing' is not declared"))
            #expect(found.contains("s.yaml:11:5: view importer_sneaky: the name uses a reserved prefix (importer_, sqlite_)"))
            #expect(found.contains("s.yaml:11:5: view importer_sneaky: group attribute 'nowhere' is not an attribute of Station"))
            #expect(found.contains { $0.hasSuffix("view importer_sneaky: aggregate 'codes': sum needs a number, and 'code' is text") }, "\(found)")
        }
    }

    /// The problems a model error lists (none when the body succeeds).
    private func problemsOf(_ body: () throws(ModelError) -> Model) -> [String] {
        do {
            _ = try body()
            return []
        } catch {
            if case .problems(let found) = error { return found }
            return ["\(error)"]
        }
    }

    @Test func aFeedMappingHasAURLAndHeadersValuedFromTheEnvironmentOrAFile() throws {
        let base = """
            entities:
            - name: Quake
              key: [code]
              attributes: [{name: code, type: text, required: true}]
            feeds:
            - name: api
              format: json
            """
        let model = try ModelFile.parse(base + """

              url: https://api.example.org/quakes?format=json
              headers:
              - {name: Authorization, env: QUAKE_TOKEN}
              - {name: X-Key, file: /run/secrets/key}
              fields: [{attribute: code, field: id}]
            """, name: "m.yaml")
        let source = try #require(model.feeds.first?.source)
        #expect(source == FeedSource(url: "https://api.example.org/quakes?format=json",
                                     headers: [.init(name: "Authorization", environment: "QUAKE_TOKEN"), .init(name: "X-Key", file: "/run/secrets/key")]))
        #expect(try ModelFile.parse(ModelFile.yaml(model), name: "again.yaml") == model, "url and headers round-trip")
        let inline = #expect(throws: ModelError.self) {
            try ModelFile.parse(base + "\n  url: https://api.example.org/q\n  headers: [{name: Authorization, value: secret}]\n  fields: [{attribute: code, field: id}]\n", name: "m.yaml")
        }
        #expect(inline?.description.contains("never holds a secret") == true || inline?.description.contains("value") == true)
        let ftp = #expect(throws: ModelError.self) {
            try ModelFile.parse(base + "\n  url: ftp://example.org/q\n  fields: [{attribute: code, field: id}]\n", name: "m.yaml")
        }
        #expect(ftp?.description.contains("not an http or https URL") == true)
    }

    @Test func secretQueryParametersAreValuedLikeHeaders() throws {
        let model = try ModelFile.parse("""
            entities:
            - {name: Quake, key: [code], attributes: [{name: code, type: text, required: true}]}
            feeds:
            - name: api
              format: json
              url: https://api.example.org/quakes?format=json
              parameters: [{name: api_key, env: QUAKE_KEY}]
              fields: [{attribute: code, field: id}]
            """, name: "m.yaml")
        #expect(model.feeds.first?.source?.parameters == [.init(name: "api_key", environment: "QUAKE_KEY")])
        #expect(try ModelFile.parse(ModelFile.yaml(model), name: "again.yaml") == model, "parameters round-trip")
        let inline = #expect(throws: ModelError.self) {
            try ModelFile.parse("""
                entities:
                - {name: Quake, key: [code], attributes: [{name: code, type: text, required: true}]}
                feeds:
                - {name: api, format: json, url: "https://x/q", parameters: [{name: api_key, value: abc}], fields: [{attribute: code, field: id}]}
                """, name: "m.yaml")
        }
        #expect(inline?.description.contains("never holds a secret") == true || inline?.description.contains("unknown key 'value'") == true)
    }

    @Test func aFeedMappingsPagesSayHowTheyFollowEachOther() throws {
        let base = """
            entities:
            - name: Quake
              key: [code]
              attributes: [{name: code, type: text, required: true}]
            feeds:
            - name: api
              format: json
              records: /data
              url: https://api.example.org/quakes
              fields: [{attribute: code, field: id}]
            """
        let cases: [(String, Pagination)] = [
            ("{follow: link}", Pagination(follow: .link)),
            ("{follow: url, pointer: /links/next, max: 20}", Pagination(follow: .url(pointer: "/links/next"), maxPages: 20)),
            ("{follow: cursor, pointer: /meta/next, parameter: after}", Pagination(follow: .cursor(pointer: "/meta/next", parameter: "after"))),
            ("{follow: offset, parameter: offset, size: 100}", Pagination(follow: .offset(parameter: "offset", size: 100, start: 0))),
            ("{follow: page, parameter: p, start: 0}", Pagination(follow: .page(parameter: "p", start: 0))),
        ]
        for (yaml, expected) in cases {
            let model = try ModelFile.parse(base + "\n  pages: \(yaml)\n", name: "m.yaml")
            #expect(model.feeds.first?.source?.pages == expected, "\(yaml)")
            #expect(try ModelFile.parse(ModelFile.yaml(model), name: "again.yaml") == model, "\(yaml) round-trips")
        }
        let problems: [(String, String)] = [
            ("{follow: scroll}", "not a way of paging"),
            ("{follow: cursor, pointer: /meta/next}", "missing 'parameter'"),
            ("{follow: url, pointer: links.next}", "not a JSON pointer"),
            ("{follow: offset, parameter: offset, size: 0}", "at least 1"),
            ("{follow: link, max: many}", "whole number"),
            ("{follow: link, every: 2}", "unknown key 'every'"),
        ]
        for (yaml, message) in problems {
            let error = #expect(throws: ModelError.self) { try ModelFile.parse(base + "\n  pages: \(yaml)\n", name: "m.yaml") }
            #expect(error?.description.contains(message) == true, "\(yaml): \(String(describing: error))")
            #expect(error?.description.contains("m.yaml:") == true, "located")
        }
        let csv = base.replacingOccurrences(of: "format: json", with: "format: csv").replacingOccurrences(of: "records: /data", with: "")
        let error = #expect(throws: ModelError.self) { try ModelFile.parse(csv + "\n  pages: {follow: url, pointer: /next}\n", name: "m.yaml") }
        #expect(error?.description.contains("needs a JSON feed") == true)
        let noURL = base.replacingOccurrences(of: "  url: https://api.example.org/quakes\n", with: "")
        let orphan = #expect(throws: ModelError.self) { try ModelFile.parse(noURL + "\n  pages: {follow: link}\n", name: "m.yaml") }
        #expect(orphan?.description.contains("pages need the feed's 'url'") == true)
    }

    @Test func yamlSyntaxErrorsNameTheirLine() {
        #expect(throws: ModelError.self) { _ = try ModelFile.parse("entities:\n  - name: [unclosed\n", name: "bad.yaml") }
        do {
            _ = try ModelFile.parse("entities:\n  - name: [unclosed\n", name: "bad.yaml")
        } catch {
            #expect("\(error)".contains("bad.yaml:3:1"))
        }
    }

    @Test func namesCanNeverInjectSQL() {
        for name in ["fireball\"; DROP TABLE x; --", "a b", "1st", "importer_history", "sqlite_master", String(repeating: "x", count: 65)] {
            var entity = FireballModel.entity
            entity.tableName = name
            #expect(!entity.validate().isEmpty, "\(name)")
        }
        #expect(SQLIdentifier.quoted("a\"b") == "\"a\"\"b\"")
    }
}
