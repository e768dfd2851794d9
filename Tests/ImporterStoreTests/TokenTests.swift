import ImporterTestSupport
import Foundation
import ImporterStore
import Testing

/// History tokens: a printed form that is URL-safe and stable (a known vector), round trips for
/// any store and number, ordered by number, and refused (with the store error) when malformed.
@Suite struct TokenTests {
    static let store = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!

    @Test func theKnownVectorPrintsAndParses() throws {
        let token = Token(storeID: Self.store, transactionNumber: 258)
        #expect(token.description == "AQARIjNEVWZ3iJmqu8zd7v8AAAAAAAABAg")
        #expect(try Token(parsing: "AQARIjNEVWZ3iJmqu8zd7v8AAAAAAAABAg") == token)
    }

    @Test func anyTokenRoundTripsUrlSafely() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let token = Token(storeID: UUID(), transactionNumber: Int64.random(in: 0...Int64.max, using: &generator))
            let printed = token.description
            #expect(!printed.contains { "+/=".contains($0) }, "\(printed)")
            #expect(try Token(parsing: printed) == token)
        }
    }

    @Test func tokensOrderByNumber() {
        let tokens = [5, 0, 300, 2].map { Token(storeID: Self.store, transactionNumber: Int64($0)) }
        #expect(tokens.sorted().map(\.transactionNumber) == [0, 2, 5, 300])
    }

    @Test(arguments: ["", "hello", "AQARIjNEVWZ3iJmqu8zd7v8AAAAAAAABA", "AgARIjNEVWZ3iJmqu8zd7v8AAAAAAAABAg", "AQARIjNEVWZ3iJmqu8zd7v-AAAAAAAABAg", "AQARIjNEVWZ3iJmqu8zd7v8AAAAAAAABAgAA"])
    func malformedTextIsNotAToken(text: String) {
        #expect {
            _ = try Token(parsing: text)
        } throws: { error in
            guard case StoreError.invalidToken(let given, let reason) = error else { return false }
            return given == text && reason == "not an importer history token"
        }
    }
}
