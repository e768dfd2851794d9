import ImporterModel

/// A suggested model for sample feeds: one entity, one feed mapping, the notes a reader should see
/// first, and a comment (the sample value) per mapped field.
public struct ModelSuggestion: Sendable {
    public var model: Model
    /// What to check before trusting the model (the key's doubts, what was not mapped).
    public var notes: [String]
    /// Per field of the feed mapping, in order: its sample value and how often it was missing.
    public var comments: [String]

    public init(model: Model, notes: [String], comments: [String]) {
        self.model = model
        self.notes = notes
        self.comments = comments
    }
}

/// Suggests a model that imports sample feeds without rejects: samples each feed (bounded), then
/// one attribute per leaf field (`FieldProfile`), its type (`TypeEvidence`), a safe name
/// (`AttributeNaming`), the key (`KeyChoice`) and a tombstone.
public enum ModelSuggester {
    public static let defaultSampleSize = 1000
    static let tombstoneWords = ["title", "name", "place", "label", "summary", "code"]

    /// Samples the feed at `path` as `format` reads it: at most `limit` records of each array of
    /// records (a JSON document may hold several; every other format one).
    public static func sample(path: String, format: FeedFormat, limit: Int) throws(FeedError) -> [FeedSample] {
        switch format {
        case .json, .nasaColumnar: return try JSONSampler(source: ByteSource(path: path), lines: false).samples(limit: limit)
        case .ndjson: return try JSONSampler(source: ByteSource(path: path), lines: true).samples(limit: limit)
        case .xml: return [try XMLSampler(path: path).sample(limit: limit)]
        case .csv: return [try CSVSampler(path: path).sample(limit: limit)]
        }
    }

    /// The suggestion for feeds of one shape, `files[i]` the samples of `paths[i]`: one entity and
    /// one feed mapping per records path (arrays at the same path in several files are one).
    public static func suggest(_ files: [[FeedSample]], paths: [String]) throws(FeedError) -> ModelSuggestion {
        let groups = try SampleGroup.grouped(files, paths: paths)
        guard groups.count > 1 else {
            guard let only = groups.first else { throw FeedError.shape(SourceLocation(source: "-", line: 1, column: 1), "no feed to sample") }
            var part = try suggestEntity(only.samples, paths: only.paths)
            let children = ChildSuggestion.suggest(for: &part, samples: only.samples, paths: only.paths)
            return ModelSuggestion(model: Model(entities: [part.entity] + children.entities, feeds: [part.mapping], relationships: children.relationships),
                                   notes: [part.header, checkNote] + part.notes + children.notes, comments: part.comments + children.comments)
        }
        var parts: [EntitySuggestion] = []
        for group in groups { parts.append(try suggestEntity(group.samples, paths: group.paths)) }
        SampleGroup.makeNamesUnique(&parts, path: paths[0])
        let summary = parts.map { "\($0.mapping.name): \($0.total) record(s) at \($0.mapping.records ?? "the root")" }.joined(separator: "; ")
        var notes = ["Suggested by importer model suggest from \(paths.joined(separator: ", ")): \(parts.count) arrays of records, "
                        + "one entity and one feed mapping each (\(summary)); a run reads the mappings named with --mapping.",
                     checkNote]
        var model = Model(entities: [], feeds: [])
        var comments: [String] = []
        for (index, group) in groups.enumerated() {
            let children = ChildSuggestion.suggest(for: &parts[index], samples: group.samples, paths: group.paths)
            notes += parts[index].notes.map { "\(parts[index].entity.name): " + $0 } + children.notes
            model.entities += [parts[index].entity] + children.entities
            model.feeds.append(parts[index].mapping)
            model.relationships += children.relationships
            comments += parts[index].comments + children.comments
        }
        return ModelSuggestion(model: model, notes: notes, comments: comments)
    }

    static let checkNote = "Check the names, the types and the key, then: importer model check FILE"

    /// One entity and its feed mapping, suggested from the samples of one records path.
    /// `positionKey`: a child's samples (one per parent), which may have no key of their own
    /// (then the entity's `uniqueKey` is empty: keyed by position).
    static func suggestEntity(_ samples: [FeedSample], paths: [String], positionKey: Bool = false) throws(FeedError) -> EntitySuggestion {
        guard let first = samples.first, let firstPath = paths.first else {
            throw FeedError.shape(SourceLocation(source: "-", line: 1, column: 1), "no feed to sample")
        }
        var (profiles, feeds) = profile(samples)
        profiles = selected(profiles, geoJSON: first.format == .json && first.records == "/features")
        let sampled = feeds.last?.upperBound ?? 0
        // Records read past the sample count for types and presence, not for the key.
        let total = sampled + samples.reduce(0) { $0 + $1.tailRecords }
        let decimalComma = first.format == .csv && first.csv.delimiter == UInt8(ascii: ";")
        let inferred = profiles.map { $0.isRepeated ? InferredType(type: .text) : $0.evidence.inferred(words: $0.words, decimalComma: decimalComma) }
        // Fields every sampled record has: the key's candidates.
        let required = profiles.indices.map { index in
            !profiles[index].isRepeated && (inferred[index].type == .text ? profiles[index].valued : profiles[index].filled) == total
        }
        let names = AttributeNaming.names(for: profiles.map { ($0.words, $0.shortWords) }, recordNoun: first.recordNoun)
        let header = "Suggested by importer model suggest from \(total) record(s) of \(paths.joined(separator: ", "))"
            + (total > sampled ? " (types from all of them; names and the key from \(sampled) sampled)." : ".")
        let candidates = profiles.indices.map { index in
            KeyChoice.Candidate(words: profiles[index].words, type: inferred[index].type, required: required[index],
                                repeated: profiles[index].isRepeated, values: profiles[index].values)
        }
        guard let key = KeyChoice.choose(candidates, feeds: feeds) ?? (positionKey ? KeyChoice(fields: []) : nil) else {
            throw FeedError.shape(SourceLocation(source: firstPath, line: 1, column: 1),
                                  "no field can be a key: every field repeats" + (first.records.map { " (records at \($0))" } ?? ""))
        }
        var notes = key.warning.map { ["WARNING: " + $0] } ?? []
        for index in profiles.indices where inferred[index].ambiguousComma {
            let reading = inferred[index].numberFormat?.decimal == UInt8(ascii: ",") ? "decimal commas (a ;-separated export)" : "thousands separators"
            notes.append("WARNING: \(names[index]): its commas (\(profiles[index].sample?.text ?? "")) could be decimal or thousands; "
                         + "read as \(reading): check its format")
        }
        notes += Array(Set(samples.flatMap(\.skipped))).sorted()
        let keyNames = key.fields.map { names[$0] }
        let (entityName, table) = AttributeNaming.entityNames(forPath: firstPath, recordNoun: first.recordNoun)
        let entity = EntityDescription(
            name: entityName, tableName: table,
            // Only the key is required: a field every sampled record had may still be missing or
            // null in the next feed, and a required attribute would stop the job there.
            attributes: profiles.indices.map { AttributeDescription(name: names[$0], type: inferred[$0].type, isOptional: !key.fields.contains($0)) },
            uniqueKey: keyNames, tombstoneAttributes: keyNames + tombstone(profiles, inferred, names, excluding: key.fields))
        let fields = profiles.indices.map { index in
            var field = FieldMapping(attribute: names[index], field: profiles[index].address, emptyIsNull: inferred[index].emptyIsNull,
                                     format: inferred[index].format, timeZone: inferred[index].zone)
            if profiles[index].isRepeated { field.repeated = .all }
            field.numberFormat = inferred[index].numberFormat
            return field
        }
        var mapping = FeedMapping(name: AttributeNaming.mappingName(forPath: firstPath), entity: entityName, format: first.format,
                                  records: first.records, namespaces: first.namespaces, fields: fields)
        if first.format == .csv { mapping.csv = first.csv }
        let comments = profiles.indices.map { index in
            SampleComment.text(for: profiles[index], inferred: inferred[index], repeated: profiles[index].isRepeated, records: total)
        }
        return EntitySuggestion(entity: entity, mapping: mapping, header: header, notes: notes, comments: comments,
                                total: total, recordNoun: first.recordNoun)
    }

    /// A profile per field address, in the order fields were first met; each feed's record range.
    static func profile(_ samples: [FeedSample]) -> ([FieldProfile], [Range<Int>]) {
        var profiles: [FieldProfile] = []
        var position: [String: Int] = [:]
        var feeds: [Range<Int>] = []
        var record = 0
        for sample in samples {
            let start = record
            for fields in sample.recordFields {
                for field in fields {
                    let index = position[field.address] ?? {
                        profiles.append(FieldProfile(field, order: profiles.count))
                        position[field.address] = profiles.count - 1
                        return profiles.count - 1
                    }()
                    profiles[index].observe(field, record: record)
                }
                record += 1
            }
            feeds.append(start..<record)
            for tail in sample.tail.values.sorted(by: { $0.order < $1.order }) {
                if let index = position[tail.address] {
                    profiles[index].absorb(tail)
                } else {
                    position[tail.address] = profiles.count
                    profiles.append(tail.reordered(profiles.count))
                }
            }
        }
        return (profiles, feeds)
    }

    /// The fields to map: a fixed-length array's index fields or else the whole array; not a
    /// field that is only ever null where other records have an object; not GeoJSON's own
    /// `"type": "Feature"`.
    static func selected(_ profiles: [FieldProfile], geoJSON: Bool) -> [FieldProfile] {
        var fixed = Set<String>()
        var arrays = Set<String>()
        for profile in profiles where profile.isArray {
            arrays.insert(profile.address)
            if profile.lengths.count == 1, let length = profile.lengths.first, (1...JSONRecordFlattener.maximumIndexedLength).contains(length) {
                fixed.insert(profile.address)
            }
        }
        let parents = Set(profiles.flatMap { profile in
            profile.address.indices.filter { profile.address[$0] == "/" }.map { String(profile.address[..<$0]) }
        })
        return profiles.filter { profile in
            if geoJSON && profile.address == "type" && Set(profile.values.values) == ["Feature"] { return false }
            if profile.isArray { return !fixed.contains(profile.address) }
            if let array = profile.arrayAddress { return fixed.contains(array) }
            if profile.valued == 0 && (parents.contains(profile.address) || parents.contains("/" + profile.address)) { return false }
            return true
        }
    }

    /// Up to three identifying text attributes (title, name, place, …) besides the key.
    static func tombstone(_ profiles: [FieldProfile], _ inferred: [InferredType], _ names: [String], excluding key: [Int]) -> [String] {
        var chosen: [(Int, String)] = []
        for index in profiles.indices where !key.contains(index) && inferred[index].type == .text && !profiles[index].isRepeated {
            guard let last = NameWords.tokens(profiles[index].words).last, let rank = tombstoneWords.firstIndex(of: last) else { continue }
            chosen.append((rank, names[index]))
        }
        return chosen.sorted { $0.0 < $1.0 }.prefix(3).map(\.1)
    }
}
