import Foundation
@testable import ImporterDelivery
import Testing

/// The Standard Webhooks signature, against the specification's published test vector, and the
/// secret's `whsec_<base64>` form.
@Suite struct WebhookSignatureTests {
    @Test func thePublishedTestVectorIsReproduced() throws {
        let secret = try #require(WebhookSecret(parsing: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let signature = WebhookSignature.sign(secret: secret, id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1614265330,
                                              body: Array(#"{"test": 2432232314}"#.utf8))
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func anyChangeOfIdTimestampOrBodyChangesTheSignature() throws {
        let secret = try #require(WebhookSecret(parsing: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let body = Array(#"{"test": 2432232314}"#.utf8)
        let reference = WebhookSignature.sign(secret: secret, id: "msg_a", timestamp: 1, body: body)
        #expect(WebhookSignature.sign(secret: secret, id: "msg_b", timestamp: 1, body: body) != reference)
        #expect(WebhookSignature.sign(secret: secret, id: "msg_a", timestamp: 2, body: body) != reference)
        #expect(WebhookSignature.sign(secret: secret, id: "msg_a", timestamp: 1, body: body + [0x20]) != reference)
        let other = try #require(WebhookSecret(parsing: "whsec_" + Data("another key".utf8).base64EncodedString()))
        #expect(WebhookSignature.sign(secret: other, id: "msg_a", timestamp: 1, body: body) != reference)
    }

    @Test func secretsMustBeWhsecBase64() throws {
        #expect(WebhookSecret(parsing: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") == nil)
        #expect(WebhookSecret(parsing: "whsec_") == nil)
        #expect(WebhookSecret(parsing: "whsec_not base64!") == nil)
        #expect(WebhookSecret(parsing: "  whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n") != nil)
    }

    @Test func aSecretFileThatIsMissingEmptyOrMalformedIsAConfigurationError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("importer-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent("empty").path
        let bad = directory.appendingPathComponent("bad").path
        try Data("\n".utf8).write(to: URL(fileURLWithPath: empty))
        try Data("hunter2".utf8).write(to: URL(fileURLWithPath: bad))
        for path in [empty, bad, directory.appendingPathComponent("missing").path] {
            #expect(throws: DeliveryError.self) { try WebhookSecret.read(path: path) }
            do { _ = try WebhookSecret.read(path: path) } catch { #expect(error.exitStatus == .storeUnusable && !error.description.contains("hunter2")) }
        }
    }
}
