import ImporterModel

/// Makes the streaming reader for a feed's format.
public enum FeedReaders {
    public static func make(for mapping: FeedMapping, source: ByteSource) throws(FeedError) -> any RecordReader {
        if let children = mapping.childRecords, mapping.format == .json || mapping.format == .ndjson {
            return try JSONRecordsReader(source: source, records: mapping.format == .json ? mapping.records : nil,
                                         lines: mapping.format == .ndjson, children: children.path, enclosing: children.enclosing)
        }
        if let children = mapping.childRecords, mapping.format == .xml {
            let reader = try XMLRecordsReader(source: source, mapping: mapping)
            reader.childPath = children.path
            reader.childEnclosing = children.enclosing
            return reader
        }
        switch mapping.format {
        case .nasaColumnar:
            return NASAColumnarReader(source: source)
        case .json:
            return try JSONRecordsReader(source: source, records: mapping.records, lines: false)
        case .ndjson:
            return try JSONRecordsReader(source: source, records: nil, lines: true)
        case .xml:
            return try XMLRecordsReader(source: source, mapping: mapping)
        case .csv:
            return try CSVRecordsReader(source: source, mapping: mapping)
        }
    }
}
