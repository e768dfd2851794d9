import Foundation
@testable import ImporterKit
import Testing

/// The one value a paged API's next-page pointer names, read from a page as a file: found after
/// the records, inside arrays, absent or null as the last page, and a composite or bad JSON as an
/// error located in the page.
@Suite struct JSONPointerValueTests {
    private func value(_ pointer: String, in json: String) throws -> String? {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = try directory.write("page.json", json)
        return try JSONPointerValue.scalar(at: pointer, in: try ByteSource(path: path, name: "page 2"))
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

    @Test func absentOrNullIsNoValue() throws {
        #expect(try value("/meta/next", in: #"{"meta":{"next":null}}"#) == nil)
        #expect(try value("/meta/next", in: #"{"meta":{}}"#) == nil)
        #expect(try value("/meta/next", in: #"{"data":[]}"#) == nil)
        #expect(try value("/meta/next", in: #"{"meta":"flat"}"#) == nil)
        #expect(try value("/data/5", in: #"{"data":[1,2]}"#) == nil)
        #expect(try value("/data/x", in: #"{"data":[1,2]}"#) == nil)
    }

    @Test func aCompositeOrBadJSONIsAnErrorInThePage() throws {
        let composite = #expect(throws: FeedError.self) { try value("/meta", in: #"{"meta":{"next":1}}"#) }
        #expect(composite?.description.contains("page 2") == true && composite?.description.contains("not a value") == true)
        let bad = #expect(throws: FeedError.self) { try value("/meta/next", in: "{\"data\":[1,2}, \"meta\":{}}") }
        #expect(bad?.description.contains("page 2:1:") == true, "\(String(describing: bad))")
    }
}
