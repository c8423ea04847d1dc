import Foundation
import RenderEngine
import ReelTestSupport
import SessionKit
@testable import Farm

/// A coordinator of its own on a thread, no worker, with one small clip uploaded: what the
/// tests of submissions talk to.
struct ScratchFarm {
    let options: Coordinator.Options
    let coordinator: CoordinatorThread
    let client: FarmClient
    /// The uploaded clip's content id.
    let clipID: String

    init(in dir: URL, store: StoreKind = .sqlite) throws {
        guard try TestEnvironment.reel(["sample", "clip.mp4", "--duration", "1", "--size", "64x36"], in: dir).status == 0 else {
            throw FarmError(.internal, "reel sample failed")
        }
        let clip = dir.appendingPathComponent("clip.mp4")
        clipID = try ContentID.of(file: clip.path)
        var options = Coordinator.Options.scratch(in: dir)
        if store != .sqlite { options.store = try store.freshLocation() }
        self.options = options
        coordinator = try CoordinatorThread(options)
        client = try FarmClient(endpoint: coordinator.endpoint)
        client.timeoutSeconds = 120
        try client.upload(clip, contentID: clipID)
    }

    /// A one-segment session of the clip.
    func submission(priority: Int = 0) -> Submit {
        Submit(session: #"{"video": {"videoSegments": [{"source": "clip.mp4"}]}}"#, files: ["clip.mp4": clipID], paths: [:],
               settings: EncoderSettings(), priority: priority)
    }

    func stop() { coordinator.stop() }
}
