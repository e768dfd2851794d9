import ImporterModel

/// The samples of one records path across the sampled files: one entity and one feed mapping.
///
/// A JSON document may hold several arrays of records (`/data/stations`, `/data/alerts`); each
/// path is a group, in the order the first file holds them. Every file must share a records path
/// with the first one and be read as the same format: files of other shapes are suggested apart.
struct SampleGroup {
    var records: String?
    var samples: [FeedSample] = []
    var paths: [String] = []

    static func grouped(_ files: [[FeedSample]], paths: [String]) throws(FeedError) -> [SampleGroup] {
        guard let firstFile = files.first, let first = firstFile.first, let firstPath = paths.first else {
            throw FeedError.shape(SourceLocation(source: "-", line: 1, column: 1), "no feed to sample")
        }
        var groups: [SampleGroup] = []
        for (file, path) in zip(files, paths) {
            let location = SourceLocation(source: path, line: 1, column: 1)
            let shared = file.contains { sample in firstFile.contains { $0.records == sample.records } }
            for sample in file {
                guard sample.format == first.format, shared else {
                    throw FeedError.shape(location, "its records (\(sample.format.rawValue) at \(sample.records ?? "the root")) are not those of \(firstPath) "
                                          + "(\(first.format.rawValue) at \(first.records ?? "the root")): suggest a model for each shape on its own")
                }
                guard !sample.recordFields.isEmpty else {
                    throw FeedError.shape(location, "no records to learn from" + (sample.records.map { " (records at \($0) is empty)" } ?? "")
                                          + ": give a sample that has records")
                }
                if let index = groups.firstIndex(where: { $0.records == sample.records }) {
                    groups[index].samples.append(sample)
                    groups[index].paths.append(path)
                } else {
                    groups.append(SampleGroup(records: sample.records, samples: [sample], paths: [path]))
                }
            }
        }
        return groups
    }

    /// Several entities of one document: mappings named after the file and the records
    /// (`system-station`), and no two entities, tables or mappings with one name.
    static func makeNamesUnique(_ parts: inout [EntitySuggestion], path: String) {
        var entities = Set<String>(), tables = Set<String>(), mappings = Set<String>()
        for index in parts.indices {
            let noun = parts[index].recordNoun.map { NameWords.tokens(of: $0).joined(separator: "-") } ?? ""
            let base = AttributeNaming.mappingName(forPath: path)
            let mapping = unique(noun.isEmpty ? base : base + "-" + noun, in: &mappings, separator: "-")
            let entity = unique(parts[index].entity.name, in: &entities, separator: "")
            let table = unique(parts[index].entity.tableName, in: &tables, separator: "_")
            parts[index].rename(entity: entity, table: table, mapping: mapping)
        }
    }

    /// `name`, or `name` with a number after `separator` when `used` holds it; then used.
    static func unique(_ name: String, in used: inout Set<String>, separator: String) -> String {
        var candidate = name
        var number = 2
        while used.contains(candidate) {
            candidate = name + separator + String(number)
            number += 1
        }
        used.insert(candidate)
        return candidate
    }
}
