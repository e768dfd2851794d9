import ImporterTestSupport
import Foundation
@testable import ImporterKit
import Testing

/// The one value a paged API's next-page pointer names, read from a page as a file: found after
/// the records, inside arrays, absent or null as the last page, and a composite or bad JSON as an
/// error located in the page.
@Suite struct JSONPointerValueTests {
    private func found(_ pointer: String, in json: String) throws -> JSONPointerValue.Found {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = try directory.write("page.json", json)
        return try JSONPointerValue.find(pointer, in: try ByteSource(path: path, name: "page 2"))
    }

    private func value(_ pointer: String, in json: String) throws -> String? {
        try found(pointer, in: json).text
    }

    @Test func aScalarIsFoundWhereverItSits() throws {
        let records = (0 ..< 20_000).map { #"{"id":\#($0),"tags":["a","b"],"nested":{"x":[1,{"y":null}]}}"# }.joined(separator: ",")
        let page = #"{"data":[\#(records)],"meta":{"count":20000,"next_cursor":"eyJpZCI6MjB9+/=","more":true,"n":1.5e3}}"#
        #expect(try value("/meta/next_cursor", in: page) == "eyJpZCI6MjB9+/=", "after 20,000 records")
        #expect(try value("/meta/more", in: page) == "true")
        #expect(try value("/meta/n", in: page) == "1.5e3", "a number as written")
        #expect(try value("/data/1/id", in: page) == "1", "array elements by index")
        #expect(try value("/data/0/nested/x/0", in: page) == "1")
        #expect(try value("/a~1b/c~0d", in: #"{"a/b":{"c~d":"escaped"}}"#) == "escaped")
        #expect(try value("/links/next", in: #"{"links":{"next":"https://x/?p=2\u0026q=1"}}"#) == "https://x/?p=2&q=1")
    }

    /// Null and absent differ, and an absent pointer says which of its prefixes is missing, so
    /// that a misspelt pointer can be told from a last page.
    @Test func nullAndAbsentAreToldApart() throws {
        #expect(try found("/meta/next", in: #"{"meta":{"next":null}}"#) == .null)
        #expect(try found("/meta/next", in: #"{"meta":{}}"#) == .absent(missing: "/meta/next"))
        #expect(try found("/meta/next", in: #"{"data":[]}"#) == .absent(missing: "/meta"))
        #expect(try found("/meta/next", in: #"{"meta":"flat"}"#) == .absent(missing: "/meta/next"))
        #expect(try found("/a/b/c", in: #"{"a":{"x":1}}"#) == .absent(missing: "/a/b"))
        #expect(try found("/data/5", in: #"{"data":[1,2]}"#) == .absent(missing: "/data/5"))
        #expect(try found("/data/x", in: #"{"data":[1,2]}"#) == .absent(missing: "/data/x"))
        #expect(try found("/a~1b/c", in: #"{"x":1}"#) == .absent(missing: "/a~1b"), "escaped as written")
        #expect(try value("/meta/next", in: #"{"meta":{"next":null}}"#) == nil)
    }

    @Test func aCompositeOrBadJSONIsAnErrorInThePage() throws {
        let composite = #expect(throws: FeedError.self) { try value("/meta", in: #"{"meta":{"next":1}}"#) }
        #expect(composite?.description.contains("page 2") == true && composite?.description.contains("not a value") == true)
        let bad = #expect(throws: FeedError.self) { try value("/meta/next", in: "{\"data\":[1,2}, \"meta\":{}}") }
        #expect(bad?.description.contains("page 2:1:") == true, "\(String(describing: bad))")
    }
}
