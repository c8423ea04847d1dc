import Foundation
import Testing
@testable import Farm

/// What a client reads of the coordinator's disk: directories by their role, as paths and
/// as file URLs, never a half-replaced URL.
struct PublicTextTests {
    @Test func directoriesAreToldByNameAsPathsAndAsURLs() {
        let state = URL(fileURLWithPath: "/var/lib/reelfarm")
        let named = [(state.appendingPathComponent("media"), "the coordinator's media store"), (state, "the coordinator's state directory")]
        #expect(Coordinator.scrub("cannot write file:///var/lib/reelfarm/chunks/j1/3.lz4: No space left on device", naming: named)
                == "cannot write the coordinator's state directory/chunks/j1/3.lz4: No space left on device")
        #expect(Coordinator.scrub("cannot read /var/lib/reelfarm/media/sha256-ab", naming: named)
                == "cannot read the coordinator's media store/sha256-ab")
        #expect(Coordinator.scrub("nothing of ours in /tmp/x", naming: named) == "nothing of ours in /tmp/x")
    }
}
