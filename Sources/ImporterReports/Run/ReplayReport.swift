import ImporterStore
import ImporterSupport

/// `importer replay`: each view's effect and the transactions it replayed.
public struct ReplayReport: ListReport {
    public var effects: [ViewEffect]

    public init(_ effects: [ViewEffect]) {
        self.effects = effects
    }

    public func renderText(to output: OutputSink) {
        if effects.isEmpty { output.write("No views.\n") }
        for effect in effects {
            output.write(TextFormatting.viewEffect(effect) + " (transactions \(effect.fromTransaction)→\(effect.throughTransaction))\n")
        }
    }

    public func renderJSON(to output: OutputSink) {
        JSONWriter.document(to: output) { $0.writeViews(effects) }
    }
}
