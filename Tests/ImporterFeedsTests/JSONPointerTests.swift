import ImporterTestSupport
import Foundation
@testable import ImporterFeeds
@testable import ImporterKit
import PropertyBased
import Testing

/// JSON pointers (RFC 6901) as field addresses: checked against a reference resolver over
/// Foundation's parse of the same document.
@Suite struct JSONPointerTests {
    /// Reads `document` as the only record of a JSON array and returns each pointer's raw slot text
    /// ("absent" when the record has no such field).
    static func read(_ document: String, pointers: [String], repeated: RepeatedValues = .reject) throws -> [String: String] {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = try directory.write("feed.json", "[\(document)]")
        let reader = try JSONRecordsReader(source: try ByteSource(path: path), records: nil, lines: false)
        _ = try reader.open(requesting: pointers)
        var record = RawRecord(slotCount: pointers.count, repeated: Array(repeating: repeated, count: pointers.count))
        #expect(try reader.next(into: &record))
        var result: [String: String] = [:]
        for (slot, pointer) in pointers.enumerated() {
            switch record.slots[slot].kind {
            case .absent: result[pointer] = "absent"
            case .composite: result[pointer] = "composite"
            default: result[pointer] = record.text(of: slot)
            }
        }
        #expect(try !reader.next(into: &record))
        return result
    }

    @Test func arrayIndexesAndEscapes() throws {
        let document = #"{"geometry":{"type":"Point","coordinates":[-155.28,19.41,31.5]},"a/b":{"m~n":7},"list":[{"x":1},{"x":2}],"id":"us1"}"#
        let values = try Self.read(document, pointers: ["/geometry/coordinates/0", "/geometry/coordinates/1", "/geometry/coordinates/2",
                                                        "/geometry/coordinates/3", "/a~1b/m~0n", "/list/1/x", "/list/01/x", "/id", "/geometry/type"])
        #expect(values["/geometry/coordinates/0"] == "-155.28")
        #expect(values["/geometry/coordinates/1"] == "19.41")
        #expect(values["/geometry/coordinates/2"] == "31.5")
        #expect(values["/geometry/coordinates/3"] == "absent")
        #expect(values["/a~1b/m~0n"] == "7")
        #expect(values["/list/1/x"] == "2")
        #expect(values["/list/01/x"] == "absent")
        #expect(values["/id"] == "us1")
        #expect(values["/geometry/type"] == "Point")
    }

    @Test func arraysOfValuesFollowTheRepeatedRule() throws {
        let document = #"{"tags":["a","b\"q",3,null],"none":[],"one":["x"],"mixed":[1,{"y":2}]}"#
        let pointers = ["/tags", "/none", "/one", "/mixed"]
        let all = try Self.read(document, pointers: pointers, repeated: .all)
        #expect(all["/tags"] == #"["a","b\"q",3,null]"#)
        #expect(all["/none"] == "[]")
        #expect(all["/one"] == #"["x"]"#)
        #expect(all["/mixed"] == "composite")
        let joined = try Self.read(document, pointers: pointers, repeated: .join("|"))
        #expect(joined["/tags"] == #"a|b"q|3"#)
        #expect(joined["/none"] == "null")
        #expect(try Self.read(document, pointers: pointers, repeated: .first)["/tags"] == "a")
        #expect(try Self.read(document, pointers: pointers, repeated: .last)["/tags"] == "null")
        // An object among the values makes the field composite, whatever its place.
        for composite in [#"{"v":[{"y":2},1]}"#, #"{"v":[1,{"y":2}]}"#] {
            #expect(try Self.read(composite, pointers: ["/v"], repeated: .last)["/v"] == "composite", "\(composite)")
            #expect(try Self.read(composite, pointers: ["/v"], repeated: .first)["/v"] == "composite", "\(composite)")
            #expect(try Self.read(composite, pointers: ["/v"], repeated: .join(","))["/v"] == "composite", "\(composite)")
        }
    }

    // MARK: Property: the reader agrees with a reference resolver

    /// A document generated from a seed: nested objects and arrays whose keys include the
    /// characters pointers escape, digits and the empty key.
    struct Document: CustomStringConvertible {
        var text: String
        var description: String { text }
    }

    static let keys = ["a", "b/c", "m~n", "~1", "0", "1", "10", "", "é", "x y", "01"]

    static func generate(_ seed: UInt64) -> Document {
        var rng = SplitMix(seed)
        func value(_ depth: Int) -> String {
            switch rng.next() % (depth >= 3 ? 4 : 6) {
            case 0: return "\(Int64(bitPattern: rng.next() % 2000) - 1000)"
            case 1: return "\"s\(rng.next() % 100)\\/\""
            case 2: return ["true", "false", "null"][Int(rng.next() % 3)]
            case 3: return "\(Double(rng.next() % 10000) / 8)"
            case 4:
                let count = Int(rng.next() % 4)
                return "[" + (0..<count).map { _ in value(depth + 1) }.joined(separator: ",") + "]"
            default:
                var used = Set<String>()
                let members = (0..<Int(rng.next() % 5)).compactMap { _ -> String? in
                    let key = keys[Int(rng.next() % UInt64(keys.count))]
                    guard used.insert(key).inserted else { return nil }
                    return "\"\(key)\":\(value(depth + 1))"
                }
                return "{" + members.joined(separator: ",") + "}"
            }
        }
        var used = Set<String>()
        let members = (0..<Int(1 + rng.next() % 5)).compactMap { _ -> String? in
            let key = keys[Int(rng.next() % UInt64(keys.count))]
            guard used.insert(key).inserted else { return nil }
            return "\"\(key)\":\(value(1))"
        }
        return Document(text: "{" + members.joined(separator: ",") + "}")
    }

    /// RFC 6901 over Foundation's parse: the value at `pointer`, or nil.
    static func resolve(_ pointer: String, in root: Any) -> Any? {
        var node: Any = root
        for raw in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let token = raw.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if let object = node as? [String: Any] {
                guard let next = object[token] else { return nil }
                node = next
            } else if let array = node as? [Any] {
                guard let index = Int(token), String(index) == token, index >= 0, index < array.count else { return nil }
                node = array[index]
            } else {
                return nil
            }
        }
        return node
    }

    /// Every pointer to a value of the document, and pointers built from the key pool that may miss.
    static func pointers(of root: Any, seed: UInt64) -> [String] {
        func escape(_ key: String) -> String { key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1") }
        var result: [String] = []
        func walk(_ node: Any, _ prefix: String) {
            if let object = node as? [String: Any] {
                for (key, value) in object { result.append(prefix + "/" + escape(key)); walk(value, prefix + "/" + escape(key)) }
            } else if let array = node as? [Any] {
                for (index, value) in array.enumerated() { result.append(prefix + "/\(index)"); walk(value, prefix + "/\(index)") }
            }
        }
        walk(root, "")
        var rng = SplitMix(seed ^ 0x5EED)
        for _ in 0..<6 {
            let depth = 1 + Int(rng.next() % 3)
            result.append((0..<depth).map { _ in "/" + escape(keys[Int(rng.next() % UInt64(keys.count))]) }.joined())
        }
        return Array(Set(result)).sorted()
    }

    @Test func agreesWithAReferenceResolver() async throws {
        await propertyCheck(count: 200, input: Gen.int(in: 0...Int.max)) { seed in
            let document = Self.generate(UInt64(seed))
            let root = try JSONSerialization.jsonObject(with: Data(document.text.utf8), options: [.fragmentsAllowed])
            let pointers = Self.pointers(of: root, seed: UInt64(seed))
            let values = try Self.read(document.text, pointers: pointers, repeated: .all)
            for pointer in pointers {
                let expected: String
                switch Self.resolve(pointer, in: root) {
                case nil: expected = "absent"
                case let array as [Any]:
                    // An array mapped to one field: its scalars as a JSON array (`repeated: all`).
                    if array.contains(where: { $0 is [Any] || $0 is [String: Any] }) { expected = "composite" } else {
                        let data = try JSONSerialization.data(withJSONObject: array, options: [.withoutEscapingSlashes])
                        let reparsed = try JSONSerialization.jsonObject(with: Data((values[pointer] ?? "").utf8)) as? NSArray
                        #expect(reparsed == (try JSONSerialization.jsonObject(with: data) as? NSArray), "\(pointer) in \(document)")
                        continue
                    }
                case is [String: Any]: expected = "composite"
                case is NSNull: expected = "null"
                case let string as String: expected = "[\"\(string)\"]"
                case let number as NSNumber:
                    if String(cString: number.objCType) == "c" { expected = "[\(number.boolValue)]" } else {
                        let text = values[pointer].map { String($0.dropFirst().dropLast()) } ?? ""
                        #expect(Double(text) == number.doubleValue, "\(pointer) in \(document)")
                        continue
                    }
                default: expected = "?"
                }
                if expected == "null" {
                    #expect(values[pointer] == "[null]", "\(pointer) in \(document)")
                } else if expected.hasPrefix("[\"") {
                    let reparsed = try JSONSerialization.jsonObject(with: Data((values[pointer] ?? "").utf8)) as? [String]
                    #expect(reparsed == [String(expected.dropFirst(2).dropLast(2))], "\(pointer) in \(document)")
                } else {
                    #expect(values[pointer] == expected, "\(pointer) in \(document)")
                }
            }
        }
    }
}

/// A small seeded generator (SplitMix64), so a failing seed reproduces.
struct SplitMix {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
