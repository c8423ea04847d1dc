import Foundation
import Testing
@testable import Farm

/// The coordinator's parts that decide without I/O: who hears of a job's progress and
/// when, when the disk pauses dispatch, and the farm's rates.
struct CoordinatorPartsTests {
    @Test func followersHearAtMostFiveTimesASecondAndAlwaysTheEnd() {
        var watchers = JobWatchers()
        let a = Data("a".utf8), b = Data("b".utf8)
        let before = watchers.due("j", now: 0, final: false)   // nobody follows yet
        watchers.add(a, to: "j")
        watchers.add(b, to: "j")
        let told = [watchers.due("j", now: 10, final: false), watchers.due("j", now: 10.1, final: false),
                    watchers.due("j", now: 10.3, final: false),
                    watchers.due("j", now: 10.35, final: true),    // the end, whatever the rate
                    watchers.due("j", now: 20, final: false)]      // and then forgotten
        #expect(before.isEmpty && told == [[a, b], [], [a, b], [a, b], []])
    }

    @Test func theDiskPausesBelowTheMinimumAndResumesAbove() {
        var guardian = DiskGuard(directory: "/state", minimumFree: 100)
        let checks = [guardian.due(now: 5, force: false), guardian.due(now: 5.5, force: false),
                      guardian.due(now: 5.5, force: true), guardian.due(now: 6.5, force: false)]
        #expect(checks == [true, false, true, true])
        guard case .pause(.diskFull, let detail) = guardian.event(free: 99, pausedForDisk: false) else {
            Issue.record("no pause below the minimum")
            return
        }
        #expect(detail == "the disk of /state has 99 bytes free, below the 100 kept free")
        #expect(guardian.event(free: 99, pausedForDisk: true) == nil)
        guard case .resume(.diskFull) = guardian.event(free: 100, pausedForDisk: true) else {
            Issue.record("no resume at the minimum")
            return
        }
        #expect(guardian.event(free: 100, pausedForDisk: false) == nil)
    }

    @Test func ratesFollowFramesAndForgetWhatHasGone() {
        var activity = FarmActivity()
        let first = activity.sample(now: 0, framesDone: ["j": 0], connected: ["w"])
        activity.rendered(30, by: "w")
        activity.reported(residentKB: 1234, cpuSeconds: nil, by: "w", at: 0)
        let early = activity.sample(now: 0.5, framesDone: ["j": 30], connected: ["w"])   // once a second
        let second = activity.sample(now: 1, framesDone: ["j": 30], connected: ["w"])
        #expect(first && !early && second)
        #expect(activity.framesRendered == 30 && activity.worker("w")?.residentKB == 1234)
        #expect((activity.framesPerSecond(ofJob: "j") ?? 0) > 0 && activity.framesPerSecond > 0)
        // CPU time becomes cores busy between heartbeats a second or more apart.
        activity.reported(residentKB: nil, cpuSeconds: 10, by: "w", at: 10)
        #expect(activity.worker("w")?.cpuCores == nil)
        activity.reported(residentKB: nil, cpuSeconds: 10.5, by: "w", at: 10.4)   // too close to measure
        activity.reported(residentKB: nil, cpuSeconds: 13, by: "w", at: 12)
        #expect(activity.worker("w")?.cpuCores == 1.5 && activity.worker("w")?.residentKB == 1234)
        let third = activity.sample(now: 2, framesDone: [:], connected: [])
        #expect(third && activity.framesPerSecond(ofJob: "j") == nil && activity.worker("w") == nil)
    }
}
