import Crypto
import Foundation

/// The id of one transaction's delivery to one consumer, the same on every attempt, after a crash
/// and from every host: `msg_` and 32 lowercase base32 characters (RFC 4648, no padding) of the
/// first 20 bytes of SHA-256 over the store's id, the consumer's name and the transaction's token.
/// A receiver de-duplicates on it (it is the Standard Webhooks `webhook-id`).
///
/// Invariant: a function of its three inputs only; two stores, two consumers or two transactions
/// never share one (up to the hash's collisions, 160 bits).
public enum DeliveryID {
    public static func make(storeID: UUID, consumer: String, token: String) -> String {
        let input = "importer-delivery-v1\n\(storeID.uuidString.lowercased())\n\(consumer)\n\(token)"
        let digest = Array(SHA256.hash(data: Data(input.utf8)).prefix(20))
        return "msg_" + base32(digest)
    }

    /// RFC 4648 base32, lowercase, without padding.
    static func base32(_ bytes: [UInt8]) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        var result = ""
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                result.append(alphabet[Int((buffer >> UInt32(bits)) & 31)])
            }
        }
        if bits > 0 { result.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return result
    }
}
