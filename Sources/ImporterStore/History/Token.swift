import Foundation

/// An opaque, ordered position in one store's history: the store's id and a transaction number.
///
/// Printed as URL-safe base64 of a version byte, the 16-byte store id and the 8-byte big-endian
/// transaction number. Tokens compare by number, and only within one store: using a token of
/// another store is an error, never a silent mismatch.
public struct Token: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let storeID: UUID
    public let transactionNumber: Int64

    static let version: UInt8 = 1

    public init(storeID: UUID, transactionNumber: Int64) {
        self.storeID = storeID
        self.transactionNumber = transactionNumber
    }

    /// Decodes a printed token that must belong to the store `storeID`.
    public init(parsing text: String, of storeID: UUID) throws(StoreError) {
        try self.init(parsing: text)
        guard self.storeID == storeID else {
            throw StoreError.invalidToken(text, reason: "it belongs to another store (\(self.storeID.uuidString.lowercased())), not \(storeID.uuidString.lowercased())")
        }
    }

    /// Decodes a printed token. The store id is not checked here; see `init(parsing:of:)`.
    public init(parsing text: String) throws(StoreError) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), data.count == 25, data[data.startIndex] == Self.version else {
            throw StoreError.invalidToken(text, reason: "not an importer history token")
        }
        let bytes = [UInt8](data)
        let uuid = UUID(uuid: (bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8],
                               bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15], bytes[16]))
        var number: Int64 = 0
        for byte in bytes[17...] { number = number << 8 | Int64(byte) }
        guard number >= 0 else { throw StoreError.invalidToken(text, reason: "not an importer history token") }
        self.init(storeID: uuid, transactionNumber: number)
    }

    public var description: String {
        var bytes: [UInt8] = [Self.version]
        withUnsafeBytes(of: storeID.uuid) { bytes.append(contentsOf: $0) }
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: transactionNumber >> Int64(shift))) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func < (lhs: Token, rhs: Token) -> Bool {
        lhs.transactionNumber < rhs.transactionNumber
    }
}
