import Crypto
import Foundation

/// A Standard Webhooks signing secret: `whsec_` and the base64 of the key bytes. Read from a file,
/// never from the command line; its text is never printed.
public struct WebhookSecret: Sendable {
    let key: SymmetricKey

    /// Parses `whsec_<base64>` (surrounding white space ignored) as the reference libraries do:
    /// the base64 with or without its `=` padding; nil when it is not that form or the key is empty.
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("whsec_") else { return nil }
        var encoded = String(trimmed.dropFirst(6))
        if encoded.count % 4 != 0 { encoded += String(repeating: "=", count: 4 - encoded.count % 4) }
        guard let bytes = Data(base64Encoded: encoded), !bytes.isEmpty else { return nil }
        key = SymmetricKey(data: bytes)
    }

    /// The secret in the file at `path`; `DeliveryError.secret` when it cannot be read, is empty
    /// or is not `whsec_<base64>`.
    public static func read(path: String) throws(DeliveryError) -> WebhookSecret {
        guard let data = FileManager.default.contents(atPath: path) else { throw .secret("cannot read the webhook secret file \(path)") }
        let text = String(decoding: data, as: UTF8.self)
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw .secret("the webhook secret file \(path) is empty") }
        guard let secret = WebhookSecret(parsing: text) else {
            throw .secret("the webhook secret file \(path) does not hold a secret of the form whsec_<base64>")
        }
        return secret
    }
}

/// The Standard Webhooks signature of one request: `v1,` and the base64 of HMAC-SHA256 over
/// `id.timestamp.body` with the secret's key. A new timestamp (Unix seconds) is signed on every
/// attempt; the id stays the same.
public enum WebhookSignature {
    public static func sign(secret: WebhookSecret, id: String, timestamp: Int64, body: [UInt8]) -> String {
        var mac = HMAC<SHA256>(key: secret.key)
        mac.update(data: Array("\(id).\(timestamp).".utf8))
        mac.update(data: body)
        return encoded(mac)
    }

    /// The signature of a payload's bytes, read chunk by chunk (never the whole body in memory).
    public static func sign(secret: WebhookSecret, id: String, timestamp: Int64, payload: DeliveryPayload) throws(DeliveryError) -> String {
        var mac = HMAC<SHA256>(key: secret.key)
        mac.update(data: Array("\(id).\(timestamp).".utf8))
        var offset = 0
        while offset < payload.byteCount {
            let chunk = try payload.read(at: offset, count: DeliveryPayload.chunkSize)
            mac.update(data: chunk)
            offset += chunk.count
        }
        return encoded(mac)
    }

    private static func encoded(_ mac: HMAC<SHA256>) -> String {
        "v1," + Data(mac.finalize()).base64EncodedString()
    }
}
