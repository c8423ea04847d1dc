import Foundation
import RenderEngine
import SessionKit

/// A batch whose variants' jobs are being made, a slice each turn.
struct BatchCreation {
    let identity: Data
    let batch: String
    /// The variants compiled, in order; `pending` those not made yet.
    let compiled: [SubmissionCompiler.Compiled]
    var pending: ArraySlice<SubmissionCompiler.Compiled>
    var variants: [VariantJob] = []
    var reused = 0
    var shards = 0

    init(identity: Data, batch: String, pending: ArraySlice<SubmissionCompiler.Compiled>) {
        (self.identity, self.batch, self.compiled, self.pending) = (identity, batch, Array(pending), pending)
    }
}
