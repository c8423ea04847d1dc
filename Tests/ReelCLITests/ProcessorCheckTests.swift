import Testing
@testable import ReelCLI

/// `reel` names what an old processor lacks instead of dying of SIGILL in a pixel loop.
@Suite struct ProcessorCheckTests {
    @Test func namesTheFeaturesAProcessorLacks() throws {
        try #require(!ProcessorCheck.required.isEmpty, "this build's engine is for the baseline processor")
        let sandyBridge = "processor\t: 0\nflags\t\t: fpu sse sse2 ssse3 sse4_1 sse4_2 popcnt avx\n"
        #expect(ProcessorCheck.missing(cpuinfo: sandyBridge) == ["avx2", "bmi1", "bmi2", "fma", "f16c", "movbe"])
        let zen = "flags\t\t: fpu sse2 sse4_2 popcnt avx avx2 bmi1 bmi2 fma f16c movbe\n"
        #expect(ProcessorCheck.missing(cpuinfo: zen).isEmpty)
        #expect(ProcessorCheck.missing(cpuinfo: nil).isEmpty)
    }

    @Test func thisMachineRunsTheEngine() {
        #expect(ProcessorCheck.missing().isEmpty)
    }
}
