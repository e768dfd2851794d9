/// A feed mapping's contract for fields its records hold and no field mapping reads (dlt's schema
/// contract): a new upstream field is seen the run it appears, not when someone reads the raw file.
public enum UnmappedFields: String, Sendable, Equatable, CaseIterable {
    /// Say nothing.
    case ignore
    /// A warning per field, once per run, naming the first record that has it (the default).
    case warn
    /// Refuse the run (65): nothing is written until the model says what the field is.
    case fail
}
