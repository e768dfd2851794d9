import ImporterModel

/// A suggestion as a model file in YAML: `ModelFile.yaml` (so quoting is the model writer's), with
/// the notes as a comment header and each field's sample value as a comment on its `field:` line.
public enum SuggestionYAML {
    public static func render(_ suggestion: ModelSuggestion) -> String {
        let body = ModelFile.yaml(suggestion.model)
        var output = suggestion.notes.map { "# " + SampleComment.quoted($0, limit: nil) + "\n" }.joined()
        var comments = suggestion.comments.makeIterator()
        var inFeeds = false
        var inChildren = false
        for line in body.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.hasPrefix("#") && output.isEmpty == false && !inFeeds && line.hasPrefix("# importer model") { continue }
            if !line.hasPrefix(" ") && !line.hasPrefix("-") { inFeeds = line == "feeds:" }
            if line.hasPrefix("- ") || line == "  children:" { inChildren = line == "  children:" }
            // A feed's fields (`    field:`), then its children's (`      field:`), in the order written.
            if inFeeds, line.hasPrefix(inChildren ? "      field: " : "    field: "), let comment = comments.next() {
                output += line + "  # " + comment + "\n"
            } else {
                output += line + "\n"
            }
        }
        return output
    }
}
