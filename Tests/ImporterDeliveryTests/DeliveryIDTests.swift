import ImporterTestSupport
import Foundation
@testable import ImporterDelivery
import Testing

/// Delivery ids: a function of the store, the consumer and the transaction only.
@Suite struct DeliveryIDTests {
    let store = UUID(uuidString: "3F2504E0-4F89-11D3-9A0C-0305E82C3301") ?? UUID()

    @Test func theIdIsStableAndShapedLikeAStandardWebhooksId() {
        let id = DeliveryID.make(storeID: store, consumer: "mailer", token: "AT8lBOBPiRHTmgwDBegsMwEAAAAAAAAAAw")
        #expect(id == DeliveryID.make(storeID: store, consumer: "mailer", token: "AT8lBOBPiRHTmgwDBegsMwEAAAAAAAAAAw"))
        #expect(id.hasPrefix("msg_") && id.count == 36)
        #expect(id.dropFirst(4).allSatisfy { ("a"..."z").contains($0) || ("2"..."7").contains($0) })
    }

    @Test func theIdIsAFixedFunctionOfItsInputs() {
        // Pinned: a change of the derivation would make receivers see old transactions as new.
        #expect(DeliveryID.make(storeID: store, consumer: "mailer", token: "AT8lBOBPiRHTmgwDBegsMwEAAAAAAAAAAw") == Self.pinned)
    }

    static let pinned = "msg_og5zshwfxrxdtq2b66ouu2c7fte5idcy"

    @Test func storeConsumerAndTransactionEachChangeIt() {
        let id = DeliveryID.make(storeID: store, consumer: "mailer", token: "t1")
        #expect(DeliveryID.make(storeID: UUID(), consumer: "mailer", token: "t1") != id)
        #expect(DeliveryID.make(storeID: store, consumer: "crm", token: "t1") != id)
        #expect(DeliveryID.make(storeID: store, consumer: "mailer", token: "t2") != id)
    }

    @Test func base32IsRFC4648Lowercase() {
        // RFC 4648 §10 test vectors, lowercase and unpadded.
        let vectors = ["": "", "f": "my", "fo": "mzxq", "foo": "mzxw6", "foob": "mzxw6yq", "fooba": "mzxw6ytb", "foobar": "mzxw6ytboi"]
        for (input, expected) in vectors { #expect(DeliveryID.base32(Array(input.utf8)) == expected) }
    }
}
