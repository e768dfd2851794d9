import Foundation

extension JSONRecordsReader {
    /// Requested fields as a tree of keys: leaves are slots. A member is found by comparing its
    /// key with the few requested at that level (hashing every key's bytes cost ~8 % of reading a
    /// feed); keys are compared by length, then bytes.
    struct FieldTree {
        var slot: Int?
        /// In child mode (`JSONChildRecords`): the array of the elements of this level (1: the
        /// record's; the last: the children); 0 for any other node.
        var childLevel = 0
        /// The node's number and JSON pointer below the record (`number`): -1 for the trees of
        /// child mode, whose unmapped members are not tracked.
        var id = -1
        var path = ""
        private var keys: [[UInt8]] = []
        private var nodes: [FieldTree] = []

        /// No requested member below this node.
        var isLeaf: Bool { nodes.isEmpty }

        /// The node of member `key`, if one is requested.
        @inline(__always)
        func member(_ key: [UInt8]) -> FieldTree? {
            key.withUnsafeBufferPointer { wanted -> FieldTree? in
                for index in keys.indices where keys[index].count == wanted.count {
                    let equal = keys[index].withUnsafeBufferPointer { candidate in
                        guard let a = candidate.baseAddress, let b = wanted.baseAddress else { return true }
                        return memcmp(a, b, wanted.count) == 0
                    }
                    if equal { return nodes[index] }
                }
                return nil
            }
        }

        /// Numbers the nodes from `counter` and gives each its pointer below `path`.
        mutating func number(_ counter: inout Int, path: String = "") {
            id = counter
            counter += 1
            self.path = path
            for index in nodes.indices {
                let token = String(decoding: keys[index], as: UTF8.self).replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
                nodes[index].number(&counter, path: path + "/" + token)
            }
        }

        mutating func insert(_ path: [String], slot: Int) {
            guard let first = path.first else { self.slot = slot; return }
            update(Array(first.utf8)) { $0.insert(Array(path.dropFirst()), slot: slot) }
        }

        /// Marks the node at `path` as the array of the elements of `level` (created if no field
        /// leads there).
        mutating func markChildren(_ path: [String], level: Int) {
            guard let first = path.first else { childLevel = level; return }
            update(Array(first.utf8)) { $0.markChildren(Array(path.dropFirst()), level: level) }
        }

        private mutating func update(_ key: [UInt8], _ body: (inout FieldTree) -> Void) {
            if let index = keys.firstIndex(of: key) { return body(&nodes[index]) }
            var node = FieldTree()
            body(&node)
            keys.append(key)
            nodes.append(node)
        }
    }
}
