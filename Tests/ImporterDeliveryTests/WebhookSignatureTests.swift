import ImporterTestSupport
import Foundation
@testable import ImporterDelivery
import NIOCore
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

    /// A payload of `bytes` in an anonymous file, as `DeliveryPayload.render` leaves one.
    static func payload(_ bytes: [UInt8]) throws -> DeliveryPayload {
        let descriptor = try AnonymousFile.create(prefix: "importer-test")
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        try #require(written == bytes.count)
        return DeliveryPayload(descriptor: descriptor, byteCount: bytes.count, changeCount: 1)
    }

    /// A body of several chunks is streamed and signed from its file as it would be in memory:
    /// the chunks are the payload's bytes in order, none over the chunk size, and the signature
    /// read chunk by chunk is the one over the whole body.
    @Test(arguments: [0, 1, DeliveryPayload.chunkSize, 3 * DeliveryPayload.chunkSize + 17])
    func aPayloadIsStreamedAndSignedInChunks(size: Int) async throws {
        let secret = try #require(WebhookSecret(parsing: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        let payload = try Self.payload(bytes)
        var streamed: [UInt8] = []
        var chunks = 0
        for try await chunk in payload.chunks {
            #expect(chunk.readableBytes <= DeliveryPayload.chunkSize && chunk.readableBytes > 0)
            streamed += chunk.readableBytesView
            chunks += 1
        }
        #expect(streamed == bytes && chunks == (size + DeliveryPayload.chunkSize - 1) / DeliveryPayload.chunkSize)
        #expect(try WebhookSignature.sign(secret: secret, id: "msg_a", timestamp: 7, payload: payload)
            == WebhookSignature.sign(secret: secret, id: "msg_a", timestamp: 7, body: bytes))
        #expect(try payload.bytes() == bytes)
    }
}
