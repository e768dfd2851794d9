import ImporterModel
import ImporterStore
import ImporterSupport
import ImporterViews

/// `importer views verify`: the views compared and every difference from their full recomputation.
public struct ViewVerifyReport: ListReport {
    public var views: [String]
    public var differences: [ViewDifference]

    /// Whether every view matched its recomputation.
    public var matches: Bool { differences.isEmpty }

    public init(views: [String], differences: [ViewDifference]) {
        self.views = views
        self.differences = differences
    }

    /// Verifies the view `name`, or all views, over the store's `entities`, as `snapshot` sees them.
    public static func verify(_ name: String?, entities: [EntityDescription], in snapshot: StoreSnapshot) throws -> ViewVerifyReport {
        let views = try name.map { [try snapshot.view(named: $0)] } ?? snapshot.allViews()
        let maintainer = ViewMaintainer(entities: entities)
        return ViewVerifyReport(views: views.map(\.name), differences: try views.flatMap { try maintainer.verify($0, in: snapshot) })
    }

    public func renderText(to output: OutputSink) {
        for difference in differences { output.write("\(difference)\n") }
        if differences.isEmpty { output.write("Views match their full recomputation.\n") }
    }

    public func renderJSON(to output: OutputSink) {
        JSONWriter.document(to: output) { json in
            json.beginObject()
            json.field("views", strings: views)
            json.field("match", differences.isEmpty)
            json.key("differences")
            json.beginArray()
            for difference in differences {
                json.beginObject()
                json.field("view", difference.view)
                json.key("group")
                json.beginArray()
                for value in difference.group { json.value(value) }
                json.endArray()
                json.field("column", difference.column)
                json.field("incremental", difference.incremental ?? .null)
                json.field("recomputed", difference.recomputed ?? .null)
                json.endObject()
            }
            json.endArray()
            json.endObject()
        }
    }
}
